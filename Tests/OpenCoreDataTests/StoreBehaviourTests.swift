import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// What every store does the same through contexts: the SQLite store, the in-memory store, and a
/// store of one's own (`JSONFileStore`, an `NSIncrementalStore` over a JSON file). A store type
/// added to `StoreKind.everyStore` joins this suite. Stores that keep their objects are closed
/// and opened again between writing and reading, so that what is checked is what was stored.
@Suite struct StoreBehaviourTests {
    private func names(_ objects: [NSManagedObject], _ key: String = "name") -> [String] {
        objects.map { $0.value(forKey: key) as? String ?? "?" }
    }

    private func request(_ entity: String, _ format: String? = nil, _ arguments: Any..., sortedBy keys: [String] = [],
                         ascending: Bool = true) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        if let format { request.predicate = NSPredicate(format: format, argumentArray: arguments) }
        request.sortDescriptors = keys.isEmpty ? nil : keys.map { NSSortDescriptor(key: $0, ascending: ascending) }
        return request
    }

    /// Ada (40), Bo (30), Cy (20), Dee (50), with pets for Ada and Bo.
    private func people(in stack: TestStack) throws {
        for (name, age, pets) in [("Ada", 40, ["Rex", "Ace"]), ("Bo", 30, ["Max"]), ("Cy", 20, []), ("Dee", 50, [])] {
            let person = stack.insert("Person", ["name": name, "age": age, "email": "\(name.lowercased())@example.com"])
            for pet in pets { stack.insert("Pet", ["name": pet, "owner": person, "weight": Double(pet.count)]) }
        }
        try stack.context.save()
        try stack.reopen()
    }

    @Test(arguments: StoreKind.everyStore)
    func insertedChangedAndDeletedObjectsAreWhatTheStoreKeeps(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try people(in: stack)
        #expect(names(try stack.context.fetch(request("Person", sortedBy: ["name"]))) == ["Ada", "Bo", "Cy", "Dee"])

        let bo = try #require(try stack.context.fetch(request("Person", "name == %@", "Bo")).first)
        bo.setValue(31, forKey: "age")
        try stack.context.save()
        try stack.reopen()
        let reread = try #require(try stack.context.fetch(request("Person", "name == %@", "Bo")).first)
        #expect(reread.value(forKey: "age") as? Int == 31)
        #expect(reread.hasChanges == false)

        stack.context.delete(reread)
        try stack.context.save()
        try stack.reopen()
        #expect(names(try stack.context.fetch(request("Person", sortedBy: ["name"]))) == ["Ada", "Cy", "Dee"])
        // Bo's pet went with him (cascade).
        #expect(names(try stack.context.fetch(request("Pet", sortedBy: ["name"]))) == ["Ace", "Rex"])
    }

    @Test(arguments: StoreKind.everyStore)
    func everyAttributeTypeComesBackAsItWasSaved(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let born = Date(timeIntervalSinceReferenceDate: 123_456.789)
        let id = UUID()
        let values: [String: Any] = [
            "name": "Ada", "age": Int64(40), "email": "ada@example.com", "born": born, "height": 1.68, "active": false,
            "id": id, "website": URL(string: "https://example.com/ada?x=1")!, "photo": Data([0, 1, 2, 255]),
            "balance": Decimal(string: "1234.5")!, "small": Int16(-7), "tags": ["a", "b"],
        ]
        stack.insert("Person", values)
        stack.insert("Person", ["name": "Nobody"])
        try stack.context.save()
        try stack.reopen()
        let ada = try #require(try stack.context.fetch(request("Person", "name == %@", "Ada")).first)
        #expect(ada.value(forKey: "age") as? Int64 == 40)
        #expect(ada.value(forKey: "email") as? String == "ada@example.com")
        #expect(ada.value(forKey: "born") as? Date == born)
        #expect(ada.value(forKey: "height") as? Double == 1.68)
        #expect(ada.value(forKey: "active") as? Bool == false)
        #expect(ada.value(forKey: "id") as? UUID == id)
        #expect(ada.value(forKey: "website") as? URL == URL(string: "https://example.com/ada?x=1"))
        #expect(ada.value(forKey: "photo") as? Data == Data([0, 1, 2, 255]))
        #expect((ada.value(forKey: "balance") as? Decimal) == Decimal(string: "1234.5"))
        #expect(ada.value(forKey: "small") as? Int16 == -7)
        #expect(ada.value(forKey: "tags") as? [String] == ["a", "b"])
        // Values never set come back as nil, and defaults as their defaults.
        let nobody = try #require(try stack.context.fetch(request("Person", "name == %@", "Nobody")).first)
        for key in ["email", "born", "height", "id", "website", "photo", "balance", "tags"] {
            #expect(nobody.value(forKey: key) == nil, "\(key)")
        }
        #expect(nobody.value(forKey: "active") as? Bool == true)
        #expect(nobody.value(forKey: "age") as? Int64 == 0)
    }

    @Test(arguments: StoreKind.everyStore)
    func relationshipsComeBackWithTheirInverses(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try people(in: stack)
        let ada = try #require(try stack.context.fetch(request("Person", "name == %@", "Ada")).first)
        #expect(Set(names(Array(members(ada, "pets")))) == ["Ace", "Rex"])
        let rex = try #require(members(ada, "pets").first { $0.value(forKey: "name") as? String == "Rex" })
        #expect(rex.value(forKey: "owner") as? NSManagedObject === ada)

        // Moving a pet changes both sides, and the store keeps the move.
        let cy = try #require(try stack.context.fetch(request("Person", "name == %@", "Cy")).first)
        rex.setValue(cy, forKey: "owner")
        #expect(members(cy, "pets").contains(rex))
        #expect(!members(ada, "pets").contains(rex))
        try stack.context.save()
        try stack.reopen()
        let movedRex = try #require(try stack.context.fetch(request("Pet", "name == %@", "Rex")).first)
        #expect((movedRex.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String == "Cy")
        let newAda = try #require(try stack.context.fetch(request("Person", "name == %@", "Ada")).first)
        #expect(names(Array(members(newAda, "pets"))) == ["Ace"])
    }

    @Test(arguments: StoreKind.everyStore)
    func deleteRulesCascadeNullifyAndDeny(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try people(in: stack)
        // Nullify: a deleted pet leaves its owner's pets.
        let ace = try #require(try stack.context.fetch(request("Pet", "name == %@", "Ace")).first)
        stack.context.delete(ace)
        try stack.context.save()
        try stack.reopen()
        let ada = try #require(try stack.context.fetch(request("Person", "name == %@", "Ada")).first)
        #expect(names(Array(members(ada, "pets"))) == ["Rex"])

        // Deny: a playlist with songs cannot be deleted.
        let playlist = stack.insert("Playlist", ["title": "Mix"])
        stack.insert("Song", ["title": "One", "playlist": playlist])
        try stack.context.save()
        stack.context.delete(playlist)
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code == .validationRelationshipDeniedDelete)
        stack.context.rollback()
        try stack.reopen()
        #expect(try stack.context.count(for: request("Playlist")) == 1)

        // Cascade: a deleted person takes the pets along.
        let newAda = try #require(try stack.context.fetch(request("Person", "name == %@", "Ada")).first)
        stack.context.delete(newAda)
        try stack.context.save()
        try stack.reopen()
        #expect(names(try stack.context.fetch(request("Pet", sortedBy: ["name"]))) == ["Max"])
    }

    @Test(arguments: StoreKind.everyStore)
    func anOrderedToManyKeepsItsOrder(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let playlist = stack.insert("Playlist", ["title": "Mix"])
        let songs = playlist.mutableOrderedSetValue(forKey: "songs")
        for title in ["C", "A", "B"] { songs.add(stack.insert("Song", ["title": title])) }
        try stack.context.save()
        try stack.reopen()
        let reread = try #require(try stack.context.fetch(request("Playlist")).first)
        let order = { (reread.value(forKey: "songs") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String } }
        #expect(order() == ["C", "A", "B"])
        let stored = reread.mutableOrderedSetValue(forKey: "songs")
        let last = try #require(stored.object(at: 2) as NSManagedObject?)
        stored.remove(last)
        stored.insert(last, at: 0)
        try stack.context.save()
        try stack.reopen()
        let again = try #require(try stack.context.fetch(request("Playlist")).first)
        #expect((again.value(forKey: "songs") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String }
                == ["B", "C", "A"])
    }

    @Test(arguments: StoreKind.everyStore)
    func aManyToManyIsKeptFromBothSides(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try people(in: stack)
        let everyone = try stack.context.fetch(request("Person", sortedBy: ["name"]))
        let chess = stack.insert("Club", ["name": "Chess"])
        let go = stack.insert("Club", ["name": "Go"])
        chess.mutableSetValue(forKey: "members").addObjects(from: Array(everyone[0...1]))
        everyone[1].mutableSetValue(forKey: "clubs").add(go)
        try stack.context.save()
        try stack.reopen()
        let bo = try #require(try stack.context.fetch(request("Person", "name == %@", "Bo")).first)
        #expect(Set(names(Array(members(bo, "clubs")))) == ["Chess", "Go"])
        let rereadChess = try #require(try stack.context.fetch(request("Club", "name == %@", "Chess")).first)
        #expect(Set(names(Array(members(rereadChess, "members")))) == ["Ada", "Bo"])
        rereadChess.mutableSetValue(forKey: "members").remove(bo)
        try stack.context.save()
        try stack.reopen()
        let boAgain = try #require(try stack.context.fetch(request("Person", "name == %@", "Bo")).first)
        #expect(names(Array(members(boAgain, "clubs"))) == ["Go"])
    }

    @Test(arguments: StoreKind.everyStore)
    func aUniquenessConflictFailsTheSaveAndWritesNothing(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try people(in: stack)
        let copy = stack.insert("Person", ["name": "Ada Again", "email": "ada@example.com"])
        stack.insert("Person", ["name": "Eve", "email": "eve@example.com"])
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code == .managedObjectConstraintMerge)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.constraint == ["email"])
        #expect(conflicts.first?.conflictingObjects.contains { $0 === copy } == true)
        #expect((conflicts.first?.databaseObject?.value(forKey: "name") as? String) == "Ada")
        #expect(stack.context.hasChanges)
        try stack.reopen()
        #expect(try stack.context.count(for: request("Person")) == 4)
    }

    @Test(arguments: StoreKind.everyStore)
    func predicatesAndSortsSelectAndOrderTheSameObjects(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try people(in: stack)
        let context = stack.context
        #expect(names(try context.fetch(request("Person", "age >= %d AND name BEGINSWITH[c] %@", 30, "a", sortedBy: ["name"]))) == ["Ada"])
        #expect(names(try context.fetch(request("Person", "name IN %@", ["Cy", "Bo", "Zed"], sortedBy: ["name"]))) == ["Bo", "Cy"])
        #expect(names(try context.fetch(request("Person", "ANY pets.name == %@", "Max"))) == ["Bo"])
        #expect(names(try context.fetch(request("Person", "pets.@count == 0", sortedBy: ["name"]))) == ["Cy", "Dee"])
        #expect(names(try context.fetch(request("Pet", "owner.age > %d", 35, sortedBy: ["name"]))) == ["Ace", "Rex"])
        #expect(names(try context.fetch(request("Person", "NOT (age < %d) OR email ENDSWITH %@", 35, "cy@example.com", sortedBy: ["age"])))
                == ["Cy", "Ada", "Dee"])
        #expect(names(try context.fetch(request("Person", sortedBy: ["age"], ascending: false))) == ["Dee", "Ada", "Bo", "Cy"])
        let byOwner = request("Pet")
        byOwner.sortDescriptors = [NSSortDescriptor(key: "owner.name", ascending: false), NSSortDescriptor(key: "name", ascending: true)]
        #expect(names(try context.fetch(byOwner)) == ["Max", "Ace", "Rex"])
    }

    @Test(arguments: StoreKind.everyStore)
    func limitsOffsetsAndCounts(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try people(in: stack)
        let page = request("Person", sortedBy: ["age"])
        page.fetchOffset = 1
        page.fetchLimit = 2
        #expect(names(try stack.context.fetch(page)) == ["Bo", "Ada"])
        #expect(try stack.context.count(for: page) == 2)
        page.fetchOffset = 3
        #expect(names(try stack.context.fetch(page)) == ["Dee"])
        #expect(try stack.context.count(for: request("Person", "age > %d", 25)) == 3)
        // Unsaved changes count, as they are fetched.
        stack.insert("Person", ["name": "Eve", "age": 60, "email": "eve@example.com"])
        #expect(try stack.context.count(for: request("Person", "age > %d", 25)) == 4)
        #expect(names(try stack.context.fetch(request("Person", "age > %d", 45, sortedBy: ["age"]))) == ["Dee", "Eve"])
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Person")
        ids.resultType = .managedObjectIDResultType
        ids.predicate = NSPredicate(format: "age < %d", 35)
        #expect(try stack.context.fetch(ids).count == 2)
    }

    @Test(arguments: StoreKind.everyStore)
    func dictionaryResultsHoldTheFetchedProperties(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try people(in: stack)
        let pets = NSFetchRequest<NSDictionary>(entityName: "Pet")
        pets.resultType = .dictionaryResultType
        pets.propertiesToFetch = ["name", "owner"]
        pets.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        pets.fetchLimit = 2
        let rows = try stack.context.fetch(pets)
        #expect(rows.map { $0["name"] as? String } == ["Ace", "Max"])
        let ada = try #require(try stack.context.fetch(request("Person", "name == %@", "Ada")).first)
        #expect(rows.first?["owner"] as? NSManagedObjectID == ada.objectID)

        let ages = NSFetchRequest<NSDictionary>(entityName: "Person")
        ages.resultType = .dictionaryResultType
        ages.propertiesToFetch = ["active"]
        ages.returnsDistinctResults = true
        #expect(try stack.context.fetch(ages).count == 1)
    }

    @Test(arguments: StoreKind.everyStore)
    func subentitiesAreFetchedWithTheirParentEntity(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        stack.insert("Dog", ["breed": "Collie"])
        stack.insert("Bird", ["legs": Int16(2)])
        try stack.context.save()
        try stack.reopen()
        let animals = try stack.context.fetch(request("Animal"))
        #expect(Set(animals.map { $0.entity.name ?? "?" }) == ["Dog", "Bird"])
        let onlyDogs = request("Dog")
        onlyDogs.includesSubentities = false
        #expect(try stack.context.fetch(onlyDogs).map { $0.value(forKey: "breed") as? String } == ["Collie"])
        #expect(try stack.context.count(for: request("Animal", "legs == %d", 2)) == 1)
    }

    @Test(arguments: StoreKind.everyStore)
    func anotherContextSeesWhatWasSaved(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let other = stack.newContext()
        #expect(try other.count(for: request("Person")) == 0)
        let ada = stack.insert("Person", ["name": "Ada", "age": 40])
        try stack.context.save()
        let seen = try #require(try other.fetch(request("Person")).first)
        #expect(seen.objectID == ada.objectID)
        #expect(seen.value(forKey: "age") as? Int == 40)
        // The saved object's ID names it across contexts and reopening.
        let uri = ada.objectID.uriRepresentation()
        try stack.reopen()
        let id = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri))
        #expect(try stack.context.existingObject(with: id).value(forKey: "name") as? String == "Ada")
    }

    /// A to-one left empty, and one without inverse whose destination is deleted: both read as
    /// no object after reopening (the store's file never names an object it does not hold).
    @Test(arguments: StoreKind.everyStore)
    func anEmptyToOneAndADeletedDestinationWithoutInverseReadAsNoObject(kind: StoreKind) throws {
        let note = NSEntityDescription(name: "Note")
        let tag = NSEntityDescription(name: "Tag")
        let pinned = NSRelationshipDescription(name: "pinned", destination: tag)
        let folder = NSRelationshipDescription(name: "folder", destination: tag)
        note.properties = [NSAttributeDescription(name: "title", type: .stringAttributeType), pinned, folder]
        tag.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [note, tag]
        let stack = try TestStack(kind, model: model)
        let red = stack.insert("Tag", ["name": "red"])
        stack.insert("Note", ["title": "a", "pinned": red])
        stack.insert("Note", ["title": "b"])
        try stack.context.save()
        stack.context.delete(red)
        try stack.context.save()
        try stack.reopen()
        let notes = try stack.context.fetch(request("Note", sortedBy: ["title"]))
        #expect(names(notes, "title") == ["a", "b"])
        #expect(notes.allSatisfy { $0.value(forKey: "folder") == nil })
        #expect(try stack.context.count(for: request("Tag")) == 0)
        #expect((notes[0].value(forKey: "pinned") as? NSManagedObject).map { $0.isFault || $0.isDeleted } ?? true)
    }
}
