import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataSQLite

/// A SQLite store at `/dev/null`, as Xcode's app template opens one for previews and tests
/// (`PersistenceController(inMemory: true)`): empty each time it is opened, working like any
/// SQLite store while it is open, gone when it is removed.
@Suite struct NullDeviceStoreTests {
    private func container() throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Template", managedObjectModel: TestModel.make())
        container.persistentStoreDescriptions.first!.url = URL(fileURLWithPath: "/dev/null")
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    @Test func eachStoreStartsEmptyAndWorksWhileOpen() throws {
        let first = try container()
        let store = try #require(first.persistentStoreCoordinator.persistentStores.first)
        #expect(store.type == NSSQLiteStoreType)
        #expect(store.url?.path == "/dev/null")
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: first.viewContext)
        person.setValue("Ada", forKey: "name")
        try first.viewContext.save()

        // Another context reads what was saved (through the store's readers).
        let background = first.newBackgroundContext()
        let names = try background.performAndWait {
            try background.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["Ada"])

        let second = try container()
        #expect(try second.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 0)
    }

    @Test func removingTheStoreRemovesItsDatabase() throws {
        let container = try container()
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: container.viewContext)
        person.setValue("Grace", forKey: "name")
        try container.viewContext.save()
        let file = try #require(store.nullDeviceFile)
        #expect(FileManager.default.fileExists(atPath: file.path))
        try container.persistentStoreCoordinator.remove(store)
        #expect(!FileManager.default.fileExists(atPath: file.deletingLastPathComponent().path))
        #expect(FileManager.default.fileExists(atPath: "/dev/null"))   // never touched
    }

    /// Every spelling that standardizes to `/dev/null` names the device, and no other path does.
    @Test(arguments: ["/dev/null", "/dev/./null", "/dev//null", "/dev/null/.", "/dev/null/x/..", "/dev/../dev/null"])
    func everySpellingOfTheDeviceIsRecognised(path: String) {
        #expect(SQLiteNullDeviceStoreFile.isNullDevice(URL(fileURLWithPath: path)))
    }

    @Test(arguments: ["/dev/nullx", "/tmp/null", "/dev/null/x", "/dev/."])
    func otherPathsAreNotTheDevice(path: String) {
        #expect(!SQLiteNullDeviceStoreFile.isNullDevice(URL(fileURLWithPath: path)))
    }
}
