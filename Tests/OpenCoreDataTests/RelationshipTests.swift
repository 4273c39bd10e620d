import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Relationships: inverse maintenance (§3.1, §3.2), ordered relationships (§3.3), many-to-many,
/// and relationship state read back from the store.
@Suite struct RelationshipTests {
    // MARK: Inverse maintenance

    @Test(arguments: StoreKind.allCases)
    func settingAToOneUpdatesTheToManyInverseAtOnce(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let rex = stack.insert("Pet", ["name": "Rex"])
        let fido = stack.insert("Pet", ["name": "Fido"])
        rex.setValue(ada, forKey: "owner")
        fido.setValue(ada, forKey: "owner")
        // §3.1: the inverse is maintained by the setter. That it is visible before any
        // processPendingChanges() is [UNCONFIRMED] in Core Data; OpenCoreData promises it.
        #expect(members(ada, "pets") == [rex, fido])
        #expect(rex.value(forKey: "owner") as? NSManagedObject === ada)

        try stack.context.save()
        try stack.reopen()
        let person = try #require(try stack.fetch("Person").first)
        let pets = try stack.fetch("Pet", sortedBy: "name")
        #expect(strings(members(person, "pets")) == ["Fido", "Rex"])
        for pet in pets { #expect(pet.value(forKey: "owner") as? NSManagedObject === person) }
    }

    @Test(arguments: StoreKind.allCases)
    func mutableSetAddAndRemoveMaintainTheInverseAndDirtyTheOwner(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let rex = stack.insert("Pet", ["name": "Rex"])
        let fido = stack.insert("Pet", ["name": "Fido"])
        try stack.context.save()
        #expect(!ada.isUpdated)

        // §3.2: add through the live set → inverse set, owner updated.
        ada.mutableSetValue(forKey: "pets").add(rex)
        ada.mutableSetValue(forKey: "pets").add(fido)
        #expect(rex.value(forKey: "owner") as? NSManagedObject === ada)
        #expect(fido.value(forKey: "owner") as? NSManagedObject === ada)
        #expect(ada.isUpdated)
        #expect(ada.mutableSetValue(forKey: "pets").count == 2)
        try stack.context.save()

        // Remove through the live set → the pet's owner is cleared.
        ada.mutableSetValue(forKey: "pets").remove(rex)
        #expect(rex.value(forKey: "owner") == nil)
        #expect(members(ada, "pets") == [fido])
        try stack.context.save()

        try stack.reopen()
        let person = try #require(try stack.fetch("Person").first)
        #expect(strings(members(person, "pets")) == ["Fido"])
        let stray = try #require(try stack.fetch("Pet", NSComparisonPredicate(key: "name", .equalTo, "Rex")).first)
        #expect(stray.value(forKey: "owner") == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func assigningAWholeSetReplacesTheMembers(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let rex = stack.insert("Pet", ["name": "Rex", "owner": ada])
        let fido = stack.insert("Pet", ["name": "Fido"])
        let tom = stack.insert("Pet", ["name": "Tom"])
        try stack.context.save()

        // §3.2: assigning a whole new set replaces the contents, inverses included.
        ada.setValue(Set([fido, tom]), forKey: "pets")
        #expect(members(ada, "pets") == [fido, tom])
        #expect(rex.value(forKey: "owner") == nil)
        #expect(fido.value(forKey: "owner") as? NSManagedObject === ada)
        #expect(tom.value(forKey: "owner") as? NSManagedObject === ada)
        try stack.context.save()

        try stack.reopen()
        let person = try #require(try stack.fetch("Person").first)
        #expect(strings(members(person, "pets")) == ["Fido", "Tom"])
        #expect(try stack.fetch("Pet", NSComparisonPredicate(key: "owner", .equalTo, nil)).map { $0.value(forKey: "name") as? String } == ["Rex"])
    }

    @Test(arguments: StoreKind.allCases)
    func reassigningAPetMovesItBetweenOwners(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        let rex = stack.insert("Pet", ["name": "Rex", "owner": ada])
        #expect(members(ada, "pets") == [rex])

        rex.setValue(bob, forKey: "owner")
        #expect(members(ada, "pets").isEmpty)
        #expect(members(bob, "pets") == [rex])

        // And back through the other side: adding to Ada's set takes it from Bob's.
        ada.mutableSetValue(forKey: "pets").add(rex)
        #expect(rex.value(forKey: "owner") as? NSManagedObject === ada)
        #expect(members(bob, "pets").isEmpty)
        try stack.context.save()

        try stack.reopen()
        let people = try stack.fetch("Person", sortedBy: "name")
        #expect(people.map { strings(members($0, "pets")) } == [["Rex"], []])
    }

    @Test(arguments: StoreKind.allCases)
    func reassigningAPetWhoseOldOwnerWasNeverLoaded(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        _ = stack.insert("Person", ["name": "Bob"])
        _ = stack.insert("Pet", ["name": "Rex", "owner": ada])
        _ = stack.insert("Pet", ["name": "Fido", "owner": ada])
        try stack.context.save()
        try stack.reopen()

        // A fresh context: only the pet and the new owner are fetched; Ada's pets never loaded.
        let rex = try #require(try stack.fetch("Pet", NSComparisonPredicate(key: "name", .equalTo, "Rex")).first)
        let bob = try #require(try stack.fetch("Person", NSComparisonPredicate(key: "name", .equalTo, "Bob")).first)
        rex.setValue(bob, forKey: "owner")
        #expect(members(bob, "pets") == [rex])

        // Loading Ada's pets now must not bring Rex back.
        let oldOwner = try #require(try stack.fetch("Person", NSComparisonPredicate(key: "name", .equalTo, "Ada")).first)
        #expect(strings(members(oldOwner, "pets")) == ["Fido"])
        try stack.context.save()

        try stack.reopen()
        let people = try stack.fetch("Person", sortedBy: "name")
        #expect(people.map { strings(members($0, "pets")) } == [["Fido"], ["Rex"]])
    }

    @Test(arguments: StoreKind.allCases)
    func reassigningAPetWhenTheOldOwnerIsRegisteredButItsSetIsAFault(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        _ = stack.insert("Person", ["name": "Bob"])
        _ = stack.insert("Pet", ["name": "Rex", "owner": ada])
        try stack.context.save()
        try stack.reopen()

        let people = try stack.fetch("Person", sortedBy: "name")
        let (oldOwner, bob) = (people[0], people[1])
        #expect(oldOwner.hasFault(forRelationshipNamed: "pets"))
        let rex = try #require(try stack.fetch("Pet").first)
        rex.setValue(bob, forKey: "owner")
        #expect(members(oldOwner, "pets").isEmpty)
        #expect(members(bob, "pets") == [rex])
        try stack.context.save()

        try stack.reopen()
        #expect(try stack.fetch("Person", sortedBy: "name").map { strings(members($0, "pets")) } == [[], ["Rex"]])
    }

    @Test(arguments: StoreKind.allCases)
    func settingAToOneToNilRemovesTheObjectFromTheInverse(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        _ = stack.insert("Pet", ["name": "Rex", "owner": ada])
        try stack.context.save()
        try stack.reopen()

        let rex = try #require(try stack.fetch("Pet").first)
        let owner = try #require(rex.value(forKey: "owner") as? NSManagedObject)
        #expect(owner.value(forKey: "name") as? String == "Ada")
        rex.setValue(nil, forKey: "owner")
        #expect(rex.value(forKey: "owner") == nil)
        #expect(members(owner, "pets").isEmpty)
        #expect(rex.isUpdated)
        try stack.context.save()

        try stack.reopen()
        let pet = try #require(try stack.fetch("Pet").first)
        #expect(pet.value(forKey: "owner") == nil)
        let person = try #require(try stack.fetch("Person").first)
        #expect(members(person, "pets").isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func aRelationshipChangeDirtiesBothSidesAndShowsInChangedValues(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        _ = stack.insert("Person", ["name": "Bob"])
        _ = stack.insert("Pet", ["name": "Rex", "owner": ada])
        try stack.context.save()
        try stack.reopen()

        let people = try stack.fetch("Person", sortedBy: "name")
        let (oldOwner, bob) = (people[0], people[1])
        let rex = try #require(try stack.fetch("Pet").first)
        #expect(!stack.context.hasChanges)
        rex.setValue(bob, forKey: "owner")
        // §3.2: the relationship change dirties the pet and both owners.
        #expect(rex.isUpdated && bob.isUpdated && oldOwner.isUpdated)
        #expect(stack.context.updatedObjects == [rex, bob, oldOwner])
        // §1.14 / §1.16: new value in changedValues, old one in committedValues.
        #expect(rex.changedValues()["owner"] as? NSManagedObject === bob)
        #expect(rex.committedValues(forKeys: ["owner"])["owner"] as? NSManagedObject === oldOwner)
        try stack.context.save()
        #expect(rex.changedValues().isEmpty)
        #expect(rex.committedValues(forKeys: ["owner"])["owner"] as? NSManagedObject === bob)
    }

    @Test(arguments: StoreKind.allCases)
    func rollbackRestoresRelationships(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        let rex = stack.insert("Pet", ["name": "Rex", "owner": ada])
        try stack.context.save()

        rex.setValue(bob, forKey: "owner")
        let stray = stack.insert("Pet", ["name": "Stray", "owner": bob])
        #expect(members(bob, "pets") == [rex, stray])
        // §9.5: back to the last saved state, on both sides.
        stack.context.rollback()
        #expect(rex.value(forKey: "owner") as? NSManagedObject === ada)
        #expect(members(ada, "pets") == [rex])
        #expect(members(bob, "pets").isEmpty)
        #expect(stray.managedObjectContext == nil)
        #expect(!stack.context.hasChanges)
    }

    // MARK: Ordered relationships

    @Test(arguments: StoreKind.allCases)
    func orderedRelationshipKeepsItsOrderAcrossReopen(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let list = stack.insert("Playlist", ["title": "Mix"])
        let a = stack.insert("Song", ["title": "a"])
        let b = stack.insert("Song", ["title": "b"])
        let c = stack.insert("Song", ["title": "c"])
        let songs = list.mutableOrderedSetValue(forKey: "songs")
        songs.add(a)
        songs.add(b)
        songs.insert(c, at: 0)
        // §3.2/§3.3: the inverse is set and the order is the one asked for.
        #expect(c.value(forKey: "playlist") as? NSManagedObject === list)
        #expect(orderedMembers(list, "songs").map { $0.value(forKey: "title") as? String } == ["c", "a", "b"])
        try stack.context.save()

        try stack.reopen()
        let playlist = try #require(try stack.fetch("Playlist").first)
        #expect(orderedMembers(playlist, "songs").map { $0.value(forKey: "title") as? String } == ["c", "a", "b"])

        // Change the order of stored members in a fresh context: new song at 0, remove "a".
        let d = stack.insert("Song", ["title": "d"])
        playlist.mutableOrderedSetValue(forKey: "songs").insert(d, at: 0)
        let stored = orderedMembers(playlist, "songs")
        playlist.mutableOrderedSetValue(forKey: "songs").remove(stored[2])
        #expect(orderedMembers(playlist, "songs").map { $0.value(forKey: "title") as? String } == ["d", "c", "b"])
        try stack.context.save()

        try stack.reopen()
        let reread = try #require(try stack.fetch("Playlist").first)
        #expect(orderedMembers(reread, "songs").map { $0.value(forKey: "title") as? String } == ["d", "c", "b"])
        let orphan = try #require(try stack.fetch("Song", NSComparisonPredicate(key: "title", .equalTo, "a")).first)
        #expect(orphan.value(forKey: "playlist") == nil)
    }

    /// The `NSMutableOrderedSet` operations of the ordered view: exchange, move, replace and
    /// remove at indexes, each keeping the inverse in step, and the order surviving a reopen.
    @Test(arguments: StoreKind.allCases)
    func orderedViewOperationsPersist(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let list = stack.insert("Playlist", ["title": "Mix"])
        let songs = list.mutableOrderedSetValue(forKey: "songs")
        songs.addObjects(from: ["a", "b", "c", "d"].map { stack.insert("Song", ["title": $0]) })
        try stack.context.save()
        try stack.reopen()

        let playlist = try #require(try stack.fetch("Playlist").first)
        let view = playlist.mutableOrderedSetValue(forKey: "songs")
        func titles() -> [String?] { view.map { $0.value(forKey: "title") as? String } }
        view.exchangeObject(at: 0, withObjectAt: 3)
        #expect(titles() == ["d", "b", "c", "a"])
        view.moveObjects(at: IndexSet([0, 1]), to: 2)
        #expect(titles() == ["c", "a", "d", "b"])
        let replaced = view[1]
        let e = stack.insert("Song", ["title": "e"])
        view.replaceObject(at: 1, with: e)
        #expect(titles() == ["c", "e", "d", "b"])
        #expect(replaced.value(forKey: "playlist") == nil)
        #expect(e.value(forKey: "playlist") as? NSManagedObject === playlist)
        view.replaceObject(at: 0, with: view[3])  // a member moves into the replaced place
        #expect(titles() == ["b", "e", "d"])
        view.insert([replaced], at: IndexSet([1]))
        #expect(titles() == ["b", "a", "e", "d"])
        view.removeObjects(at: IndexSet([0, 3]))
        #expect(titles() == ["a", "e"])
        let outsider = stack.insert("Song", ["title": "x"])
        #expect(view.contains(e) && !view.contains(outsider))
        try stack.context.save()

        try stack.reopen()
        let reread = try #require(try stack.fetch("Playlist").first)
        #expect(orderedMembers(reread, "songs").map { $0.value(forKey: "title") as? String } == ["a", "e"])
        let loose = try stack.fetch("Song", NSPredicate(format: "playlist == nil"), sortedBy: "title")
        #expect(loose.map { $0.value(forKey: "title") as? String } == ["b", "c", "d", "x"])
    }

    @Test(arguments: StoreKind.allCases)
    func movingAnOrderedMemberToTheFrontPersists(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let list = stack.insert("Playlist", ["title": "Mix"])
        for title in ["a", "b", "c"] {
            list.mutableOrderedSetValue(forKey: "songs").add(stack.insert("Song", ["title": title]))
        }
        try stack.context.save()
        try stack.reopen()

        let playlist = try #require(try stack.fetch("Playlist").first)
        let last = try #require(orderedMembers(playlist, "songs").last)
        // Inserting a member that is already there changes nothing, as with NSMutableOrderedSet;
        // moving it does.
        playlist.mutableOrderedSetValue(forKey: "songs").insert(last, at: 0)
        #expect(orderedMembers(playlist, "songs").map { $0.value(forKey: "title") as? String } == ["a", "b", "c"])
        #expect(!stack.context.hasChanges)
        playlist.mutableOrderedSetValue(forKey: "songs").moveObjects(at: IndexSet([2]), to: 0)
        #expect(orderedMembers(playlist, "songs").map { $0.value(forKey: "title") as? String } == ["c", "a", "b"])
        try stack.context.save()

        try stack.reopen()
        let reread = try #require(try stack.fetch("Playlist").first)
        #expect(orderedMembers(reread, "songs").map { $0.value(forKey: "title") as? String } == ["c", "a", "b"])
    }

    @Test(arguments: StoreKind.allCases)
    func movingASongToAnotherPlaylistAppendsItThere(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let first = stack.insert("Playlist", ["title": "First"])
        let second = stack.insert("Playlist", ["title": "Second"])
        for title in ["a", "b", "c"] { first.mutableOrderedSetValue(forKey: "songs").add(stack.insert("Song", ["title": title])) }
        for title in ["x", "y"] { second.mutableOrderedSetValue(forKey: "songs").add(stack.insert("Song", ["title": title])) }
        try stack.context.save()
        try stack.reopen()

        // A fresh context: neither playlist's songs are loaded when the song moves.
        let b = try #require(try stack.fetch("Song", NSComparisonPredicate(key: "title", .equalTo, "b")).first)
        let lists = try stack.fetch("Playlist", sortedBy: "title")
        b.setValue(lists[1], forKey: "playlist")
        func titles(_ list: NSManagedObject) -> [String?] { orderedMembers(list, "songs").map { $0.value(forKey: "title") as? String } }
        #expect(titles(lists[0]) == ["a", "c"])
        #expect(titles(lists[1]) == ["x", "y", "b"])
        try stack.context.save()

        try stack.reopen()
        let reread = try stack.fetch("Playlist", sortedBy: "title")
        #expect(titles(reread[0]) == ["a", "c"])
        #expect(titles(reread[1]) == ["x", "y", "b"])
    }

    // MARK: Many-to-many

    @Test(arguments: StoreKind.allCases)
    func manyToManyRoundTripsFromBothSides(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        let cy = stack.insert("Person", ["name": "Cy"])
        let chess = stack.insert("Club", ["name": "Chess"])
        let go = stack.insert("Club", ["name": "Go"])
        // From the club side…
        chess.mutableSetValue(forKey: "members").add(ada)
        chess.mutableSetValue(forKey: "members").add(bob)
        // …and from the person side.
        cy.mutableSetValue(forKey: "clubs").add(chess)
        ada.mutableSetValue(forKey: "clubs").add(go)
        #expect(members(chess, "members") == [ada, bob, cy])
        #expect(members(go, "members") == [ada])
        #expect(members(ada, "clubs") == [chess, go])
        #expect(members(bob, "clubs") == [chess])
        #expect(members(cy, "clubs") == [chess])
        try stack.context.save()

        try stack.reopen()
        let clubs = try stack.fetch("Club", sortedBy: "name")
        #expect(clubs.map { strings(members($0, "members")) } == [["Ada", "Bob", "Cy"], ["Ada"]])
        // A fresh context, read from the person side first.
        try stack.reopen()
        let people = try stack.fetch("Person", sortedBy: "name")
        #expect(people.map { strings(members($0, "clubs")) } == [["Chess", "Go"], ["Chess"], ["Chess"]])
    }

    @Test(arguments: StoreKind.allCases)
    func manyToManyRemovalFromEitherSidePersists(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        let chess = stack.insert("Club", ["name": "Chess"])
        let go = stack.insert("Club", ["name": "Go"])
        chess.setValue(Set([ada, bob]), forKey: "members")
        go.setValue(Set([ada, bob]), forKey: "members")
        try stack.context.save()
        try stack.reopen()

        let people = try stack.fetch("Person", sortedBy: "name")
        let clubs = try stack.fetch("Club", sortedBy: "name")
        // Ada leaves Chess (person side); Go drops Bob (club side).
        people[0].mutableSetValue(forKey: "clubs").remove(clubs[0])
        clubs[1].mutableSetValue(forKey: "members").remove(people[1])
        #expect(strings(members(clubs[0], "members")) == ["Bob"])
        #expect(strings(members(people[1], "clubs")) == ["Chess"])
        try stack.context.save()

        try stack.reopen()
        #expect(try stack.fetch("Club", sortedBy: "name").map { strings(members($0, "members")) } == [["Bob"], ["Ada"]])
        try stack.reopen()
        #expect(try stack.fetch("Person", sortedBy: "name").map { strings(members($0, "clubs")) } == [["Go"], ["Chess"]])
    }

    @Test(arguments: StoreKind.allCases)
    func deletingAManyToManyMemberRemovesItFromTheOtherSide(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let bob = stack.insert("Person", ["name": "Bob"])
        let chess = stack.insert("Club", ["name": "Chess"])
        chess.setValue(Set([ada, bob]), forKey: "members")
        try stack.context.save()
        try stack.reopen()

        let bobAgain = try #require(try stack.fetch("Person", NSComparisonPredicate(key: "name", .equalTo, "Bob")).first)
        stack.context.delete(bobAgain)
        try stack.context.save()

        try stack.reopen()
        let club = try #require(try stack.fetch("Club").first)
        #expect(strings(members(club, "members")) == ["Ada"])
    }

    // MARK: Relationship faults and IDs

    @Test(arguments: StoreKind.allCases)
    func objectIDsAndHasFaultForRelationships(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada"])
        let rex = stack.insert("Pet", ["name": "Rex", "owner": ada])
        let fido = stack.insert("Pet", ["name": "Fido", "owner": ada])
        // A new object's to-many is not a fault.
        #expect(!ada.hasFault(forRelationshipNamed: "pets"))
        try stack.context.save()
        // IDs are compared by URI: after a reopen they belong to a new store instance.
        let petURIs = Set([rex.objectID, fido.objectID].map { $0.uriRepresentation() })
        let adaURI = ada.objectID.uriRepresentation()
        try stack.reopen()

        let person = try #require(try stack.fetch("Person").first)
        // §2.3: after a fetch the to-many is a relationship fault.
        #expect(person.hasFault(forRelationshipNamed: "pets"))
        #expect(Set(person.objectIDs(forRelationshipNamed: "pets").map { $0.uriRepresentation() }) == petURIs)
        _ = members(person, "pets").count
        #expect(!person.hasFault(forRelationshipNamed: "pets"))

        let pets = try stack.fetch("Pet")
        for pet in pets { #expect(pet.objectIDs(forRelationshipNamed: "owner").map { $0.uriRepresentation() } == [adaURI]) }
        let stray = stack.insert("Pet", ["name": "Stray"])
        #expect(stray.objectIDs(forRelationshipNamed: "owner").isEmpty)
    }
}

@Suite struct RelationshipLoadFailureTests {
    /// A to-many that cannot be read from the store is not taken as empty: the object then fails
    /// validation (1550, naming the relationship), so no save writes a membership never read.
    @Test func aToManyThatCannotBeLoadedBlocksTheSave() throws {
        let stack = try TestStack(.sqlite)
        let club = stack.insert("Club", ["name": "Chess"])
        club.mutableSetValue(forKey: "members").add(stack.insert("Person", ["name": "Ada"]))
        try stack.context.save()
        try stack.reopen()
        let fetched = try #require(try stack.fetch("Club").first)
        // The store goes away before the relationship is read.
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        _ = fetched.value(forKey: "members")
        let error = #expect(throws: CocoaError.self) { try fetched.validateForUpdate() }
        #expect(error?.code == 1550)
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "members")
    }
}

/// `relationshipKeyPathsForPrefetching`: related objects come with the fetch, a query per
/// relationship (per level of a key path) rather than one per object.
@Suite struct PrefetchingTests {
    /// Thirty people with 0–3 pets each, saved and read back from the store.
    static func kennel(_ kind: StoreKind) throws -> TestStack {
        let stack = try TestStack(kind)
        for person in 0..<30 {
            let owner = stack.insert("Person", ["name": String(format: "p%02d", person)])
            for pet in 0..<(person % 4) { _ = stack.insert("Pet", ["name": "pet \(person).\(pet)", "owner": owner]) }
        }
        try stack.context.save()
        try stack.reopen()
        return stack
    }

