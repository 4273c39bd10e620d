import Foundation
import Testing
import OpenCoreData
import OCDSQLite

/// `NSPersistentStoreDeferredLightweightMigrationOptionKey`: a lightweight migration that leaves
/// dropping removed tables and columns for later, the store's metadata saying so until
/// `finishDeferredLightweightMigration()` or `finishDeferredLightweightMigrationTask()` runs it.
@Suite struct DeferredMigrationTests {
    static let version1 = """
        <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="note" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Old" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
        </entity>
        """
    /// `note` and the entity `Old` removed, `tag` added.
    static let version2 = """
        <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="tag" optional="YES" attributeType="String"/>
        </entity>
        """
    /// `note` back, as a new attribute.
    static let version3 = """
        <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="tag" optional="YES" attributeType="String"/>
            <attribute name="note" optional="YES" attributeType="String"/>
        </entity>
        """

    static var migrating: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true,
                                                 NSInferMappingModelAutomaticallyOption: true] }
    static var deferring: [AnyHashable: Any] {
        migrating.merging([NSPersistentStoreDeferredLightweightMigrationOptionKey: true]) { $1 }
    }

    /// A store of version 1 with two items (with notes) and an `Old`, and the bundle now at `current`.
    static func store(in directory: TemporaryDirectory, current: String = "Items 2") throws -> (ModelBundle, URL) {
        let bundle = try ModelBundle(in: directory, name: "Items",
                                     versions: [("Items", version1), ("Items 2", version2), ("Items 3", version3)], current: "Items")
        let url = directory.file("Items.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try bundle.model())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for index in 0..<2 {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("item \(index)", forKey: "name")
            item.setValue("note \(index)", forKey: "note")
        }
        NSEntityDescription.insertNewObject(forEntityName: "Old", into: context).setValue("old", forKey: "title")
        try context.save()
        try coordinator.remove(coordinator.persistentStores[0])
        try bundle.makeCurrent(current)
        return (bundle, url)
    }

    static func open(_ url: URL, _ bundle: ModelBundle, options: [AnyHashable: Any]) throws -> (NSPersistentStoreCoordinator, NSPersistentStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try bundle.model())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        return (coordinator, store)
    }

    /// What the file holds, read beside the framework.
    static func itemColumns(_ url: URL) throws -> [String] { try SQLiteConnection(path: url.path).columnNames(ofTable: "ZITEM") }
    static func hasOldTable(_ url: URL) throws -> Bool { try SQLiteConnection(path: url.path).tableExists("ZOLD") }

    static func isPending(_ coordinator: NSPersistentStoreCoordinator, _ store: NSPersistentStore) -> Bool {
        coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true
    }

    static func names(in coordinator: NSPersistentStoreCoordinator) throws -> [String] {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "?" }
    }

    @Test func withoutTheOptionTheCleanupHappensAtOnce() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(in: directory)
        let (coordinator, store) = try Self.open(url, bundle, options: Self.migrating)
        #expect(!Self.isPending(coordinator, store))
        #expect(try Self.itemColumns(url).contains("ZNOTE") == false)
        #expect(try Self.hasOldTable(url) == false)
    }

    @Test func theMigrationLeavesRemovedTablesAndColumnsAndSaysSo() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(in: directory)
        let (coordinator, store) = try Self.open(url, bundle, options: Self.deferring)
        #expect(Self.isPending(coordinator, store))
        #expect(try Self.itemColumns(url) == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZNOTE", "ZTAG"])
        #expect(try Self.hasOldTable(url))
        // The store is in use meanwhile: read, written, and reopened without migrating again.
        #expect(try Self.names(in: coordinator) == ["item 0", "item 1"])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        item.setValue("item 2", forKey: "name")
        item.setValue("new", forKey: "tag")
        try context.save()
        try coordinator.remove(store)
        let (reopened, again) = try Self.open(url, bundle, options: Self.migrating)
        #expect(Self.isPending(reopened, again), "the waiting cleanup survives the store being closed")
        #expect(try Self.names(in: reopened) == ["item 0", "item 1", "item 2"])
    }

    @Test func finishingRunsEveryTaskAndClearsTheKey() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(in: directory)
        let (coordinator, store) = try Self.open(url, bundle, options: Self.deferring)
        try coordinator.finishDeferredLightweightMigration()
        #expect(!Self.isPending(coordinator, store))
        #expect(coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] == nil)
        #expect(try Self.itemColumns(url) == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZTAG"])
        #expect(try Self.hasOldTable(url) == false)
        #expect(try Self.names(in: coordinator) == ["item 0", "item 1"])
        // Written into the file: a new coordinator finds nothing waiting.
        try coordinator.remove(store)
        let (reopened, again) = try Self.open(url, bundle, options: Self.migrating)
        #expect(!Self.isPending(reopened, again))
        // Nothing waiting is not an error.
        try reopened.finishDeferredLightweightMigration()
        try reopened.finishDeferredLightweightMigrationTask()
    }

    @Test func oneTaskAtATime() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(in: directory)
        let (coordinator, store) = try Self.open(url, bundle, options: Self.deferring)
        try coordinator.finishDeferredLightweightMigrationTask()
        #expect(Self.isPending(coordinator, store))
        let firstDone = try !Self.itemColumns(url).contains("ZNOTE") || !Self.hasOldTable(url)
        let bothDone = try !Self.itemColumns(url).contains("ZNOTE") && !Self.hasOldTable(url)
        #expect(firstDone && !bothDone)
        try coordinator.finishDeferredLightweightMigrationTask()
        #expect(!Self.isPending(coordinator, store))
        #expect(try !Self.itemColumns(url).contains("ZNOTE"))
        #expect(try !Self.hasOldTable(url))
    }

    /// The tasks live in the file: another coordinator (another process, say) finishes them.
    @Test func anotherCoordinatorFinishesWhatWasLeft() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(in: directory)
        let (first, store) = try Self.open(url, bundle, options: Self.deferring)
        try first.remove(store)
        let (second, reopened) = try Self.open(url, bundle, options: Self.migrating)
        #expect(Self.isPending(second, reopened))
        try second.finishDeferredLightweightMigration()
        #expect(!Self.isPending(second, reopened))
        #expect(try Self.hasOldTable(url) == false)
    }

    /// A later migration runs the waiting cleanup first: a removed column that comes back is a
    /// new, empty one, not the old values.
    @Test func aLaterMigrationRunsTheWaitingCleanupFirst() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(in: directory)
        let (first, store) = try Self.open(url, bundle, options: Self.deferring)
        try first.remove(store)
        try bundle.makeCurrent("Items 3")
        let (coordinator, migrated) = try Self.open(url, bundle, options: Self.migrating)
        #expect(!Self.isPending(coordinator, migrated))
        #expect(try Self.hasOldTable(url) == false)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
        #expect(items.count == 2)
        #expect(items.allSatisfy { $0.value(forKey: "note") == nil })
    }

    /// A store opened read-only, or one of another type, has nothing to finish.
    @Test func anInMemoryStoreHasNothingToFinish() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        try coordinator.finishDeferredLightweightMigration()
        try coordinator.finishDeferredLightweightMigrationTask()
    }
}
