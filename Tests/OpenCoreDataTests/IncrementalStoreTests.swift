import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// A store of one's own through Core Data's `NSIncrementalStore` API (the test's `JSONFileStore`,
/// over a JSON file): registered for a type, added like any store, and used through contexts with
/// faulting, uniquing, relationships, pending changes and saves, across reopening.
@Suite(.serialized) struct IncrementalStoreTests {
    /// Authors with books (one-to-many, cascade) and tags on books (many-to-many).
    static func model() -> NSManagedObjectModel {
        let author = NSEntityDescription(name: "Author")
        let book = NSEntityDescription(name: "Book")
        let tag = NSEntityDescription(name: "Tag")
        let books = NSRelationshipDescription(name: "books", destination: book, toMany: true, deleteRule: .cascadeDeleteRule)
        let writer = NSRelationshipDescription(name: "author", destination: author)
        books.inverseRelationship = writer
        writer.inverseRelationship = books
        let tags = NSRelationshipDescription(name: "tags", destination: tag, toMany: true)
        let tagged = NSRelationshipDescription(name: "books", destination: book, toMany: true)
        tags.inverseRelationship = tagged
        tagged.inverseRelationship = tags
        author.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false),
                             NSAttributeDescription(name: "born", type: .dateAttributeType),
                             NSAttributeDescription(name: "rating", type: .doubleAttributeType, defaultValue: 0.0),
                             NSAttributeDescription(name: "active", type: .booleanAttributeType, defaultValue: true), books]
        book.properties = [NSAttributeDescription(name: "title", type: .stringAttributeType),
                           NSAttributeDescription(name: "pages", type: .integer64AttributeType, defaultValue: 0), writer, tags]
        tag.properties = [NSAttributeDescription(name: "label", type: .stringAttributeType), tagged]
        let model = NSManagedObjectModel()
        model.entities = [author, book, tag]
        return model
    }

    /// A coordinator with one JSON store at `url`, and a context on it.
    final class Stack: @unchecked Sendable {
        let model: NSManagedObjectModel
        let url: URL
        private(set) var coordinator: NSPersistentStoreCoordinator
        private(set) var context: NSManagedObjectContext

        init(model: NSManagedObjectModel = IncrementalStoreTests.model(), at url: URL) throws {
            JSONFileStore.register()
            self.model = model
            self.url = url
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            try open()
        }

        private func open() throws {
            try coordinator.addPersistentStore(ofType: JSONFileStore.type, configurationName: nil, at: url)
            context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
        }

        func reopen() throws {
            for store in coordinator.persistentStores { try coordinator.remove(store) }
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try open()
        }

        func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }

        func fetch(_ entity: String, _ format: String? = nil, sortedBy key: String? = nil) throws -> [NSManagedObject] {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = format.map { NSPredicate(format: $0) }
            request.sortDescriptors = key.map { [NSSortDescriptor(key: $0, ascending: true)] }
            return try context.fetch(request)
        }
    }

    static func names(_ objects: [NSManagedObject], _ key: String = "name") -> [String] { objects.map { $0.value(forKey: key) as! String } }

    /// Two authors and their books, saved.
    static func library(in directory: TemporaryDirectory) throws -> Stack {
        JSONFileStore.failure = nil
        let stack = try Stack(at: directory.file("Library.json"))
        let ada = stack.insert("Author", ["name": "Ada", "born": Date(timeIntervalSinceReferenceDate: 1000), "rating": 4.5])
        let bob = stack.insert("Author", ["name": "Bob", "active": false])
        let poetry = stack.insert("Tag", ["label": "poetry"])
        for (title, pages, author) in [("Notes", 120, ada), ("Engines", 300, ada), ("Gardens", 80, bob)] {
            let book = stack.insert("Book", ["title": title, "pages": pages, "author": author])
            if title != "Engines" { book.mutableSetValue(forKey: "tags").add(poetry) }
        }
        try stack.context.save()
        return stack
    }

    /// Beside an in-memory store, the store's answers (IDs, whose values come from its nodes)
    /// are merged with the other store's rows: sorted, then limited.
    @Test func aFetchOverThisStoreAndAnotherIsMergedInOrder() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        let memory = try stack.coordinator.addPersistentStore(ofType: NSInMemoryStoreType, at: nil)
        for (name, rating) in [("Abe", 5.0), ("Bea", 1.0)] {
            stack.context.assign(stack.insert("Author", ["name": name, "rating": rating]), to: memory)
        }
        try stack.context.save()
        stack.context.reset()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
        request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: false)]
        #expect(Self.names(try stack.context.fetch(request)) == ["Abe", "Ada", "Bea", "Bob"])
        request.fetchOffset = 1
        request.fetchLimit = 2
        #expect(Self.names(try stack.context.fetch(request)) == ["Ada", "Bea"])
        #expect(try stack.context.count(for: request) == 2)
        request.sortDescriptors = nil
        request.fetchOffset = 0
        request.fetchLimit = 0
        let all = try stack.context.fetch(request)
        #expect(all.prefix(2).allSatisfy { $0.objectID.persistentStore is JSONFileStore })
        #expect(Set(Self.names(all)) == ["Abe", "Ada", "Bea", "Bob"])
    }

    @Test func savedObjectsComeBackAfterReopening() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        try stack.reopen()
        #expect(Self.names(try stack.fetch("Author", sortedBy: "name")) == ["Ada", "Bob"])
        try stack.reopen()
        // Without a predicate or sort the store never reads values: the objects are faults
        // until used, and then `newValuesForObject` fills them.
        let faults = try stack.fetch("Author")
        #expect(faults.count == 2 && faults.allSatisfy(\.isFault))
        #expect(Set(Self.names(faults)) == ["Ada", "Bob"])
        let authors = try stack.fetch("Author", sortedBy: "name")
        #expect(authors[0].value(forKey: "born") as? Date == Date(timeIntervalSinceReferenceDate: 1000))
        #expect(authors[0].value(forKey: "rating") as? Double == 4.5)
        #expect(authors[1].value(forKey: "active") as? Bool == false)
        let books = try #require(authors[0].value(forKey: "books") as? Set<NSManagedObject>)
        #expect(Set(books.map { $0.value(forKey: "title") as! String }) == ["Notes", "Engines"])
        #expect(books.allSatisfy { $0.value(forKey: "author") as? NSManagedObject === authors[0] })
        let poetry = try #require(try stack.fetch("Tag").first)
        #expect(Set((poetry.value(forKey: "books") as! Set<NSManagedObject>).map { $0.value(forKey: "title") as! String }) == ["Notes", "Gardens"])
    }

    @Test func predicatesSortsLimitsAndCountsGoThroughTheStore() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        try stack.reopen()
        #expect(Self.names(try stack.fetch("Book", "pages > 100", sortedBy: "title"), "title") == ["Engines", "Notes"])
        #expect(Self.names(try stack.fetch("Book", "author.name == 'Bob'"), "title") == ["Gardens"])
        let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false)]
        request.fetchLimit = 1
        request.fetchOffset = 1
        #expect(Self.names(try stack.context.fetch(request), "title") == ["Notes"])
        #expect(try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 3)
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Author")
        ids.resultType = .managedObjectIDResultType
        #expect(try stack.context.fetch(ids).count == 2)
    }

    @Test func objectsAreUniquedAndUnsavedChangesAreMergedIn() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        try stack.reopen()
        let first = try stack.fetch("Author", "name == 'Ada'")
        let second = try stack.fetch("Author", "name == 'Ada'")
        #expect(first.count == 1 && first[0] === second[0])
        _ = stack.insert("Author", ["name": "Cy"])
        #expect(Self.names(try stack.fetch("Author", sortedBy: "name")) == ["Ada", "Bob", "Cy"])
    }

    @Test func updatesAndDeletesPersistWithDeleteRules() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        try stack.reopen()
        let ada = try #require(try stack.fetch("Author", "name == 'Ada'").first)
        ada.setValue("Ada L.", forKey: "name")
        let bob = try #require(try stack.fetch("Author", "name == 'Bob'").first)
        stack.context.delete(bob)                            // his book goes too (cascade)
        try stack.context.save()
        try stack.reopen()
        #expect(Self.names(try stack.fetch("Author")) == ["Ada L."])
        #expect(Set(Self.names(try stack.fetch("Book"), "title")) == ["Notes", "Engines"])
        let poetry = try #require(try stack.fetch("Tag").first)
        #expect((poetry.value(forKey: "books") as! Set<NSManagedObject>).map { $0.value(forKey: "title") as! String } == ["Notes"])
    }

    @Test func urisCarryTheReferenceObjectAndComeBack() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        let ada = try #require(try stack.fetch("Author", "name == 'Ada'").first)
        let store = try #require(stack.coordinator.persistentStores.first as? JSONFileStore)
        let reference = try #require(store.referenceObject(for: ada.objectID) as? String)
        #expect(UUID(uuidString: reference) != nil, "obtainPermanentIDs' default gives UUID strings")
        let uri = ada.objectID.uriRepresentation()
        #expect(uri.absoluteString == "x-coredata://\(store.identifier)/Author/p\(reference)")
        try stack.reopen()
        let again = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri))
        #expect(try stack.context.existingObject(with: again).value(forKey: "name") as? String == "Ada")

        let current = try #require(stack.coordinator.persistentStores.first as? JSONFileStore)
        let id = current.newObjectID(for: ada.entity, referenceObject: "a/b c")
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation()) == id)
        #expect(current.newObjectID(for: ada.entity, referenceObject: 7) == current.newObjectID(for: ada.entity, referenceObject: NSNumber(value: 7)))
    }

    @Test func theStoreHearsItsLifeCycle() throws {
        JSONFileStore.calls = []
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        try stack.reopen()
        _ = try stack.fetch("Author")
        #expect(JSONFileStore.calls.filter { $0 == "didAdd" || $0 == "willRemove" } == ["didAdd", "willRemove", "didAdd"])
        #expect(JSONFileStore.calls.contains("register"))
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: JSONFileStore.type, at: stack.url)[NSStoreUUIDKey] as? String
                == stack.coordinator.persistentStores.first?.identifier)
        #expect(stack.coordinator.persistentStores.first?.type == JSONFileStore.type)
    }

    @Test func aContainerOpensARegisteredTypeFromItsDescription() async throws {
        JSONFileStore.register()
        JSONFileStore.failure = nil
        let directory = TemporaryDirectory()
        let container = NSPersistentContainer(name: "Library", managedObjectModel: Self.model())
        let description = NSPersistentStoreDescription(url: directory.file("Library.json"))
        description.type = JSONFileStore.type
        container.persistentStoreDescriptions = [description]
        try await container.loadPersistentStores()
        let context = container.viewContext
        try await context.perform {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Ada", forKey: "name")
            try context.save()
        }
        #expect(FileManager.default.fileExists(atPath: directory.file("Library.json").path))
    }

    /// Registrations come in pairs: every object a context took up is reported let go of, when
    /// it goes away, on reset, or when its deletion is saved.
    @Test func registrationsAreBalanced() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        try stack.reopen()
        JSONFileStore.registrations = [:]
        do {
            let authors = try stack.fetch("Author", sortedBy: "name")
            let books = authors[0].value(forKey: "books") as! Set<NSManagedObject>
            #expect(books.count == 2)
            stack.context.delete(authors[1])
            try stack.context.save()
            #expect(JSONFileStore.registrations.values.contains { $0 > 0 })
        }
        stack.context.reset()
        #expect(JSONFileStore.registrations.values.allSatisfy { $0 == 0 }, "\(JSONFileStore.registrations)")
        #expect(JSONFileStore.registrations.values.allSatisfy { $0 >= 0 })
    }

    /// The store is handed the application's request: an ID fetch is asked for IDs.
    @Test func theStoreIsHandedTheApplicationsResultType() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Book")
        ids.resultType = .managedObjectIDResultType
        #expect(try stack.context.fetch(ids).count == 3)
        #expect(JSONFileStore.lastResultType == .managedObjectIDResultType)
        _ = try stack.fetch("Book")
        #expect(JSONFileStore.lastResultType == .managedObjectResultType)
    }

    /// A to-one a node leaves out is asked for with newValue(forRelationship:), and survives a save.
    @Test func toOnesLeftOutOfNodesAreAskedForAndKept() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        try stack.reopen()
        JSONFileStore.failure = .lazyToOne
        defer { JSONFileStore.failure = nil }
        let book = try #require(try stack.fetch("Book", "title == 'Gardens'").first)
        #expect((book.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name") as? String == "Bob")
        book.setValue(81, forKey: "pages")
        try stack.context.save()
        JSONFileStore.failure = nil
        try stack.reopen()
        let again = try #require(try stack.fetch("Book", "title == 'Gardens'").first)
        #expect((again.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name") as? String == "Bob")
        #expect(again.value(forKey: "pages") as? Int64 == 81)
    }

    /// 133000 from newValuesForObject says the row is gone: the object reads as deleted.
    @Test func aRowTheStoreNoLongerHasReadsAsDeleted() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        try stack.reopen()
        let id = try #require(try stack.fetch("Author").first?.objectID)
        try stack.reopen()
        JSONFileStore.failure = .rowsGone
        defer { JSONFileStore.failure = nil }
        let error = try #require(throws: CocoaError.self) { try stack.context.existingObject(with: id) }
        #expect(error.code == .managedObjectReferentialIntegrity)
        let fault = stack.context.object(with: id)
        #expect(fault.value(forKey: "name") == nil)
    }

    @Test func objectsOfAnotherEntityAreRefused() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        JSONFileStore.failure = .wrongEntity
        defer { JSONFileStore.failure = nil }
        let error = try #require(throws: CocoaError.self) { try stack.fetch("Author") }
        #expect(error.message == "The store of type 'JSONFile' returned an object of Tag to a fetch of Author from a fetch request")
    }

    @Test func permanentIDsThatCollideAreRefusedAndNothingIsSaved() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        let before = try Data(contentsOf: stack.url)
        _ = stack.insert("Author", ["name": "Cy"])
        _ = stack.insert("Author", ["name": "Di"])
        JSONFileStore.failure = .badPermanentIDs
        defer { JSONFileStore.failure = nil }
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.message.contains("obtainPermanentIDs(for:)"), "\(error.message)")
        #expect(stack.context.insertedObjects.count == 2)
        #expect(try Data(contentsOf: stack.url) == before)
    }

    /// A failed save leaves its new objects with permanent IDs; deleting one then must not leave
    /// it registered (the registry holds objects unowned).
    @Test func anObjectDeletedAfterAFailedSaveIsForgotten() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        let cy = stack.insert("Author", ["name": "Cy"])
        JSONFileStore.failure = .save
        #expect(throws: CocoaError.self) { try stack.context.save() }
        JSONFileStore.failure = nil
        let id = cy.objectID
        #expect(!id.isTemporaryID)
        stack.context.delete(cy)
        stack.context.processPendingChanges()
        #expect(stack.context.registeredObject(for: id) == nil)
        #expect(!stack.context.registeredObjects.contains(cy))
        #expect(!stack.context.hasChanges)
    }

    /// In a save over a SQLite store and an incremental one, the incremental store writes last:
    /// when the SQLite store refuses its part, the JSON file is left as it was.
    @Test func aSaveOverTwoStoresThatFailsInTheOtherWritesNothingToTheIncrementalStore() throws {
        let model = Self.model()
        let note = NSEntityDescription(name: "Note")
        note.properties = [NSAttributeDescription(name: "code", type: .stringAttributeType)]
        note.uniquenessConstraints = [["code"]]
        model.entities += [note]
        model.setEntities(model.entities.filter { $0.name != "Note" }, forConfigurationName: "Files")
        model.setEntities([note], forConfigurationName: "SQL")
        JSONFileStore.register()
        JSONFileStore.failure = nil
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: JSONFileStore.type, configurationName: "Files", at: directory.file("Files.json"))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "SQL", at: directory.file("Notes.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let first = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        first.setValue("A", forKey: "code")
        let ada = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
        ada.setValue("Ada", forKey: "name")
        try context.save()
        let before = try Data(contentsOf: directory.file("Files.json"))

        let duplicate = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        duplicate.setValue("A", forKey: "code")
        let bob = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
        bob.setValue("Bob", forKey: "name")
        let error = try #require(throws: CocoaError.self) { try context.save() }
        #expect(error.code == .managedObjectConstraintMerge)
        #expect(try Data(contentsOf: directory.file("Files.json")) == before)
        #expect(context.insertedObjects.contains(bob))
    }

    /// Save notifications carry an incremental store's objects like any other: another
    /// context merges them and sees the new values.
    @Test func anotherContextMergesASave() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        let other = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        other.persistentStoreCoordinator = stack.coordinator
        let adaThere = try #require(try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first {
            $0.value(forKey: "name") as? String == "Ada"
        })
        #expect(adaThere.value(forKey: "rating") as? Double == 4.5)
        let recorder = NotificationRecorder(.NSManagedObjectContextDidSave, object: stack.context)
        let ada = try #require(try stack.fetch("Author", "name == 'Ada'").first)
        ada.setValue(5.0, forKey: "rating")
        try stack.context.save()
        other.mergeChanges(fromContextDidSave: try #require(recorder.notifications.last))
        #expect(adaThere.value(forKey: "rating") as? Double == 5.0)
    }

    // MARK: Bad input

    @Test func unknownAndUnfitStoreTypesAreRefusedByName() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let unknown = try #require(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: "NoSuchType", configurationName: nil, at: URL(fileURLWithPath: "/tmp/x"))
        }
        #expect(unknown.code.rawValue == 134000)
        #expect(unknown.message.contains("'NoSuchType'"))
        NSPersistentStoreCoordinator.registerStoreClass(PlainStore.self, forStoreType: "Plain")
        let plain = try #require(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: "Plain", configurationName: nil, at: URL(fileURLWithPath: "/tmp/x"))
        }
        #expect(plain.message.contains("is neither an NSIncrementalStore nor an NSAtomicStore subclass"))
        NSPersistentStoreCoordinator.registerStoreClass(nil, forStoreType: "Plain")
        #expect(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: "Plain", configurationName: nil, at: URL(fileURLWithPath: "/tmp/x"))
        }
    }

    final class PlainStore: NSPersistentStore, @unchecked Sendable {}

    /// `registeredStoreTypes`: the built-in types and the registered ones, each with its class.
    @Test func registeredStoreTypesListBuiltInAndRegisteredTypes() throws {
        let type = "Listed-\(UUID().uuidString)"
        #expect(NSPersistentStoreCoordinator.registeredStoreTypes[type] == nil)
        NSPersistentStoreCoordinator.registerStoreClass(PlainStore.self, forStoreType: type)
        let types = NSPersistentStoreCoordinator.registeredStoreTypes
        for builtIn in [NSSQLiteStoreType, NSInMemoryStoreType, NSBinaryStoreType, NSXMLStoreType] {
            #expect(types[builtIn] != nil, "\(builtIn)")
        }
        let value = try #require(types[type])
        let storeClass = unsafeBitCast(UInt(truncating: try #require(value as? NSNumber)), to: NSPersistentStore.Type.self)
        #expect(storeClass == PlainStore.self)
        NSPersistentStoreCoordinator.registerStoreClass(nil, forStoreType: type)
        #expect(NSPersistentStoreCoordinator.registeredStoreTypes[type] == nil)
    }

    @Test func aStoreThatFailsToLoadFailsTheAdd() throws {
        let directory = TemporaryDirectory()
        JSONFileStore.register()
        JSONFileStore.failure = .loadMetadata
        defer { JSONFileStore.failure = nil }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let error = try #require(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: JSONFileStore.type, configurationName: nil, at: directory.file("x.json"))
        }
        #expect(error.code == .fileReadCorruptFile)
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func aFailedSaveKeepsTheContextsChangesAndWritesNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        let before = try Data(contentsOf: stack.url)
        let cy = stack.insert("Author", ["name": "Cy"])
        JSONFileStore.failure = .save
        defer { JSONFileStore.failure = nil }
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code == .fileWriteOutOfSpace || (error.userInfo[NSUnderlyingErrorKey] as? CocoaError)?.code == .fileWriteOutOfSpace)
        #expect(stack.context.hasChanges)
        #expect(stack.context.insertedObjects.contains(cy))
        #expect(try Data(contentsOf: stack.url) == before)
        JSONFileStore.failure = nil
        try stack.context.save()
        try stack.reopen()
        #expect(Self.names(try stack.fetch("Author", sortedBy: "name")) == ["Ada", "Bob", "Cy"])
    }

    @Test func wrongAnswersAreErrorsNamingTheStoreType() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        try stack.reopen()
        defer { JSONFileStore.failure = nil }
        JSONFileStore.failure = .fetchAnswer
        let fetchError = try #require(throws: CocoaError.self) { try stack.fetch("Author") }
        #expect(fetchError.message == "The store of type 'JSONFile' returned String, not an array of NSManagedObject or NSManagedObjectID from a fetch request")
        JSONFileStore.failure = nil
        let id = try #require(try stack.fetch("Author").first?.objectID)
        JSONFileStore.failure = .nodeValue
        let fresh = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        fresh.persistentStoreCoordinator = stack.coordinator
        let nodeError = try #require(throws: CocoaError.self) { try fresh.existingObject(with: id) }
        #expect(nodeError.message.hasPrefix("The store of type 'JSONFile' returned Array<Int> for Author.active"), "\(nodeError.message)")
    }

    /// `fetchInBatches` over an incremental store: the store's answer, the same objects as
    /// `fetch(_:)` gives, in the request's order.
    @Test func batchedFetchesGetTheStoresObjects() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        try stack.reopen()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        request.fetchBatchSize = 2
        let batched = try stack.context.fetchInBatches(request)
        let fetched = try stack.context.fetch(request)
        #expect(batched.count == fetched.count && batched.count > 2)
        #expect(batched.map { $0.value(forKey: "title") as? String } == fetched.map { $0.value(forKey: "title") as? String })
        #expect(zip(batched, fetched).allSatisfy { $0 === $1 })
    }

    /// A dictionary fetch reaches the store as the application made it, and the store's
    /// dictionaries come back.
    @Test func dictionaryFetchesArePassedOn() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Book")
        dictionaries.resultType = .dictionaryResultType
        dictionaries.propertiesToFetch = ["title", "author"]
        dictionaries.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false)]
        dictionaries.fetchLimit = 2
        let rows = try stack.context.fetch(dictionaries)
        #expect(rows.map { $0["title"] as? String } == ["Engines", "Notes"])
        #expect(JSONFileStore.lastResultType == .dictionaryResultType)
        let ada = try #require(try stack.fetch("Author", "name == 'Ada'").first)
        #expect(rows.allSatisfy { $0["author"] as? NSManagedObjectID == ada.objectID })
        let grouped = NSFetchRequest<NSDictionary>(entityName: "Book")
        grouped.resultType = .dictionaryResultType
        grouped.propertiesToFetch = ["pages"]
        grouped.propertiesToGroupBy = ["pages"]
        // The store's own refusal is the fetch's error.
        #expect(throws: CocoaError.self) { try stack.context.fetch(grouped) }
    }

    /// A batch request reaches the store's execute(_:with:); its answer makes the result of the
    /// request's type, and the deleted objects leave the context when merged. What the store
    /// refuses, or answers wrongly, is an error.
    @Test func batchRequestsArePassedToTheStore() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.library(in: directory)
        let books = try stack.fetch("Book")
        #expect(!books.isEmpty)
        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Book"))
        delete.resultType = .resultTypeObjectIDs
        let result = try #require(try stack.context.executeAndMergeChanges(delete) as? NSBatchDeleteResult)
        #expect(Set(result.result as? [NSManagedObjectID] ?? []) == Set(books.map(\.objectID)))
        #expect(try stack.fetch("Book").isEmpty)
        try stack.reopen()
        #expect(try stack.fetch("Book").isEmpty)

        let counted = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Author"))
        counted.resultType = .resultTypeCount
        let authors = try stack.fetch("Author").count
        #expect((try stack.context.execute(counted) as? NSBatchDeleteResult)?.result as? Int == authors)

        // The store refuses what it does not support: its error is the caller's.
        let filtered = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Book"))
        filtered.fetchRequest.predicate = NSPredicate(format: "pages > 10")
        let refused = try #require(throws: CocoaError.self) { try stack.context.execute(filtered) }
        #expect(refused.code == .featureUnsupported)
        // And an answer that is none of the expected ones names the store type.
        JSONFileStore.failure = .batchAnswer
        defer { JSONFileStore.failure = nil }
        let wrong = try #require(throws: CocoaError.self) { try stack.context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Book"))) }
        #expect(wrong.message.hasPrefix("The store of type 'JSONFile' returned String from execute(_:with:) for a NSBatchDeleteRequest"), "\(wrong.message)")
    }
}