    static func expectedPets(of name: String) -> [String] {
        let person = Int(name.dropFirst())!
        return (0..<(person % 4)).map { "pet \(person).\($0)" }
    }

    @Test(arguments: StoreKind.allCases)
    func prefetchingAToManyLoadsEveryMemberWithTheFetch(kind: StoreKind) throws {
        let stack = try Self.kennel(kind)
        let log = stack.recordSQL()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.relationshipKeyPathsForPrefetching = ["pets"]
        let people = try stack.context.fetch(request)
        let fetchStatements = log?.all.count ?? 0
        #expect(people.count == 30)
        for person in people {
            let name = try #require(person.value(forKey: "name") as? String)
            #expect(strings(members(person, "pets")) == Self.expectedPets(of: name))
            for pet in members(person, "pets") { #expect(pet.value(forKey: "owner") as? NSManagedObject === person) }
        }
        if let log {
            // The people and their pets: two statements, and none once the objects are read.
            #expect(fetchStatements == 2)
            #expect(log.all.count == fetchStatements)
        }
    }

    /// A key path through a to-one and back through a to-many (`owner.pets` from pets): owners
    /// shared by several pets are loaded once, and each owner gets all its pets.
    @Test(arguments: StoreKind.allCases)
    func prefetchingThroughAToOneAndBack(kind: StoreKind) throws {
        let stack = try Self.kennel(kind)
        let log = stack.recordSQL()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Pet")
        request.relationshipKeyPathsForPrefetching = ["owner.pets"]
        let pets = try stack.context.fetch(request)
        let fetchStatements = log?.all.count ?? 0
        #expect(pets.count == (0..<30).reduce(0) { $0 + $1 % 4 })
        for pet in pets {
            let owner = try #require(pet.value(forKey: "owner") as? NSManagedObject)
            let name = try #require(owner.value(forKey: "name") as? String)
            #expect(strings(members(owner, "pets")) == Self.expectedPets(of: name))
            #expect(members(owner, "pets").contains(pet))
        }
        if let log { #expect(log.all.count == fetchStatements) }
    }
}
