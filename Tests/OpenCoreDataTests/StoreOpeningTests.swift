import Foundation
import Synchronization
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// The coordinator's opening sequence — metadata → compatibility → migrate → load — for a store
/// type of one's own: an `NSIncrementalStore` that records the model's version hashes in its
/// file (the test's `JSONFileStore` added as `versionedType`) is compared with the model by the
/// coordinator, and migrated through an `NSMigrationManager` into a new file that takes the old
/// one's place, refused, or destroyed, as the options say (COREDATA-SEMANTICS.md: migration and
/// inference are on in a store description by default).
@Suite struct StoreOpeningTests {
    static let v1 = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        """

    /// Version 2: `Author.country` added (optional), `Book.title` renamed to `name` through its
    /// renaming identifier, `Book.pages` added with a default.
    static let v2 = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <attribute name="country" optional="YES" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String" elementID="title"/>
            <attribute name="pages" attributeType="Integer 64" defaultValueString="100" usesScalarValueType="YES"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        """

    /// A bundle of both versions, the first current, and a store of it with two authors and
    /// three books; the bundle is then moved on to version 2, as a new app release does.
    struct Fixture {
        let directory = TemporaryDirectory()
        let bundle: ModelBundle
        let url: URL
        /// The URI of Ada's object before any migration.
        let adaURI: URL

        init() throws {
            JSONFileStore.register()
            bundle = try ModelBundle(in: directory, name: "Library", versions: [("V1", StoreOpeningTests.v1), ("V2", StoreOpeningTests.v2)], current: "V1")
            url = directory.file("Library.json")
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try bundle.model())
            try coordinator.addPersistentStore(ofType: JSONFileStore.versionedType, configurationName: nil, at: url)
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            func author(_ name: String, _ titles: [String]) -> NSManagedObject {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue(name, forKey: "name")
                for title in titles {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                    book.setValue(title, forKey: "title")
                    book.setValue(author, forKey: "author")
                }
                return author
            }
            let ada = author("Ada", ["Notes", "Sketches"])
            _ = author("Grace", ["Manual"])
            try context.save()
            adaURI = ada.objectID.uriRepresentation()
            try coordinator.remove(coordinator.persistentStores[0])
            try bundle.makeCurrent("V2")
        }

        var fileContents: Data { get throws { try Data(contentsOf: url) } }

