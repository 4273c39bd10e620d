import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// An atomic store of one's own through Core Data's `NSAtomicStore` API (the test's
/// `JSONAtomicStore`, over a JSON file): what the store is asked and when, what a failed
/// `save()` leaves, and what a file that does not hold together is refused with.
@Suite(.serialized) struct AtomicStoreTests {
    final class Stack: @unchecked Sendable {
        let url: URL
        let model = IncrementalStoreTests.model()
        private(set) var coordinator: NSPersistentStoreCoordinator
        private(set) var context: NSManagedObjectContext

        init(at url: URL) throws {
            JSONAtomicStore.register()
            JSONAtomicStore.failure = nil
            JSONAtomicStore.calls = []
            self.url = url
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            try open()
        }

        private func open() throws {
            try coordinator.addPersistentStore(ofType: JSONAtomicStore.instrumentedType, configurationName: nil, at: url)
            context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
        }

        func reopen() throws {
            for store in coordinator.persistentStores { try coordinator.remove(store) }
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try open()
        }

        var store: NSAtomicStore { coordinator.persistentStores[0] as! NSAtomicStore }

        @discardableResult
        func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }

        func fetch(_ entity: String, sortedBy key: String) throws -> [NSManagedObject] {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
            return try context.fetch(request)
        }
    }

    /// Ada with two books, one of them tagged.
    private func library(in stack: Stack) throws {
        let ada = stack.insert("Author", ["name": "Ada"])
        let notes = stack.insert("Book", ["title": "Notes", "pages": 12, "author": ada])
        stack.insert("Book", ["title": "Sketches", "pages": 30, "author": ada])
        let tag = stack.insert("Tag", ["label": "math"])
        notes.mutableSetValue(forKey: "tags").add(tag)
        try stack.context.save()
    }

    @Test func newObjectsGetNodesFilledOnceEveryNewNodeIsRegistered() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(at: directory.file("Library.json"))
        try library(in: stack)
        // A node per new object, each updated after all were registered, then one write.
        #expect(JSONAtomicStore.calls.sorted() == ["save", "update Author", "update Book", "update Book", "update Tag"])
        let nodes = stack.store.cacheNodes()
        #expect(nodes.count == 4)
        let notes = try #require(nodes.first { $0.value(forKey: "title") as? String == "Notes" })
        let author = try #require(notes.value(forKey: "author") as? NSAtomicStoreCacheNode)
        #expect(author.value(forKey: "name") as? String == "Ada")
        #expect((author.value(forKey: "books") as? NSSet)?.count == 2)
        #expect(((notes.value(forKey: "tags") as? NSSet)?.anyObject() as? NSAtomicStoreCacheNode)?.value(forKey: "label") as? String == "math")
        // Object IDs carry the store's reference objects, and come back from their URIs.
        let uri = author.objectID.uriRepresentation()
        #expect(uri.absoluteString == "x-coredata://\(stack.store.identifier)/Author/p\(stack.store.referenceObject(for: author.objectID))")
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: uri) == author.objectID)
    }

    @Test func changesAndDeletionsReachTheNodesAndTheFile() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(at: directory.file("Library.json"))
        try library(in: stack)
        JSONAtomicStore.calls = []
        let books = try stack.fetch("Book", sortedBy: "title")
        books[0].setValue(13, forKey: "pages")
        stack.context.delete(books[1])
        try stack.context.save()
        // The changed book, and Ada, whose books changed; the deleted book's node goes.
        #expect(JSONAtomicStore.calls.sorted() == ["remove 1", "save", "update Author", "update Book"])
        try stack.reopen()
        let reread = try stack.fetch("Book", sortedBy: "title")
        #expect(reread.map { $0.value(forKey: "title") as? String } == ["Notes"])
        #expect(reread[0].value(forKey: "pages") as? Int64 == 13)
        let ada = try #require(reread[0].value(forKey: "author") as? NSManagedObject)
        #expect((ada.value(forKey: "books") as? Set<NSManagedObject>)?.count == 1)
    }

    @Test func aFailedSaveLeavesTheContextTheNodesAndTheFileAsTheyWere() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(at: directory.file("Library.json"))
        try library(in: stack)
        let before = try Data(contentsOf: stack.url)
        let notes = try #require(try stack.fetch("Book", sortedBy: "title").first)
        notes.setValue("Notes, revised", forKey: "title")
        let bo = stack.insert("Author", ["name": "Bo"])
        JSONAtomicStore.failure = .save
        #expect(throws: CocoaError.self) { try stack.context.save() }
        // The new object is still new: its temporary ID back, and found by it.
        #expect(bo.objectID.isTemporaryID)
        #expect(stack.context.registeredObject(for: bo.objectID) === bo)
        #expect(try Data(contentsOf: stack.url) == before)
        // The nodes are as the file has them, and other contexts read the store as it was.
        #expect(stack.store.cacheNodes().contains { $0.value(forKey: "title") as? String == "Notes" })
        #expect(stack.store.cacheNodes().count == 4)
        let other = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        other.persistentStoreCoordinator = stack.coordinator
        #expect(try other.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) == 1)
        // The context still holds its changes, and saves them once the store can write.
        #expect(stack.context.hasChanges)
        JSONAtomicStore.failure = nil
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.fetch("Author", sortedBy: "name").map { $0.value(forKey: "name") as? String } == ["Ada", "Bo"])
        #expect(try stack.fetch("Book", sortedBy: "title").first?.value(forKey: "title") as? String == "Notes, revised")
    }

    @Test func aFileThatRefersToAMissingObjectIsRefusedAndLeftAsItIs() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(at: directory.file("Library.json"))
        JSONAtomicStore.failure = .danglingReference
        try library(in: stack)
        JSONAtomicStore.failure = nil
        let written = try Data(contentsOf: stack.url)
        let error = try #require(throws: CocoaError.self) { try stack.reopen() }
        #expect(error.code == .persistentStoreOpen)
        let message = error.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        #expect(message.contains(stack.url.path))
        #expect(message.contains("/pmissing, which no registered node holds"))
        #expect(try Data(contentsOf: stack.url) == written)
    }

    /// Rewrites the objects of the store's JSON file with `edit` (by object name).
    private func editObjects(of url: URL, _ edit: (inout [String: [String: Any]]) -> Void) throws {
        var file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var objects: [String: [String: Any]] = [:]
        for object in file["objects"] as? [[String: Any]] ?? [] { objects[object["id"] as! String] = object }
        edit(&objects)
        file["objects"] = objects.keys.sorted().map { objects[$0]! }
        try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]).write(to: url)
    }

    /// The name of the object whose `key` is `value` in the file.
    private func named(_ objects: [String: [String: Any]], _ key: String, _ value: String) throws -> String {
        try #require(objects.first { ($0.value["values"] as? [String: Any])?[key] as? String == value }?.key)
    }

    @Test func aRelationshipALoadSetsOnOneSideOnlyIsCompletedOnTheOther() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(at: directory.file("Library.json"))
        try library(in: stack)
        // The books lose their author and the tag its books: only Ada's books and the book's
        // tags say who belongs together.
        try editObjects(of: stack.url) { objects in
            for (name, object) in objects {
                var relationships = object["relationships"] as? [String: Any] ?? [:]
                if name.hasPrefix("Book/") { relationships["author"] = nil }
                if name.hasPrefix("Tag/") { relationships["books"] = nil }
                objects[name]!["relationships"] = relationships
            }
        }
        try stack.reopen()
        let books = try stack.fetch("Book", sortedBy: "title")
        #expect(books.map { ($0.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name") as? String } == ["Ada", "Ada"])
        let tag = try #require(try stack.fetch("Tag", sortedBy: "label").first)
        #expect(strings(members(tag, "books"), "title") == ["Notes"])
    }

    @Test func aLoadWhoseSidesOfARelationshipContradictEachOtherIsRefused() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(at: directory.file("Library.json"))
        try library(in: stack)
        stack.insert("Author", ["name": "Bo"])
        try stack.context.save()
        // Ada's books still list Notes, whose author is now Bo.
        var bo = "", notes = ""
        try editObjects(of: stack.url) { objects in
            bo = (try? named(objects, "name", "Bo")) ?? ""
            notes = (try? named(objects, "title", "Notes")) ?? ""
            var relationships = objects[notes]?["relationships"] as? [String: Any] ?? [:]
            relationships["author"] = bo
            objects[notes]?["relationships"] = relationships
        }
        let error = try #require(throws: CocoaError.self) { try stack.reopen() }
        #expect(error.code == .persistentStoreOpen)
        let message = error.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        #expect(message.contains("Author.books of"))
        #expect(message.contains("whose author is"))
    }

    @Test func theMetadataIsReadWithoutLoadingAndComparedBeforeTheObjects() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(at: directory.file("Library.json"))
        try library(in: stack)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: JSONAtomicStore.instrumentedType, at: stack.url)
        #expect(metadata[NSStoreUUIDKey] as? String == stack.store.identifier)
        #expect(metadata[NSStoreTypeKey] as? String == JSONAtomicStore.instrumentedType)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.keys.sorted() == ["Author", "Book", "Tag"])

        // A model whose Book differs: refused by the hashes (134100), before load() reads a node.
        let changed = IncrementalStoreTests.model()
        changed.entitiesByName["Book"]!.properties.append(NSAttributeDescription(name: "isbn", type: .stringAttributeType))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: changed)
        let options = [NSMigratePersistentStoresAutomaticallyOption: false]
        let error = try #require(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: JSONAtomicStore.instrumentedType, configurationName: nil, at: stack.url, options: options)
        }
        #expect(error.code == .persistentStoreIncompatibleVersionHash)
    }

    @Test func batchRequestsAreRefusedNamingTheStoreType() throws {
        let directory = TemporaryDirectory()
        let stack = try Stack(at: directory.file("Library.json"))
        try library(in: stack)
        let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Book"))
        let error = try #require(throws: CocoaError.self) { try stack.context.execute(request) }
        #expect(error.code == .persistentStoreUnsupportedRequestType)
        #expect((error.userInfo[NSLocalizedDescriptionKey] as? String ?? "").contains("'\(JSONAtomicStore.instrumentedType)'"))
        #expect(try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 2)
    }
}
