import Foundation
import Testing
import OpenCoreData

/// A store used only as a cache is destroyed and made again when it no longer fits the model;
/// every other store is refused and left exactly as it was.
@Suite struct IncompatibleStorePolicyTests {
    static func model(withEmail: Bool) -> NSManagedObjectModel {
        let item = NSEntityDescription(name: "Item")
        item.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType)]
            + (withEmail ? [NSAttributeDescription(name: "email", type: .stringAttributeType)] : [])
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    /// A store of three items written with the older model, copied while its writer was still
    /// open, so that its rows sit in the copy's `-wal`.
    static func storeWithRowsInItsLog(in directory: TemporaryDirectory) throws -> URL {
        let original = directory.file("original/Cache.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model(withEmail: false))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: original, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for name in ["a", "b", "c"] { NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue(name, forKey: "name") }
        try context.save()
        let copy = directory.file("copy/Cache.sqlite")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: original.path + suffix, toPath: copy.path + suffix)
        }
        try coordinator.remove(coordinator.persistentStores[0])
        return copy
    }

    static func container(_ model: NSManagedObjectModel, at url: URL, policy: IncompatibleStorePolicy?) -> (NSPersistentContainer, [Error]) {
        let description = NSPersistentStoreDescription(url: url)
        if let policy { description.incompatibleStorePolicy = policy }
        let container = NSPersistentContainer(name: "Cache", managedObjectModel: model)
        container.persistentStoreDescriptions = [description]
        let errors = LockedBox<[Error]>([])
        container.loadPersistentStores { _, error in if let error { errors.mutate { $0.append(error) } } }
        return (container, errors.value)
    }

    static func names(in container: NSPersistentContainer) throws -> [String] {
        try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "name") as? String }.sorted()
    }

    @Test func aCacheThatNoLongerFitsIsDestroyedAndMadeAgainLogIncluded() throws {
        let directory = TemporaryDirectory()
        let url = try Self.storeWithRowsInItsLog(in: directory)
        let log = try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int ?? 0
        #expect(log > 0)

        let (container, errors) = Self.container(Self.model(withEmail: true), at: url, policy: .destroyAndRecreate)
        #expect(errors.isEmpty)
        #expect(try Self.names(in: container) == [])
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: container.viewContext)
        item.setValue("new", forKey: "name")
        item.setValue("new@example.com", forKey: "email")
        try container.viewContext.save()
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])

        // Reopened with the new model and no policy: only the new row, none of the old log's.
        let (reopened, reopenErrors) = Self.container(Self.model(withEmail: true), at: url, policy: nil)
        #expect(reopenErrors.isEmpty)
        #expect(try Self.names(in: reopened) == ["new"])
    }

    @Test func theFailPolicyRefusesTheStoreAndLeavesIt() throws {
        let directory = TemporaryDirectory()
        let url = try Self.storeWithRowsInItsLog(in: directory)

        let (_, errors) = Self.container(Self.model(withEmail: true), at: url, policy: .fail)
        #expect((errors.first as? CocoaError)?.code.rawValue == 134100)
        // Every row is still there, those of the -wal included (SQLite folds the log into the
        // database when the refused store's connection closes).
        let (older, olderErrors) = Self.container(Self.model(withEmail: false), at: url, policy: nil)
        #expect(olderErrors.isEmpty)
        #expect(try Self.names(in: older) == ["a", "b", "c"])
    }

    /// The default policy migrates, here through the model the store carries (its
    /// `Z_MODELCACHE`): a model built in code is in no model bundle. The rows of the `-wal`
    /// come along.
    @Test func theMigratePolicyMovesTheStoreToTheNewModelLogIncluded() throws {
        let directory = TemporaryDirectory()
        let url = try Self.storeWithRowsInItsLog(in: directory)

        let (container, errors) = Self.container(Self.model(withEmail: true), at: url, policy: .migrate)
        #expect(errors.isEmpty)
        #expect(try Self.names(in: container) == ["a", "b", "c"])
        let items = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
        #expect(items.allSatisfy { $0.value(forKey: "email") == nil })
    }

    /// A cache another connection still has open (an older version of the app, say) is not
    /// pulled from under it: the add fails, and the other connection keeps its rows.
    @Test func aCacheThatIsOpenElsewhereIsNotDestroyed() throws {
        let directory = TemporaryDirectory()
        let url = try Self.storeWithRowsInItsLog(in: directory)
        let (older, olderErrors) = Self.container(Self.model(withEmail: false), at: url, policy: nil)
        #expect(olderErrors.isEmpty)
        #expect(try Self.names(in: older) == ["a", "b", "c"])

        let (_, errors) = Self.container(Self.model(withEmail: true), at: url, policy: .destroyAndRecreate)
        let error = try #require(errors.first as? CocoaError)
        #expect(error.code.rawValue == 134100)
        #expect(error.message.contains("another connection has it open"))
        older.viewContext.reset()
        #expect(try Self.names(in: older) == ["a", "b", "c"])
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: older.viewContext)
        item.setValue("d", forKey: "name")
        try older.viewContext.save()
    }

    /// A read-only store is never destroyed: the add fails with what differs.
    @Test func aReadOnlyCacheIsRefusedNotDestroyed() throws {
        let directory = TemporaryDirectory()
        let url = try Self.storeWithRowsInItsLog(in: directory)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model(withEmail: true))
        let error = try #require(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                               options: [NSReadOnlyPersistentStoreOption: true,
                                                         OCDIncompatibleStorePolicyOption: IncompatibleStorePolicy.destroyAndRecreate])
        }
        #expect(error.code.rawValue == 134100)
        let (older, _) = Self.container(Self.model(withEmail: false), at: url, policy: nil)
        #expect(try Self.names(in: older) == ["a", "b", "c"])
    }

    /// The policy is about stores that no longer fit: a file that is not a Core Data store is
    /// refused as ever, and never deleted.
    @Test func aFileThatIsNotAStoreIsNeverDestroyed() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let bytes = Data("these are my notes, not a database".utf8)
        try bytes.write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model(withEmail: true))
        let error = try #require(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                               options: [OCDIncompatibleStorePolicyOption: IncompatibleStorePolicy.destroyAndRecreate.rawValue])
        }
        #expect(error.code.rawValue != 134100)
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func thePolicyTravelsInTheDescriptionsOptions() {
        let description = NSPersistentStoreDescription()
        #expect(description.incompatibleStorePolicy == .migrate)
        description.incompatibleStorePolicy = .destroyAndRecreate
        #expect(description.options[OCDIncompatibleStorePolicyOption] as? String == "destroyAndRecreate")
        #expect(description.incompatibleStorePolicy == .destroyAndRecreate)
        description.incompatibleStorePolicy = .migrate
        #expect(description.options[OCDIncompatibleStorePolicyOption] == nil)
    }
}
