import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// Moving a store to another file and type (`migratePersistentStore(_:to:options:withType:)`),
/// and the `type:` spellings of the coordinator's file operations: every object, value and
/// relationship arrives; the new store takes the old one's place; a move that cannot be made
/// leaves the old store in place and nothing at the destination.
@Suite struct StoreMovingTests {
    /// Every object of the test model as text — its entity, its attribute values, and its
    /// relationships by the names of their destinations (to-manys in order when ordered) — so
    /// that two stores can be compared whatever their object IDs.
    private func fingerprint(of context: NSManagedObjectContext) throws -> [String] {
        func label(_ object: NSManagedObject) -> String {
            "\(object.entity.name!):\(object.value(forKey: object.entity.attributesByName["name"] != nil ? "name" : object.entity.attributesByName["title"] != nil ? "title" : "legs") ?? "-")"
        }
        var lines: [String] = []
        for entity in context.persistentStoreCoordinator!.managedObjectModel.entities where !entity.isAbstract {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity.name!)
            request.includesSubentities = false
            for object in try context.fetch(request) {
                var parts = [label(object)]
                for attribute in entity.layout.attributes where !attribute.isTransient {
                    // A transformable array may come back as an NSArray: compared by its elements.
                    let value = object.value(forKey: attribute.name)
                    parts.append("\(attribute.name)=\((value as? [Any]).map { "\($0.map { "\($0)" })" } ?? value.map { "\($0)" } ?? "nil")")
                }
                for relationship in entity.layout.relationships {
                    switch object.value(forKey: relationship.name) {
                    case let ordered as NSOrderedSet: parts.append("\(relationship.name)=\(ordered.array.map { label($0 as! NSManagedObject) })")
                    case let set as Set<NSManagedObject>: parts.append("\(relationship.name)=\(set.map(label).sorted())")
                    case let single as NSManagedObject: parts.append("\(relationship.name)=\(label(single))")
                    default: parts.append("\(relationship.name)=nil")
                    }
                }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines.sorted()
    }

    /// People with pets and clubs, a playlist in order, animals of two subentities.
    private func fill(_ stack: TestStack) throws {
        let ada = stack.insert("Person", ["name": "Ada", "age": 40, "email": "ada@example.com", "born": Date(timeIntervalSinceReferenceDate: 1.5),
                                          "height": 1.68, "active": false, "id": UUID(), "website": URL(string: "https://example.com")!,
                                          "photo": Data([0, 255]), "balance": Decimal(string: "12.34")!, "small": Int16(-3), "tags": ["a", "b"]])
        let bo = stack.insert("Person", ["name": "Bo", "email": "bo@example.com"])
        for pet in ["Rex", "Ace"] { stack.insert("Pet", ["name": pet, "owner": ada]) }
        let club = stack.insert("Club", ["name": "Chess"])
        club.mutableSetValue(forKey: "members").addObjects(from: [ada, bo])
        let playlist = stack.insert("Playlist", ["title": "Mix"])
        for title in ["C", "A", "B"] { playlist.mutableOrderedSetValue(forKey: "songs").add(stack.insert("Song", ["title": title])) }
        stack.insert("Dog", ["breed": "Collie", "legs": Int16(4)])
        stack.insert("Bird", ["wingspan": 0.5, "legs": Int16(2)])
        stack.coordinator.persistentStores[0].metadata["importedAt"] = "today"
        try stack.context.save()
    }

    @Test func sqliteToXMLToBinaryToSQLiteKeepsEveryObjectValueAndRelationship() throws {
        let stack = try TestStack(.sqlite)
        try fill(stack)
        let original = try fingerprint(of: stack.newContext())
        #expect(original.count == 11)
        var store = stack.coordinator.persistentStores[0]
        let oldURL = try #require(store.url)
        for (type, name) in [(NSXMLStoreType, "Moved.xml"), (NSBinaryStoreType, "Moved.ocdbin"), (NSSQLiteStoreType, "Moved.sqlite")] {
            let url = stack.directory.file(name)
            let moved = try stack.coordinator.migratePersistentStore(store, to: url, withType: type)
            #expect(stack.coordinator.persistentStores.count == 1)
            #expect(stack.coordinator.persistentStores[0] === moved)
            #expect(moved.type == type)
            #expect(moved.url == url)
            #expect(moved.metadata["importedAt"] as? String == "today")
            #expect(try fingerprint(of: stack.newContext()) == original, "after moving to \(type)")
            store = moved
        }
        // The first store is still on disk, as it was.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: oldURL)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(try fingerprint(of: context) == original)
    }

    /// Every store type to every other (and to itself: "Save As"), stores of one's own included.
    @Test(arguments: StoreKind.everyStore, StoreKind.everyStore)
    func aStoreMovesBetweenAnyTwoTypes(from: StoreKind, to: StoreKind) throws {
        let stack = try TestStack(from)
        try fill(stack)
        let original = try fingerprint(of: stack.newContext())
        if to == .json { JSONFileStore.register() }
        if to == .atomic { JSONAtomicStore.register() }
        let destinationSchema = to == .postgres ? try PostgresTestSchema() : nil
        defer { destinationSchema?.drop() }
        let url = destinationSchema.map { URL(string: $0.url)! }
            ?? (to.persists ? stack.directory.file("Moved-\(to)") : URL(fileURLWithPath: "/dev/null"))
        let moved = try stack.coordinator.migratePersistentStore(stack.coordinator.persistentStores[0], to: url, withType: to.type)
        #expect(moved.type == to.type)
        #expect(try fingerprint(of: stack.newContext()) == original)
    }

    @Test func anInMemoryStoreMovesToAFileAndBack() throws {
        let stack = try TestStack(.inMemory)
        try fill(stack)
        let original = try fingerprint(of: stack.newContext())
        let url = stack.directory.file("Saved.ocdbin")
        let saved = try stack.coordinator.migratePersistentStore(stack.coordinator.persistentStores[0], to: url, type: .binary)
        let moved = try fingerprint(of: stack.newContext())
        #expect(moved == original, "\(moved.difference(from: original))")
        let back = try stack.coordinator.migratePersistentStore(saved, to: URL(fileURLWithPath: "/dev/null"), type: .inMemory)
        #expect(back.type == NSInMemoryStoreType)
        #expect(try fingerprint(of: stack.newContext()) == original)
    }

    @Test func aMoveOntoAnExistingFileIsRefusedAndChangesNothing() throws {
        let stack = try TestStack(.sqlite)
        try fill(stack)
        let url = stack.directory.file("Taken.xml")
        try Data("keep me".utf8).write(to: url)
        let store = stack.coordinator.persistentStores[0]
        let error = try #require(throws: CocoaError.self) { try stack.coordinator.migratePersistentStore(store, to: url, withType: NSXMLStoreType) }
        #expect(error.message.contains("a file is already there"))
        #expect(try Data(contentsOf: url) == Data("keep me".utf8))
        #expect(stack.coordinator.persistentStores.first === store)
    }

    @Test func aMoveThatFailsLeavesTheOldStoreInPlaceAndNothingBehind() throws {
        let stack = try TestStack(.sqlite)
        try fill(stack)
        let store = stack.coordinator.persistentStores[0]
        // An XML store cannot hold a model whose properties differ only in case: its save fails.
        let model = TestModel.make()
        let note = NSEntityDescription(name: "Note")
        note.properties = [NSAttributeDescription(name: "text", type: .stringAttributeType), NSAttributeDescription(name: "Text", type: .stringAttributeType)]
        model.entities.append(note)
        let other = try TestStack(.sqlite, model: model)
        other.insert("Note", ["text": "x"])
        try other.context.save()
        let url = other.directory.file("Notes.xml")
        #expect(throws: CocoaError.self) {
            try other.coordinator.migratePersistentStore(other.coordinator.persistentStores[0], to: url, withType: NSXMLStoreType)
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(other.coordinator.persistentStores.count == 1 && other.coordinator.persistentStores[0].type == NSSQLiteStoreType)
        #expect(try other.newContext().count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) == 1)
        #expect(stack.coordinator.persistentStores.first === store)
    }

    @Test func theTypeSpellingsReadWriteReplaceAndDestroyFileStores() throws {
        let stack = try TestStack(.binary)
        try fill(stack)
        let url = stack.storeURL
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(metadata["importedAt"] as? String == "today")
        metadata["importedAt"] = "yesterday"
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        try NSPersistentStoreCoordinator.setMetadata(metadata, type: .binary, at: url)
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)["importedAt"] as? String == "yesterday")

        let copy = stack.directory.file("Copy.ocdbin")
        try Data("old".utf8).write(to: copy)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
        try coordinator.replacePersistentStore(at: copy, withPersistentStoreFrom: url, type: .binary)
        #expect(try Data(contentsOf: copy) == Data(contentsOf: url))
        // A source that is not a binary store is refused, and the destination left as it was.
        let notAStore = stack.directory.file("Not.ocdbin")
        try Data("not a store at all, but long enough".utf8).write(to: notAStore)
        #expect(throws: CocoaError.self) { try coordinator.replacePersistentStore(at: copy, withPersistentStoreFrom: notAStore, type: .binary) }
        #expect(try Data(contentsOf: copy) == Data(contentsOf: url))

        // What a killed save left beside the file goes with it.
        let leftover = stack.directory.file(".Copy.ocdbin.\(UUID().uuidString).tmp")
        try Data("half".utf8).write(to: leftover)
        try coordinator.destroyPersistentStore(at: copy, type: .binary)
        #expect(!FileManager.default.fileExists(atPath: copy.path))
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        try coordinator.destroyPersistentStore(at: copy, type: .binary)  // a missing store is no error
    }
}