        /// The error adding the store with the next version and `options` fails with; the
        /// store's file must be left byte for byte as it was.
        func refusal(options: [AnyHashable: Any]?) throws -> CocoaError {
            let before = try fileContents
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try bundle.model())
            let error = try #require(throws: CocoaError.self) {
                try coordinator.addPersistentStore(ofType: JSONFileStore.versionedType, configurationName: nil, at: url, options: options)
            }
            #expect(coordinator.persistentStores.isEmpty)
            #expect(try fileContents == before)
            return error
        }

        static var migrating: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true,
                                                    NSInferMappingModelAutomaticallyOption: true] }
    }

    /// Each author's name with the sorted names of their books, read through a context.
    static func library(_ coordinator: NSPersistentStoreCoordinator) throws -> [String: [String]] {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var library: [String: [String]] = [:]
        for author in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")) {
            let books = author.value(forKey: "books") as? Set<NSManagedObject> ?? []
            library[author.value(forKey: "name") as! String] = books.compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        return library
    }

    @Test func aStoreOfOnesOwnMigratesToTheNextVersionWithEveryObjectAndLink() throws {
        let fixture = try Fixture()
        let model = try fixture.bundle.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: JSONFileStore.versionedType, configurationName: nil, at: fixture.url,
                                                       options: Fixture.migrating)
        #expect(try Self.library(coordinator) == ["Ada": ["Notes", "Sketches"], "Grace": ["Manual"]])
        // The renamed attribute kept its values, the added one took its default.
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let books = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
        #expect(books.map { $0.value(forKey: "pages") as? Int64 } == [100, 100, 100])
        // The store keeps its UUID (the objects are new ones, through a migration manager, as in
        // Core Data's migrations by mapping model).
        #expect(store.identifier == fixture.adaURI.host)
        // The file now records the new model's hashes, and opens without migrating.
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: store.metadata))
        try coordinator.remove(store)
        let migrated = try fixture.fileContents
        let again = NSPersistentStoreCoordinator(managedObjectModel: model)
        try again.addPersistentStore(ofType: JSONFileStore.versionedType, configurationName: nil, at: fixture.url, options: nil)
        #expect(try Self.library(again) == ["Ada": ["Notes", "Sketches"], "Grace": ["Manual"]])
        #expect(try fixture.fileContents == migrated)
        // Nothing of the migration is left beside the store.
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.url.deletingLastPathComponent().path)
        #expect(left.filter { $0.contains("migrating") && !$0.hasSuffix(".lock") } == [])
    }

    /// A store class names the migration manager that migrates it through a mapping model
    /// (`migrationManagerClass()`): the coordinator makes one of that class.
    @Test func theStoreClassesMigrationManagerMigratesIt() throws {
        let fixture = try Fixture()
        NSPersistentStoreCoordinator.registerStoreClass(AuditedJSONFileStore.self, forStoreType: JSONFileStore.auditedType)
        #expect(ObjectIdentifier(NSPersistentStore.migrationManagerClass()) == ObjectIdentifier(NSMigrationManager.self))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try fixture.bundle.model())
        try coordinator.addPersistentStore(ofType: JSONFileStore.auditedType, configurationName: nil, at: fixture.url,
                                           options: Fixture.migrating)
        #expect(AuditedMigrationManager.migrated.withLock { $0 }.contains(fixture.url.lastPathComponent))
        #expect(try Self.library(coordinator) == ["Ada": ["Notes", "Sketches"], "Grace": ["Manual"]])
    }

    @Test func anEmptyStoreOfOnesOwnMigratesToo() throws {
        let fixture = try Fixture()
        // Version 1's store, emptied: the migration has nothing to save into the new file.
        let writer = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(validatingContentsOf: fixture.bundle.url.appendingPathComponent("V1.xcdatamodel")))
        try writer.addPersistentStore(ofType: JSONFileStore.versionedType, configurationName: nil, at: fixture.url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = writer
        for author in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")) { context.delete(author) }
        try context.save()
        try writer.remove(writer.persistentStores[0])

        let model = try fixture.bundle.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: JSONFileStore.versionedType, configurationName: nil, at: fixture.url,
                                                       options: Fixture.migrating)
        #expect(try Self.library(coordinator) == [:])
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: store.metadata))
        // The new model's store is saved and reopened without another migration.
        let again = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        again.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Author", into: again).setValue("Mary", forKey: "name")
        try again.save()
        try coordinator.remove(store)
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(ofType: JSONFileStore.versionedType, configurationName: nil, at: fixture.url, options: nil)
        #expect(try Self.library(reopened) == ["Mary": []])
    }

    @Test func aContainerMigratesAStoreOfOnesOwnByDefault() throws {
        let fixture = try Fixture()
        let description = NSPersistentStoreDescription(url: fixture.url)
        description.type = JSONFileStore.versionedType
        let container = NSPersistentContainer(name: "Library", managedObjectModel: try fixture.bundle.model())
        container.persistentStoreDescriptions = [description]
        let errors = LockedBox<[Error]>([])
        container.loadPersistentStores { _, error in if let error { errors.mutate { $0.append(error) } } }
        #expect(errors.value.isEmpty)
        #expect(try Self.library(container.persistentStoreCoordinator) == ["Ada": ["Notes", "Sketches"], "Grace": ["Manual"]])
    }

    @Test func withoutTheOptionsAStoreThatNoLongerFitsIsRefusedNamingTheEntitiesAndLeftAsItWas() throws {
        let error = try Fixture().refusal(options: nil)
        #expect(error.code == .persistentStoreIncompatibleVersionHash)
        let message = error.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        #expect(message.contains("entity 'Author' is not the one the store was written with"))
        #expect(message.contains("entity 'Book' is not the one the store was written with"))
        #expect(error.userInfo["NSEntityNameKey"] as? String == "Author")
    }

    @Test func theFailPolicyRefusesEvenWithTheOptions() throws {
        var options = Fixture.migrating
        options[OCDIncompatibleStorePolicyOption] = IncompatibleStorePolicy.fail.rawValue
        #expect(try Fixture().refusal(options: options).code == .persistentStoreIncompatibleVersionHash)
    }

    @Test func aCacheOfOnesOwnIsDestroyedAndMadeAgain() throws {
        let fixture = try Fixture()
        let options: [AnyHashable: Any] = [OCDIncompatibleStorePolicyOption: IncompatibleStorePolicy.destroyAndRecreate.rawValue]
        let model = try fixture.bundle.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: JSONFileStore.versionedType, configurationName: nil, at: fixture.url, options: options)
        #expect(try Self.library(coordinator) == [:])
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: store.metadata))
        #expect(coordinator.managedObjectID(forURIRepresentation: fixture.adaURI) == nil)
    }

    @Test func destroyingAStoreOfOnesOwnDeletesItsFileAndNothingElse() throws {
        let fixture = try Fixture()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try fixture.bundle.model())
        try coordinator.destroyPersistentStore(at: fixture.url, ofType: JSONFileStore.versionedType)
        #expect(!FileManager.default.fileExists(atPath: fixture.url.path))
        #expect(FileManager.default.fileExists(atPath: fixture.bundle.url.path))
        // A missing store is no error; a folder at the URL is refused and left.
        try coordinator.destroyPersistentStore(at: fixture.url, ofType: JSONFileStore.versionedType)
        let folder = fixture.directory.file("Folder.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let error = try #require(throws: CocoaError.self) {
            try coordinator.destroyPersistentStore(at: folder, ofType: JSONFileStore.versionedType)
        }
        #expect(error.code == .persistentStoreInvalidType)
        #expect(FileManager.default.fileExists(atPath: folder.path))
        // An unregistered type is still unknown.
        #expect(throws: CocoaError.self) { try coordinator.destroyPersistentStore(at: fixture.url, ofType: "NoSuchType") }
    }

    @Test func aReadOnlyStoreThatNoLongerFitsIsRefusedNotMigrated() throws {
        var options = Fixture.migrating
        options[NSReadOnlyPersistentStoreOption] = true
        #expect(try Fixture().refusal(options: options).code == .persistentStoreIncompatibleVersionHash)
    }

    @Test func aStoreFromAModelInNoVersionIsMissingItsSourceModel() throws {
        let fixture = try Fixture()
        // A model the bundle has no version of: only V2's Author, with another attribute.
        let other = try ModelBundle(in: fixture.directory, name: "Other", versions: [("Only", """
            <entity name="Author" representedClassName="Author" syncable="YES">
                <attribute name="name" attributeType="String"/>
                <attribute name="born" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
            </entity>
            """)], current: "Only")
        let url = fixture.directory.file("Other.json")
        let writer = NSPersistentStoreCoordinator(managedObjectModel: try other.model())
        try writer.addPersistentStore(ofType: JSONFileStore.versionedType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = writer
        NSEntityDescription.insertNewObject(forEntityName: "Author", into: context).setValue("Ada", forKey: "name")
        try context.save()
        try writer.remove(writer.persistentStores[0])
        let before = try Data(contentsOf: url)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try fixture.bundle.model())
        let error = try #require(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: JSONFileStore.versionedType, configurationName: nil, at: url, options: Fixture.migrating)
        }
        #expect(error.code == .migrationMissingSourceModel)
        let message = error.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        #expect(message.contains("Author "))
        #expect(message.contains("\"V1\""))
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aStoreThatRecordsNoHashesOpensWithAnyModelAsItsLoadVouchesForIt() throws {
        let fixture = try Fixture()
        // The same rows under the plain type, which keeps no hashes: nothing to compare.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try ModelBundle(url: fixture.bundle.url).model())
        try coordinator.addPersistentStore(ofType: JSONFileStore.plainType, configurationName: nil, at: fixture.url, options: nil)
        // Version 2 reads `name` of books, which version 1 wrote as `title`: no migration ran.
        #expect(try Self.library(coordinator) == ["Ada": [], "Grace": []])
    }
}

/// A store of one's own whose migrations go through a manager of its own.
final class AuditedJSONFileStore: JSONFileStore, @unchecked Sendable {
    override class func migrationManagerClass() -> AnyClass { AuditedMigrationManager.self }
}

/// A migration manager that records the stores it migrates (by file name).
final class AuditedMigrationManager: NSMigrationManager, @unchecked Sendable {
    static let migrated = Mutex<[String]>([])

    override func migrateStore(from sourceURL: URL, sourceType sStoreType: String, options sOptions: [AnyHashable: Any]? = nil,
                               with mappings: NSMappingModel?, toDestinationURL dURL: URL, destinationType dStoreType: String,
                               destinationOptions dOptions: [AnyHashable: Any]? = nil) throws {
        Self.migrated.withLock { $0.append(sourceURL.lastPathComponent) }
        try super.migrateStore(from: sourceURL, sourceType: sStoreType, options: sOptions, with: mappings,
                               toDestinationURL: dURL, destinationType: dStoreType, destinationOptions: dOptions)
    }
}
