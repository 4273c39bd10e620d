import Foundation
import Testing
import OCDSQLite
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Destroying and replacing store files, as a store used as a cache or seeded from a bundled
/// store needs (DESIGN.md, "A store used as a cache").
@Suite struct StoreLifecycleTests {
    @Test func destroyRemovesTheStoreAndItsCompanionsAndTheCoordinatorLetsGo() throws {
        let stack = try TestStack(.sqlite)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let url = stack.storeURL
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        try stack.coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType)
        #expect(stack.coordinator.persistentStores.isEmpty)
        for path in SQLiteStoreFiles.paths(of: url) { #expect(!FileManager.default.fileExists(atPath: path), "\(path)") }
        // A missing store is no error; a fresh store can take its place.
        try stack.coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType)
        _ = try stack.coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        #expect(try stack.storedCount("Person") == 0)
    }

    @Test func destroyRefusesAFileThatIsNotAStoreAndLeavesIt() throws {
        let directory = TemporaryDirectory()
        let notes = directory.file("notes.sqlite")
        try "not a database".write(to: notes, atomically: true, encoding: .utf8)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let error = try #require(throws: CocoaError.self) {
            try coordinator.destroyPersistentStore(at: notes, ofType: NSSQLiteStoreType)
        }
        #expect(error.code.rawValue == 134000)
        #expect(try String(contentsOf: notes, encoding: .utf8) == "not a database")
    }

    @Test func forceDestroyDeletesADamagedStoreWithItsCompanions() throws {
        let stack = try TestStack(.sqlite)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        let url = stack.storeURL
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        // The header overwritten: the file is no longer a database anyone can read.
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 100))
        try handle.close()
        try Data("log".utf8).write(to: URL(fileURLWithPath: url.path + "-wal"))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        #expect(throws: CocoaError.self) { try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType) }
        #expect(FileManager.default.fileExists(atPath: url.path))

        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType, options: [NSPersistentStoreForceDestroyOption: true])
        for path in SQLiteStoreFiles.paths(of: url) { #expect(!FileManager.default.fileExists(atPath: path), "\(path)") }
        // A store can be made in its place.
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        #expect(coordinator.persistentStores.count == 1)
    }

    @Test func destroyRefusesWhatIsNotARegularFileEvenWhenForced() throws {
        let directory = TemporaryDirectory()
        let folder = directory.file("Folder.sqlite")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: folder.appendingPathComponent("inside"))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        for options in [nil, [NSPersistentStoreForceDestroyOption: true] as [AnyHashable: Any]] {
            let error = try #require(throws: CocoaError.self) {
                try coordinator.destroyPersistentStore(at: folder, ofType: NSSQLiteStoreType, options: options)
            }
            #expect(error.code.rawValue == 134000)
            #expect(try Data(contentsOf: folder.appendingPathComponent("inside")) == Data("keep".utf8))
        }
    }

    @Test func destroyingAStoreAtDevNullRemovesItAndTouchesNoFile() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let devNull = URL(fileURLWithPath: "/dev/null")
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: devNull, options: nil)
        for options in [nil, [NSPersistentStoreForceDestroyOption: true] as [AnyHashable: Any]] {
            try coordinator.destroyPersistentStore(at: devNull, ofType: NSSQLiteStoreType, options: options)
            #expect(coordinator.persistentStores.isEmpty)
            let type = try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
            #expect(type == .typeCharacterSpecial)
        }
    }

    @Test(.needsCorpus) func replaceCopiesAStoreWithWhatItsLogHolds() throws {
        // A corpus store whose data still sits in its -wal.
        let directory = TemporaryDirectory()
        let source = try Corpus.copyStore("stores/duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V4.sqlite",
                                          to: directory)
        let destination = directory.file("Copy/Bookmarks.sqlite")
        let model = try NSManagedObjectModel(validatingContentsOf: AppleStoreTests.pairs[3].modelURL)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, ofType: NSSQLiteStoreType)
        // The copy holds everything itself: its own log, if any, is empty.
        let copyLog = FileManager.default.contents(atPath: destination.path + "-wal") ?? Data()
        #expect(copyLog.isEmpty)
        let sourceMetadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: source)
        let copyMetadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: destination)
        #expect(copyMetadata[NSStoreUUIDKey] as? String == sourceMetadata[NSStoreUUIDKey] as? String)
        try AppleStoreTests.checkEveryObject(inStoreAt: destination, model: model)
        let raw = try SQLiteConnection(path: destination.path)
        #expect(try raw.scalar("SELECT COUNT(*) FROM ZBOOKMARKENTITY").int64Value == 10)
    }

    @Test func replacingAnOpenStoreRemovesItFromTheCoordinatorFirst() throws {
        let seed = try TestStack(.sqlite)
        _ = seed.insert("Person", ["name": "Seeded"])
        try seed.context.save()
        let target = try TestStack(.sqlite)
        _ = target.insert("Person", ["name": "Old"])
        try target.context.save()
        try target.coordinator.replacePersistentStore(at: target.storeURL, withPersistentStoreFrom: seed.storeURL, ofType: NSSQLiteStoreType)
        #expect(target.coordinator.persistentStores.isEmpty)
        try target.reopen()
        #expect(try target.storedStrings("Person") == ["Seeded"])
    }
}
