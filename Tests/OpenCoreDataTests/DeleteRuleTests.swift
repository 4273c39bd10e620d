import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Delete rules (§3.4–§3.7) and deletes of never-saved objects (§1.13). In the test model
/// Person.pets cascades, Pet.owner and Song.playlist nullify, Playlist.songs denies.
@Suite struct DeleteRuleTests {
    /// Saves Ada with pets Rex and Fido, reopens, and returns the fresh context's objects.
    private func savedOwnerWithPets(_ stack: TestStack) throws -> (owner: NSManagedObject, pets: [NSManagedObject]) {
        let ada = stack.insert("Person", ["name": "Ada"])
        _ = stack.insert("Pet", ["name": "Rex", "owner": ada])
        _ = stack.insert("Pet", ["name": "Fido", "owner": ada])
        try stack.context.save()
        try stack.reopen()
        let owner = try #require(try stack.fetch("Person").first)
        return (owner, try stack.fetch("Pet", sortedBy: "name"))
    }

    @Test(arguments: StoreKind.allCases)
    func cascadeRunsAtProcessPendingChangesNotBefore(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let (ada, pets) = try savedOwnerWithPets(stack)
        _ = members(ada, "pets")
        stack.context.delete(ada)
        // §3.5: delete only marks the object; the cascade waits for the end of the event.
        #expect(ada.isDeleted)
        for pet in pets {
            #expect(!pet.isDeleted)
            #expect(pet.value(forKey: "owner") as? NSManagedObject === ada)
        }
        #expect(stack.context.deletedObjects == [ada])

        stack.context.processPendingChanges()
        for pet in pets { #expect(pet.isDeleted) }
    }

    @Test(arguments: StoreKind.allCases)
    func nullifyRunsAtProcessPendingChangesNotBefore(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let (ada, pets) = try savedOwnerWithPets(stack)
        let (fido, rex) = (pets[0], pets[1])
        #expect(members(ada, "pets") == [fido, rex])
        stack.context.delete(rex)
        // §3.5: the owner still lists the pet until the event ends.
        #expect(members(ada, "pets").contains(rex))
        stack.context.processPendingChanges()
        // §3.4 nullify: the inverse reference is cleared.
        #expect(members(ada, "pets") == [fido])
        #expect(!ada.isDeleted)
    }

    @Test(arguments: StoreKind.allCases)
    func withoutPropagationAtEndOfEventDeletesPropagateAtSave(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let (ada, pets) = try savedOwnerWithPets(stack)
        stack.context.propagatesDeletesAtEndOfEvent = false
        stack.context.delete(ada)
        stack.context.processPendingChanges()
        // §3.5: with propagatesDeletesAtEndOfEvent false, delete rules wait for save.
        for pet in pets {
            #expect(!pet.isDeleted)
            #expect(pet.value(forKey: "owner") as? NSManagedObject === ada)
        }
        #expect(stack.context.deletedObjects == [ada])
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.storedCount("Person") == 0)
        #expect(try stack.storedCount("Pet") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func cascadeDeletesRelatedObjectsAndTheirRows(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let (ada, pets) = try savedOwnerWithPets(stack)
        _ = stack.insert("Person", ["name": "Bob"])
        try stack.context.save()
        let didSave = NotificationRecorder(.NSManagedObjectContextDidSave, object: stack.context)

        stack.context.delete(ada)
        stack.context.processPendingChanges()
        // §3.6 [UNCONFIRMED]: cascaded objects are ordinary deletions.
        #expect(stack.context.deletedObjects == Set([ada] + pets))
        try stack.context.save()
        #expect(didSave.notifications.count == 1)
        #expect(didSave.objects(NSDeletedObjectsKey, at: 0) == Set([ada] + pets))

        try stack.reopen()
        #expect(try stack.storedStrings("Person") == ["Bob"])
        #expect(try stack.storedCount("Pet") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func cascadeReachesMembersThatWereNeverLoaded(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = try savedOwnerWithPets(stack)
        try stack.reopen()
        // Only the owner is fetched; its pets are still a relationship fault.
        let ada = try #require(try stack.fetch("Person").first)
        #expect(ada.hasFault(forRelationshipNamed: "pets"))
        stack.context.delete(ada)
        try stack.context.save()

        try stack.reopen()
        #expect(try stack.storedCount("Person") == 0)
        #expect(try stack.storedCount("Pet") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func nullifyRemovesTheDeletedObjectFromTheOwnersSetInTheStore(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let (ada, pets) = try savedOwnerWithPets(stack)
        stack.context.delete(pets[1])
        try stack.context.save()
        #expect(members(ada, "pets") == [pets[0]])
        #expect(!ada.hasChanges)

        try stack.reopen()
        let person = try #require(try stack.fetch("Person").first)
        #expect(strings(members(person, "pets")) == ["Fido"])
        #expect(try stack.storedStrings("Pet") == ["Fido"])
    }

    @Test(arguments: StoreKind.allCases)
    func deletingAnOwnerWithoutPetsLeavesOtherPetsAlone(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = try savedOwnerWithPets(stack)
        let bob = stack.insert("Person", ["name": "Bob"])
        try stack.context.save()
        stack.context.delete(bob)
        try stack.context.save()

        try stack.reopen()
        #expect(try stack.storedStrings("Person") == ["Ada"])
        #expect(try stack.storedStrings("Pet") == ["Fido", "Rex"])
    }

