import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// Nested contexts (§5.9, §10.8, issue 14 item 3): a child saves into its parent, sees the
/// parent's unsaved state, and chains of any depth reach the store only through the root.
@Suite struct ParentContextTests {
    /// A private-queue context on the stack's coordinator, as a writer context at the root.
    private func rootContext(_ stack: TestStack) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        return context
    }

    private func child(of parent: NSManagedObjectContext) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.parent = parent
        return context
    }

    private func insertPerson(_ name: String, age: Int = 0, into context: NSManagedObjectContext) -> NSManagedObject {
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        person.setValue(name, forKey: "name")
        person.setValue(age, forKey: "age")
        return person
    }

    /// A person with pets, saved through the stack's context.
    private func savePerson(_ name: String, withPets pets: [String], in stack: TestStack) throws -> NSManagedObject {
        let person = stack.insert("Person", ["name": name])
        for petName in pets {
            let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: stack.context)
            pet.setValue(petName, forKey: "name")
            pet.setValue(person, forKey: "owner")
        }
        try stack.context.save()
        return person
    }

    private func names(_ request: NSFetchRequest<NSManagedObject>, in context: NSManagedObjectContext) throws -> [String] {
        try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "?" }
    }

    private func people(_ format: String? = nil, sortedBy key: String = "name", limit: Int = 0) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = format.map { NSPredicate(format: $0) }
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        request.fetchLimit = limit
        return request
    }

    // MARK: Saving through a parent

    @Test(arguments: StoreKind.allCases)
    func aChildsSaveReachesTheStoreOnlyWhenTheParentSaves(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = rootContext(stack)
        let child = child(of: parent)
        #expect(child.persistentStoreCoordinator === stack.coordinator)
        try child.performAndWait {
            _ = insertPerson("Ada", age: 36, into: child)
            try child.save()
            #expect(!child.hasChanges)
        }
        // §5.9: the parent has the change, unsaved; the store does not.
        parent.performAndWait {
            #expect(parent.hasChanges)
            #expect(parent.insertedObjects.map { $0.value(forKey: "name") as? String } == ["Ada"])
        }
        #expect(try stack.storedCount("Person") == 0)
        try parent.performAndWait { try parent.save() }
        #expect(try stack.storedStrings("Person") == ["Ada"])
        try stack.reopen()
        let saved = try stack.fetch("Person")
        #expect(saved.map { $0.value(forKey: "age") as? Int } == [36])
    }

    @Test(arguments: StoreKind.allCases)
    func updatesAndDeletesOfAChildBecomeTheParentsChanges(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada", "age": 36])
        let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: stack.context)
        pet.setValue("Rex", forKey: "name")
        pet.setValue(ada, forKey: "owner")
        stack.insert("Person", ["name": "Bob", "age": 50])
        try stack.context.save()
        let adaID = ada.objectID
        let parent = rootContext(stack)
        let child = child(of: parent)
        try child.performAndWait {
            let ada = try child.existingObject(with: adaID)
            ada.setValue(37, forKey: "age")
            let bob = try #require(try child.fetch(people("name == 'Bob'")).first)
            child.delete(bob)
            try child.save()
        }
        try parent.performAndWait {
            let ada = try #require(parent.registeredObject(for: adaID))
            #expect(ada.isUpdated)
            #expect(ada.value(forKey: "age") as? Int == 37)
            #expect(parent.deletedObjects.map { $0.value(forKey: "name") as? String } == ["Bob"])
            try parent.save()
        }
        try stack.reopen()
        let stored = try stack.fetch("Person", sortedBy: "name")
        #expect(stored.map { $0.value(forKey: "name") as? String } == ["Ada"])
        #expect(stored.first?.value(forKey: "age") as? Int == 37)
        #expect(try stack.storedCount("Pet") == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aDeleteInAChildRunsItsCascadeThroughTheParent(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = try savePerson("Ada", withPets: ["Rex", "Tom"], in: stack)
        let parent = rootContext(stack)
        let child = child(of: parent)
        try child.performAndWait {
            child.delete(try child.existingObject(with: ada.objectID))
            try child.save()
        }
        try parent.performAndWait {
            #expect(parent.deletedObjects.count == 3)
            try parent.save()
        }
        #expect(try stack.storedCount("Person") == 0)
        #expect(try stack.storedCount("Pet") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func relationshipsMadeInAChildSurviveTheParentsSave(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = rootContext(stack)
        // The owner is the parent's own new object, unsaved; the child adds a pet, a club
        // (many-to-many) and an ordered playlist.
        let adaID = parent.performAndWait { () -> NSManagedObjectID in
            insertPerson("Ada", into: parent).objectID
        }
        #expect(adaID.isTemporaryID)
        let child = child(of: parent)
        try child.performAndWait {
            let ada = try child.existingObject(with: adaID)
            #expect(ada.value(forKey: "name") as? String == "Ada")
            let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: child)
            pet.setValue("Rex", forKey: "name")
            pet.setValue(ada, forKey: "owner")
            let club = NSEntityDescription.insertNewObject(forEntityName: "Club", into: child)
            club.setValue("Chess", forKey: "name")
            club.mutableSetValue(forKey: "members").add(ada)
            let playlist = NSEntityDescription.insertNewObject(forEntityName: "Playlist", into: child)
            playlist.setValue("Mix", forKey: "title")
            for title in ["b", "a", "c"] {
                let song = NSEntityDescription.insertNewObject(forEntityName: "Song", into: child)
                song.setValue(title, forKey: "title")
                playlist.mutableOrderedSetValue(forKey: "songs").add(song)
            }
            try child.save()
        }
        try parent.performAndWait {
            // The parent's own object shows what the child attached to it.
            let ada = try #require(parent.registeredObject(for: adaID))
            #expect((ada.value(forKey: "pets") as? Set<NSManagedObject>)?.map { $0.value(forKey: "name") as? String } == ["Rex"])
            #expect((ada.value(forKey: "clubs") as? Set<NSManagedObject>)?.count == 1)
            try parent.save()
        }
        try stack.reopen()
        let ada = try #require(try stack.fetch("Person").first)
        #expect((ada.value(forKey: "pets") as? Set<NSManagedObject>)?.map { $0.value(forKey: "name") as? String } == ["Rex"])
        #expect((ada.value(forKey: "clubs") as? Set<NSManagedObject>)?.map { $0.value(forKey: "name") as? String } == ["Chess"])
        let playlist = try #require(try stack.fetch("Playlist").first)
        let songs = try #require(playlist.value(forKey: "songs") as? NSOrderedSet)
        #expect(songs.array.map { ($0 as? NSManagedObject)?.value(forKey: "title") as? String } == ["b", "a", "c"])
    }

    // MARK: What a child sees

    @Test(arguments: StoreKind.allCases)
    func aChildsFetchesSeeTheParentsUnsavedInsertsUpdatesAndDeletes(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        for (name, age) in [("Ada", 36), ("Bob", 50), ("Cy", 20), ("Dee", 70)] { stack.insert("Person", ["name": name, "age": age]) }
        try stack.context.save()
        let parent = rootContext(stack)
        try parent.performAndWait {
            _ = insertPerson("Eve", age: 40, into: parent)
            let cy = try #require(try parent.fetch(people("name == 'Cy'")).first)
            cy.setValue(45, forKey: "age")
            let bob = try #require(try parent.fetch(people("name == 'Bob'")).first)
            parent.delete(bob)
            let dee = try #require(try parent.fetch(people("name == 'Dee'")).first)
            dee.setValue(10, forKey: "age")
        }
        let child = child(of: parent)
        try child.performAndWait {
            // Eve (new), Cy (now 45) match; Bob (deleted) and Dee (now 10) do not.
            #expect(try names(people("age >= 30"), in: child) == ["Ada", "Cy", "Eve"])
            #expect(try names(people("age >= 30", sortedBy: "age"), in: child) == ["Ada", "Eve", "Cy"])
            #expect(try names(people("age >= 30", limit: 2), in: child) == ["Ada", "Cy"])
            #expect(try child.count(for: people("age >= 30")) == 3)
            #expect(try child.count(for: people()) == 4)
            // The objects carry the parent's values.
            let cy = try #require(try child.fetch(people("name == 'Cy'")).first)
            #expect(cy.value(forKey: "age") as? Int == 45)
            #expect(!cy.hasChanges)
            // The child's own pending changes come on top of the parent's.
            cy.setValue(5, forKey: "age")
            _ = insertPerson("Fay", age: 99, into: child)
            #expect(try names(people("age >= 30"), in: child) == ["Ada", "Eve", "Fay"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func existingObjectInAChildGivesTheParentsValues(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada", "age": 36])
        let bob = stack.insert("Person", ["name": "Bob"])
        try stack.context.save()
        let parent = rootContext(stack)
        try parent.performAndWait {
            try parent.existingObject(with: ada.objectID).setValue(99, forKey: "age")
            parent.delete(try parent.existingObject(with: bob.objectID))
        }
        let child = child(of: parent)
        try child.performAndWait {
            let age = try child.existingObject(with: ada.objectID).value(forKey: "age") as? Int
            #expect(age == 99)
            // The parent deleted Bob: to the child he no longer exists.
            #expect(throws: (any Error).self) { try child.existingObject(with: bob.objectID) }
            let fault = child.object(with: bob.objectID)
            #expect(fault.value(forKey: "name") == nil)
            #expect(fault.isDeleted)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aChildSeesAnObjectItsParentChangedOnlyThroughAnInverse(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = try savePerson("Ada", withPets: [], in: stack)
        let parent = rootContext(stack)
        parent.performAndWait {
            // Ada is changed in the parent only by the inverse of the new pet's owner.
            let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: parent)
            pet.setValue("Rex", forKey: "name")
            pet.setValue(parent.object(with: ada.objectID), forKey: "owner")
        }
        let child = child(of: parent)
        try child.performAndWait {
            let adaInChild = try child.existingObject(with: ada.objectID)
            #expect(adaInChild.value(forKey: "name") as? String == "Ada")
            let pets = try #require(adaInChild.value(forKey: "pets") as? Set<NSManagedObject>)
            #expect(pets.map { $0.value(forKey: "name") as? String } == ["Rex"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theParentsNewObjectsResolveInTheChildByTheirTemporaryIDs(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = rootContext(stack)
        let (adaID, petID) = parent.performAndWait { () -> (NSManagedObjectID, NSManagedObjectID) in
            let ada = insertPerson("Ada", age: 36, into: parent)
            let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: parent)
            pet.setValue("Rex", forKey: "name")
            pet.setValue(ada, forKey: "owner")
            return (ada.objectID, pet.objectID)
        }
        let child = child(of: parent)
        try child.performAndWait {
            // A fault made from the temporary ID fires with the parent's values.
            let pet = child.object(with: petID)
            #expect(pet.value(forKey: "name") as? String == "Rex")
            let owner = try #require(pet.value(forKey: "owner") as? NSManagedObject)
            #expect(owner.value(forKey: "name") as? String == "Ada")
            // The temporary ID keeps naming the same object in the child.
            #expect(child.object(with: adaID) === owner)
            #expect(try child.existingObject(with: adaID) === owner)
            owner.setValue(37, forKey: "age")
            try child.save()
        }
        try parent.performAndWait {
            // The child's change went to the parent's own new object, which stays new.
            let ada = try #require(parent.registeredObject(for: adaID))
            #expect(ada.isInserted)
            #expect(ada.value(forKey: "age") as? Int == 37)
            #expect(parent.insertedObjects.count == 2)
            try parent.save()
        }
        try stack.reopen()
        #expect(try stack.fetch("Person").first?.value(forKey: "age") as? Int == 37)
        #expect(try stack.storedCount("Pet") == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aChildLoadsToManysWithTheParentsPendingMembers(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = try savePerson("Ada", withPets: ["Rex", "Tom"], in: stack)
        let parent = rootContext(stack)
        try parent.performAndWait {
            let ada = try parent.existingObject(with: ada.objectID)
            let pets = try #require(ada.value(forKey: "pets") as? Set<NSManagedObject>)
            parent.delete(try #require(pets.first { $0.value(forKey: "name") as? String == "Tom" }))
            let new = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: parent)
            new.setValue("Zed", forKey: "name")
            new.setValue(ada, forKey: "owner")
            try #require(pets.first { $0.value(forKey: "name") as? String == "Rex" }).setValue("Rexy", forKey: "name")
        }
        let child = child(of: parent)
        try child.performAndWait {
            let ada = try child.existingObject(with: ada.objectID)
            let pets = try #require(ada.value(forKey: "pets") as? Set<NSManagedObject>)
            #expect(pets.compactMap { $0.value(forKey: "name") as? String }.sorted() == ["Rexy", "Zed"])
        }
    }

    // MARK: IDs, rollback, reset

    @Test(arguments: StoreKind.allCases)
    func obtainPermanentIDsInAChildGoesThroughTheChain(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = rootContext(stack)
        let child = child(of: parent)
        let id = try child.performAndWait { () -> NSManagedObjectID in
            let ada = insertPerson("Ada", into: child)
            try child.obtainPermanentIDs(for: [ada])
            #expect(!ada.objectID.isTemporaryID)
            #expect(ada.isInserted)
            try child.save()
            return ada.objectID
        }
        try parent.performAndWait {
            #expect(parent.registeredObject(for: id)?.isInserted == true)
            try parent.save()
        }
        let reader = stack.newContext()
        #expect(try reader.existingObject(with: id).value(forKey: "name") as? String == "Ada")
    }

    @Test(arguments: StoreKind.allCases)
    func aChildsNewObjectsReachTheParentWithPermanentIDs(kind: StoreKind) throws {
        // Difference from Core Data (Docs/Differences.md): the IDs are permanent at the child's
        // save, and the same in the child, the parent and the store.
        let stack = try TestStack(kind)
        let parent = rootContext(stack)
        let child = child(of: parent)
        let id = try child.performAndWait { () -> NSManagedObjectID in
            let ada = insertPerson("Ada", into: child)
            #expect(ada.objectID.isTemporaryID)
            try child.save()
            #expect(!ada.objectID.isTemporaryID)
            return ada.objectID
        }
        try parent.performAndWait {
            let ada = try #require(parent.registeredObject(for: id))
            #expect(ada.value(forKey: "name") as? String == "Ada")
            try parent.save()
            #expect(ada.objectID == id)
        }
        #expect(try stack.newContext().existingObject(with: id).value(forKey: "name") as? String == "Ada")
    }

    @Test(arguments: StoreKind.allCases)
    func rollbackAndResetOfAChildLeaveTheParentAlone(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = rootContext(stack)
        parent.performAndWait { _ = insertPerson("Ada", age: 36, into: parent) }
        let child = child(of: parent)
        try child.performAndWait {
            let ada = try #require(try child.fetch(people()).first)
            ada.setValue(1, forKey: "age")
            _ = insertPerson("Bob", into: child)
            child.rollback()
            #expect(!child.hasChanges)
            #expect(ada.value(forKey: "age") as? Int == 36)
            _ = insertPerson("Cy", into: child)
            child.reset()
            #expect(try names(people(), in: child) == ["Ada"])
        }
        parent.performAndWait {
            #expect(parent.insertedObjects.count == 1)
            #expect(parent.insertedObjects.first?.value(forKey: "age") as? Int == 36)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aChildCannotSaveAChangeToAnObjectItsParentDeleted(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada", "age": 1])
        try stack.context.save()
        let parent = rootContext(stack)
        let child = child(of: parent)
        try child.performAndWait { try child.existingObject(with: ada.objectID).setValue(2, forKey: "age") }
        try parent.performAndWait { parent.delete(try parent.existingObject(with: ada.objectID)) }
        child.performAndWait {
            let error = #expect(throws: (any Error).self) { try child.save() }
            #expect(error?.code == NSManagedObjectReferentialIntegrityError)
            #expect(error?.message.contains("its parent context has deleted") == true)
            #expect(child.hasChanges)
        }
        parent.performAndWait {
            #expect(parent.deletedObjects.count == 1)
            #expect(parent.updatedObjects.isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aChildCannotRelateAnObjectToOneItsParentDeleted(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let club = NSEntityDescription.insertNewObject(forEntityName: "Club", into: stack.context)
        club.setValue("Chess", forKey: "name")
        try stack.context.save()
        let parent = rootContext(stack)
        let child = child(of: parent)
        try child.performAndWait {
            // A new pet owned by Ada, and Ada in the club (many-to-many).
            let ada = try child.existingObject(with: ada.objectID)
            let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: child)
            pet.setValue(ada, forKey: "owner")
            try child.existingObject(with: club.objectID).mutableSetValue(forKey: "members").add(ada)
        }
        try parent.performAndWait { parent.delete(try parent.existingObject(with: ada.objectID)) }
        child.performAndWait {
            let error = #expect(throws: (any Error).self) { try child.save() }
            #expect(error?.code == NSManagedObjectReferentialIntegrityError)
            #expect(error?.message.contains("Person") == true && error?.message.contains("which its parent context has deleted") == true)
        }
        parent.performAndWait {
            #expect(parent.insertedObjects.isEmpty)
            #expect(parent.deletedObjects.count == 1)
        }
    }

    // MARK: Chains

    @Test(arguments: StoreKind.allCases)
    func aWriterMainAndEditorChainSavesLevelByLevel(kind: StoreKind) throws {
        // Core Data's common stack: a private writer on the coordinator, the main context as its
        // child, and an editing context below that.
        let stack = try TestStack(kind)
        stack.insert("Person", ["name": "Ada", "age": 36])
        try stack.context.save()
        let writer = rootContext(stack)
        let main = child(of: writer)
        let editor = child(of: main)
        #expect(editor.persistentStoreCoordinator === stack.coordinator)
        try editor.performAndWait {
            let ada = try #require(try editor.fetch(people()).first)
            ada.setValue(37, forKey: "age")
            _ = insertPerson("Bob", age: 50, into: editor)
            try editor.save()
        }
        try main.performAndWait {
            #expect(try names(people("age > 36"), in: main) == ["Ada", "Bob"])
            try main.save()
            #expect(!main.hasChanges)
        }
        writer.performAndWait { #expect(writer.hasChanges) }
        #expect(try stack.storedStrings("Person") == ["Ada"])
        // Before the writer saves, a new editor already sees the main context's state.
        let second = child(of: main)
        let seen = try second.performAndWait { try names(people("age > 36"), in: second) }
        #expect(seen == ["Ada", "Bob"])
        try writer.performAndWait { try writer.save() }
        try stack.reopen()
        let stored = try stack.fetch("Person", sortedBy: "name")
        #expect(stored.map { $0.value(forKey: "age") as? Int } == [37, 50])
    }

    // MARK: Merging

    @Test(arguments: StoreKind.allCases)
    func aChildThatMergesFollowsItsParentsAndSiblingsSaves(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada", "age": 1])
        try stack.context.save()
        let parent = rootContext(stack)
        let follower = child(of: parent)
        follower.automaticallyMergesChangesFromParent = true
        let followed = try follower.performAndWait { try follower.existingObject(with: ada.objectID) }

        // A sibling saves into the parent: the follower merges it.
        let sibling = child(of: parent)
        try sibling.performAndWait {
            try sibling.existingObject(with: ada.objectID).setValue(2, forKey: "age")
            try sibling.save()
        }
        follower.performAndWait {}  // the merge is queued on the follower's queue
        follower.performAndWait { #expect(followed.value(forKey: "age") as? Int == 2) }

        // The parent changes and saves to the store: the follower merges that too.
        try parent.performAndWait {
            try parent.existingObject(with: ada.objectID).setValue(3, forKey: "age")
            try parent.save()
        }
        follower.performAndWait {}
        follower.performAndWait { #expect(followed.value(forKey: "age") as? Int == 3) }

        // A context of the coordinator that saves is no sibling of the follower: not merged.
        let stranger = stack.newContext()
        try stranger.existingObject(with: ada.objectID).setValue(4, forKey: "age")
        try stranger.save()
        follower.performAndWait {}
        follower.performAndWait { #expect(followed.value(forKey: "age") as? Int == 3) }
    }

    @Test func aRootContextDoesNotMergeAChildsSaveIntoItsParent() throws {
        let stack = try TestStack(.sqlite)
        let ada = stack.insert("Person", ["name": "Ada", "age": 1])
        try stack.context.save()
        let observer = rootContext(stack)
        observer.automaticallyMergesChangesFromParent = true
        let watched = try observer.performAndWait { try observer.existingObject(with: ada.objectID) }
        let parent = rootContext(stack)
        let child = child(of: parent)
        try child.performAndWait {
            try child.existingObject(with: ada.objectID).setValue(2, forKey: "age")
            try child.save()
        }
        // Nothing reached the store, so the coordinator's other contexts have nothing to merge.
        observer.performAndWait {}
        observer.performAndWait { #expect(watched.value(forKey: "age") as? Int == 1) }
        // The parent's save reached the store: the observer, its sibling, merges it.
        try parent.performAndWait { try parent.save() }
        observer.performAndWait {}
        observer.performAndWait { #expect(watched.value(forKey: "age") as? Int == 2) }
    }

    @Test func aChildHasOneObjectForAParentsNewObjectHoweverItReachesIt() throws {
        let stack = try TestStack(.sqlite)
        let parent = rootContext(stack)
        let (adaID, petID) = parent.performAndWait { () -> (NSManagedObjectID, NSManagedObjectID) in
            let ada = insertPerson("Ada", into: parent)
            let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: parent)
            pet.setValue(ada, forKey: "owner")
            return (ada.objectID, pet.objectID)
        }
        let child = child(of: parent)
        try child.performAndWait {
            // First by its temporary ID, before anything of it was read; then through a to-one.
            let early = child.object(with: adaID)
            let owner = try #require(child.object(with: petID).value(forKey: "owner") as? NSManagedObject)
            #expect(early === owner)
            #expect(try names(people(), in: child) == ["Ada"])
            #expect(try child.fetch(people()).first === early)
        }
    }

    @Test func aChildsNewObjectsKeepAnsweringToTheirTemporaryIDsAfterItsSave() throws {
        let stack = try TestStack(.sqlite)
        let parent = rootContext(stack)
        let child = child(of: parent)
        let temporaryID = try child.performAndWait { () -> NSManagedObjectID in
            let id = insertPerson("Ada", into: child).objectID
            try child.save()
            #expect(try child.existingObject(with: id).value(forKey: "name") as? String == "Ada")
            return id
        }
        #expect(temporaryID.isTemporaryID)
        try parent.performAndWait {
            let ada = try parent.existingObject(with: temporaryID)
            #expect(ada.isInserted)
            #expect(parent.object(with: temporaryID) === ada)
        }
    }

    @Test func nestedPerformAndWaitOfAParentAndItsChildRunsInPlace() throws {
        let stack = try TestStack(.sqlite)
        stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let parent = rootContext(stack)
        let child = child(of: parent)
        // The child's fetch reaches the parent while the parent's own block is running on this
        // thread: it must run in place, not wait for that block.
        let seen = try parent.performAndWait {
            _ = insertPerson("Bob", into: parent)
            return try child.performAndWait { try names(people(), in: child) }
        }
        #expect(seen == ["Ada", "Bob"])
    }

    @Test func aChildsSaveChangesOnlyThePropertiesTheChildChanged() throws {
        // As in Core Data, a child's save is applied to the parent's object as it is when the
        // save arrives: a property another context saved since the child read the object stays.
        let stack = try TestStack(.sqlite)
        let ada = stack.insert("Person", ["name": "Ada", "age": 1])
        try stack.context.save()
        let parent = rootContext(stack)
        let child = child(of: parent)
        let read = try child.performAndWait { try child.existingObject(with: ada.objectID) }
        let other = stack.newContext()
        try other.existingObject(with: ada.objectID).setValue("Ada L.", forKey: "name")
        try other.save()
        try child.performAndWait {
            read.setValue(2, forKey: "age")
            try child.save()
        }
        try parent.performAndWait { try parent.save() }
        let stored = try #require(try stack.fetch("Person", in: stack.newContext()).first)
        #expect(stored.value(forKey: "name") as? String == "Ada L.")
        #expect(stored.value(forKey: "age") as? Int == 2)
    }

    @Test func aChildSavesAgainAfterItsParentSavedItsLastChanges() throws {
        // The usual stack without merging: the child's objects keep the versions they were read
        // at, and the parent's saves of the child's changes are not conflicts of its own.
        let stack = try TestStack(.sqlite)
        let ada = stack.insert("Person", ["name": "Ada", "age": 1])
        try stack.context.save()
        let parent = rootContext(stack)
        let child = child(of: parent)
        let edited = try child.performAndWait { try child.existingObject(with: ada.objectID) }
        for age in 2...4 {
            try child.performAndWait {
                edited.setValue(age, forKey: "age")
                try child.save()
            }
            try parent.performAndWait { try parent.save() }
        }
        #expect(try stack.fetch("Person", in: stack.newContext()).first?.value(forKey: "age") as? Int == 4)
    }

    @Test func awakeFromInsertRunsOnTheParentsInstance() throws {
        // §1.17: the child's insert reaches the parent as a new object of the parent's, which
        // awakes once; the child's instance awoke once too.
        let model = TestModel.make()
        model.entitiesByName["Person"]?.managedObjectClass = TrackedPerson.self
        let stack = try TestStack(.sqlite, model: model)
        let parent = rootContext(stack)
        let child = child(of: parent)
        let id = try child.performAndWait { () -> NSManagedObjectID in
            let person = try #require(insertPerson("Ada", into: child) as? TrackedPerson)
            try child.save()
            #expect(person.awakeFromInsertCount == 1)
            return person.objectID
        }
        try parent.performAndWait {
            let person = try #require(parent.registeredObject(for: id) as? TrackedPerson)
            #expect(person.awakeFromInsertCount == 1)
            #expect(person.value(forKey: "name") as? String == "Ada")
        }
    }
}
