import Foundation
import Testing
import OpenCoreData
import OCDSQLite

/// `NSPersistentStoreCoordinator.setURL(_:for:)`: an atomic store saves to its new URL from then
/// on; a SQLite store's connection moves to the store already at the new URL.
@Suite struct StoreURLTests {
    static func insertClub(_ name: String, into coordinator: NSPersistentStoreCoordinator) throws {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Club", into: context).setValue(name, forKey: "name")
        try context.save()
    }

    static func clubNames(in coordinator: NSPersistentStoreCoordinator) throws -> [String] {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Club")).compactMap { $0.value(forKey: "name") as? String }.sorted()
    }

    @Test func anAtomicStoreSavesToItsNewURL() throws {
        let directory = TemporaryDirectory()
        let first = directory.file("First.binary"), second = directory.file("Second.binary")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: first)
        try Self.insertClub("before", into: coordinator)
        let saved = try Data(contentsOf: first)

        #expect(coordinator.setURL(second, for: store))
        #expect(store.url == second && coordinator.url(for: store) == second)
        #expect(coordinator.persistentStore(for: second) === store && coordinator.persistentStore(for: first) == nil)
        try Self.insertClub("after", into: coordinator)
        #expect(try Data(contentsOf: first) == saved, "the old file is left as it was")

        let reader = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try reader.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: second)
        #expect(try Self.clubNames(in: reader) == ["after", "before"])
    }

    @Test func aSQLiteStoreMovesItsConnectionToTheStoreAtTheNewURL() throws {
        let directory = TemporaryDirectory()
        let first = directory.file("First.sqlite"), second = directory.file("Second.sqlite")
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: first)
            try Self.insertClub("copied", into: coordinator)
            try coordinator.remove(coordinator.persistentStores[0])
        }
        try FileManager.default.copyItem(at: first, to: second)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: first)
        try Self.insertClub("only in the first", into: coordinator)

        #expect(coordinator.setURL(second, for: store))
        #expect(coordinator.persistentStore(for: second) === store)
        #expect(try Self.clubNames(in: coordinator) == ["copied"])
        try Self.insertClub("only in the second", into: coordinator)
        func names(_ url: URL) throws -> [String] {
            try SQLiteConnection(path: url.path).rows("SELECT ZNAME FROM ZCLUB ORDER BY ZNAME").compactMap { $0[0].stringValue }
        }
        #expect(try names(first) == ["copied", "only in the first"])
        #expect(try names(second) == ["copied", "only in the second"])
    }

    /// Core Data does not create a SQLite store at the new URL: with none there, nothing moves.
    @Test func aSQLiteStoreStaysWhereItWasWhenTheNewURLHoldsNoStore() throws {
        let directory = TemporaryDirectory()
        let first = directory.file("First.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: first)
        try Self.insertClub("kept", into: coordinator)

        #expect(!coordinator.setURL(directory.file("Missing.sqlite"), for: store))
        let notAStore = directory.file("Notes.sqlite")
        try Data("words, not a database, long enough to be read as a header".utf8).write(to: notAStore)
        #expect(!coordinator.setURL(notAStore, for: store))
        #expect(store.url == first)
        try Self.insertClub("still", into: coordinator)
        #expect(try Self.clubNames(in: coordinator) == ["kept", "still"])

        let other = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        #expect(!other.setURL(directory.file("Elsewhere.sqlite"), for: store), "not the other coordinator's store")
    }
}