    @Test(arguments: StoreKind.allCases)
    func nullifyOnAnOrderedRelationshipKeepsTheRemainingOrder(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let list = stack.insert("Playlist", ["title": "Mix"])
        for title in ["a", "b", "c"] { list.mutableOrderedSetValue(forKey: "songs").add(stack.insert("Song", ["title": title])) }
        try stack.context.save()
        try stack.reopen()

        let playlist = try #require(try stack.fetch("Playlist").first)
        let middle = orderedMembers(playlist, "songs")[1]
        stack.context.delete(middle)
        stack.context.processPendingChanges()
        #expect(orderedMembers(playlist, "songs").map { $0.value(forKey: "title") as? String } == ["a", "c"])
        try stack.context.save()

        try stack.reopen()
        let reread = try #require(try stack.fetch("Playlist").first)
        #expect(orderedMembers(reread, "songs").map { $0.value(forKey: "title") as? String } == ["a", "c"])
    }

    @Test(arguments: StoreKind.allCases)
    func deletingAClubNullifiesItsMembersClubs(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let chess = stack.insert("Club", ["name": "Chess"])
        let go = stack.insert("Club", ["name": "Go"])
        ada.setValue(Set([chess, go]), forKey: "clubs")
        try stack.context.save()
        try stack.reopen()

        let person = try #require(try stack.fetch("Person").first)
        let club = try #require(try stack.fetch("Club", NSComparisonPredicate(key: "name", .equalTo, "Chess")).first)
        stack.context.delete(club)
        stack.context.processPendingChanges()
        #expect(strings(members(person, "clubs")) == ["Go"])
        try stack.context.save()

        try stack.reopen()
        let reread = try #require(try stack.fetch("Person").first)
        #expect(strings(members(reread, "clubs")) == ["Go"])
        #expect(try stack.storedStrings("Club") == ["Go"])
    }

    // MARK: Deny

    @Test(arguments: StoreKind.allCases)
    func denyFailsTheSaveWith1600AndWritesNothing(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let list = stack.insert("Playlist", ["title": "Mix"])
        for title in ["a", "b"] { list.mutableOrderedSetValue(forKey: "songs").add(stack.insert("Song", ["title": title])) }
        try stack.context.save()
        try stack.reopen()

        let playlist = try #require(try stack.fetch("Playlist").first)
        // §3.7: the delete itself succeeds in memory…
        stack.context.delete(playlist)
        stack.context.processPendingChanges()
        #expect(playlist.isDeleted)
        // …the save fails validation.
        let error = #expect(throws: (any Error).self) { try stack.context.save() }
        #expect((error as? NSError)?.domain == NSCocoaErrorDomain)
        #expect(error?.code == 1600)
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "songs")  // key [UNCONFIRMED] (§3.7)
        #expect(error?.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === playlist)
        // §5.3 [UNCONFIRMED]: the failed save leaves the delete pending and writes nothing.
        #expect(stack.context.deletedObjects.contains(playlist))
        #expect(stack.context.hasChanges)
        #expect(try stack.storedStrings("Playlist", "title") == ["Mix"])
        #expect(try stack.storedStrings("Song", "title") == ["a", "b"])

        try stack.reopen()
        let reread = try #require(try stack.fetch("Playlist").first)
        #expect(orderedMembers(reread, "songs").map { $0.value(forKey: "title") as? String } == ["a", "b"])
    }

    @Test(arguments: StoreKind.allCases)
    func denyAllowsTheDeleteOnceTheRelationshipIsEmpty(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let list = stack.insert("Playlist", ["title": "Mix"])
        let song = stack.insert("Song", ["title": "a", "playlist": list])
        _ = stack.insert("Playlist", ["title": "Empty"])
        try stack.context.save()

        // Deleting the only song in the same save empties the deny relationship.
        stack.context.delete(song)
        stack.context.delete(list)
        try stack.context.save()
        // An empty playlist can be deleted on its own.
        let empty = try #require(try stack.fetch("Playlist").first)
        stack.context.delete(empty)
        try stack.context.save()

        try stack.reopen()
        #expect(try stack.storedCount("Playlist") == 0)
        #expect(try stack.storedCount("Song") == 0)
    }

    // MARK: Deleting what was never saved

    @Test(arguments: StoreKind.allCases)
    func insertThenDeleteBeforeSavingLeavesTheStoreUntouched(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let didSave = NotificationRecorder(.NSManagedObjectContextDidSave, object: stack.context)
        let ada = stack.insert("Person", ["name": "Ada"])
        let rex = stack.insert("Pet", ["name": "Rex", "owner": ada])
        let bob = stack.insert("Person", ["name": "Bob"])
        stack.context.delete(ada)
        stack.context.processPendingChanges()
        // §1.13: a never-saved object just leaves the context (its cascaded pet too).
        #expect(!stack.context.insertedObjects.contains(ada))
        #expect(!stack.context.insertedObjects.contains(rex))
        #expect(stack.context.insertedObjects == [bob])
        #expect(stack.context.deletedObjects.isEmpty)

        try stack.context.save()
        #expect(didSave.notifications.count == 1)
        #expect(didSave.objects(NSInsertedObjectsKey, at: 0) == [bob])
        #expect(didSave.objects(NSDeletedObjectsKey, at: 0).isEmpty)
        try stack.reopen()
        #expect(try stack.storedStrings("Person") == ["Bob"])
        #expect(try stack.storedCount("Pet") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func insertThenDeleteOfEverythingLeavesNoChanges(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        stack.context.delete(ada)
        stack.context.processPendingChanges()
        #expect(!stack.context.hasChanges)
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.storedCount("Person") == 0)
    }
}
