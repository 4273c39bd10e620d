import Foundation
import Testing
import OpenCoreData

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

    /// An open SQLite store is not moved (a difference from Core Data, which reopens its
    /// connection): false, and the store goes on where it was. Nor is a store moved onto
    /// another of the coordinator's, or by a coordinator it is not added to.
    @Test func whatCannotMoveStaysWhereItWas() throws {
        let directory = TemporaryDirectory()
        let first = directory.file("First.sqlite"), second = directory.file("Second.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: first)
        try Self.insertClub("kept", into: coordinator)
        try FileManager.default.copyItem(at: first, to: second)

        #expect(!coordinator.setURL(second, for: store))
        #expect(store.url == first && coordinator.persistentStore(for: first) === store)
        try Self.insertClub("still", into: coordinator)
        #expect(try Self.clubNames(in: coordinator) == ["kept", "still"])

        let binary = try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: directory.file("Clubs.binary"))
        #expect(!coordinator.setURL(first, for: binary), "the SQLite store is there")
        #expect(binary.url == directory.file("Clubs.binary"))

        let other = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        #expect(!other.setURL(directory.file("Elsewhere.binary"), for: binary), "not the other coordinator's store")
    }
}
