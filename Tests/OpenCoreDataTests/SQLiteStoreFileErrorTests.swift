import Foundation
import OCDSQLite
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// What a damaged, empty or foreign store file gets: an error that names the file and says what
/// is actually wrong, and the file left exactly as it was.
@Suite struct SQLiteStoreFileErrorTests {
    /// A store of 2,000 people written at test time, closed; its URL.
    static func writeStore(in directory: TemporaryDirectory) throws -> URL {
        let stack = try TestStack(.sqlite)
        for index in 0..<2_000 {
            _ = stack.insert("Person", ["name": "Person \(index) " + String(repeating: "x", count: 100), "age": index % 100])
        }
        try stack.context.save()
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        let url = directory.file("People.sqlite")
        try FileManager.default.copyItem(at: stack.storeURL, to: url)
        return url
    }

    static func openReadOnly(_ url: URL) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func anEmptyFileIsNamedAsEmpty() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Empty.sqlite")
        try Data().write(to: url)
        let error = try #require(throws: CocoaError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        }
        #expect(error.code.rawValue == 134000)
        #expect(error.message == "The file \(url.path) is empty (0 bytes): it holds no Core Data store")
        #expect(try Data(contentsOf: url).isEmpty)
    }

    @Test func anEmptyFileOpenedReadOnlyIsNamedAsEmpty() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Empty.sqlite")
        try Data().write(to: url)
        let error = try #require(throws: CocoaError.self) { try Self.openReadOnly(url) }
        #expect(error.code.rawValue == 134000)
        #expect(error.message == "The file \(url.path) is empty (0 bytes): it holds no Core Data store")
        #expect(try Data(contentsOf: url).isEmpty)
    }

    /// SQLite takes a 0-byte file for an empty database; Core Data creates its store in it.
    @Test func anEmptyFileBecomesAStoreWhenOpenedForWriting() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Empty.sqlite")
        try Data().write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)[NSStoreModelVersionHashesKey] != nil)
    }

    @Test func aFileWithoutSQLitesHeaderIsNotADatabase() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        try Data("just some notes\n".utf8).write(to: url)
        let error = try #require(throws: CocoaError.self) { try Self.openReadOnly(url) }
        #expect(error.code.rawValue == 134000)
        #expect(error.message == "The file \(url.path) is not a SQLite database (it does not begin with SQLite's header)")
    }

    @Test func aTruncatedDatabaseIsDamagedNotForeign() throws {
        let directory = TemporaryDirectory()
        let url = try Self.writeStore(in: directory)
        let full = try Data(contentsOf: url)
        try full.prefix(4096).write(to: url)
        let error = try #require(throws: CocoaError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.hasPrefix("The store file \(url.path) is a damaged SQLite database (SQLite error 11"))
        #expect(try Data(contentsOf: url) == full.prefix(4096))
    }

    /// A page overwritten in the middle of the file: the store opens, and the fetch that meets the
    /// damage throws an error naming the file, with SQLite's error attached.
    @Test func aDamagedPageFailsTheFetchWithTheFilesName() throws {
        let directory = TemporaryDirectory()
        let url = try Self.writeStore(in: directory)
        var bytes = try Data(contentsOf: url)
        let pageSize = 4096
        #expect(bytes.count > 20 * pageSize)
        let page = bytes.count / pageSize / 2
        bytes.replaceSubrange(page * pageSize..<(page * pageSize + 512), with: [UInt8](repeating: 0xA5, count: 512))
        try bytes.write(to: url)
        let context = try Self.openReadOnly(url)
        let error = try #require(throws: CocoaError.self) {
            try context.performAndWait { _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")) }
        }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.hasPrefix("The store file \(url.path) is a damaged SQLite database"))
        #expect((error.userInfo[NSSQLiteErrorKey] as? SQLiteError)?.primaryCode == 11)
        #expect(error.userInfo[NSFilePathErrorKey] as? String == url.path)
        #expect(try Data(contentsOf: url) == bytes)
    }

    /// In process, as a user who may not read the file (root reads any file, so the exit test
    /// becomes `nobody` first): 257 naming the file, for reading metadata and for opening.
    @Test func anUnreadableStoreIsPermissionDeniedInProcess() async {
        await #expect(processExitsWith: .success) {
            let directory = TemporaryDirectory()
            let url = try! SQLiteStoreFileErrorTests.writeStore(in: directory)
            try! FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: url.path)
            try! FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path)
            if getuid() == 0 { guard setgid(65534) == 0, setuid(65534) == 0 else { exit(10) } }
            for attempt in 0..<2 {
                do {
                    if attempt == 0 {
                        _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
                    } else {
                        _ = try SQLiteStoreFileErrorTests.openReadOnly(url)
                    }
                    exit(11)
                } catch let error as CocoaError {
                    guard error.code == .fileReadNoPermission,
                          error.message.hasPrefix("The store file \(url.path) cannot be read: permission denied") else { exit(12) }
                } catch {
                    exit(13)
                }
            }
        }
    }

    /// An unreadable store says so through `ocd` too (run as another user when the tests run as root).
    @Test func anUnreadableStoreSaysPermissionDenied() throws {
        let directory = TemporaryDirectory()
        let url = try Self.writeStore(in: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: url.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path)
        let result = try OCD.runAsUnprivilegedUser(["store", "info", url.path])
        #expect(result.status == 1)
        #expect(result.error == "ocd: \(url.path): cannot be read: permission denied\n")
        if getuid() != 0 {
            // In process too, where the user is not root.
            let error = try #require(throws: CocoaError.self) {
                try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
            }
            #expect(error.code == .fileReadNoPermission)
        }
    }
}

/// Stores whose `Z_METADATA` is not what Core Data writes are refused when opened, naming the
/// file and the key, and left as they were; `setMetadata` can still replace such metadata.
@Suite struct StoreMetadataValidationTests {
    /// A closed store written at test time, whose metadata row `damage` then changes.
    static func store(damagedBy damage: (SQLiteConnection) throws -> Void) throws -> (TestStack, Data) {
        let stack = try TestStack(.sqlite)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        do {
            let connection = try SQLiteConnection(path: stack.storeURL.path)
            try damage(connection)
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return (stack, try Data(contentsOf: stack.storeURL))
    }

    static func plist(_ metadata: [String: Any]) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
    }

    static func current(_ stack: TestStack) throws -> [String: Any] {
        try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: stack.storeURL)
    }

    @Test(arguments: [("NULL", SQLiteValue.null), ("empty", .blob(Data())), ("a number", .integer(7))])
    func noPropertyListIsRefused(what: String, value: SQLiteValue) throws {
        let (stack, bytes) = try Self.store { try $0.run("UPDATE Z_METADATA SET Z_PLIST = ?", [value]) }
        let error = try #require(throws: CocoaError.self) { try stack.reopen() }
        #expect(error.code.rawValue == 134000)
        #expect(error.message == "The store \(stack.storeURL.path) has no metadata: its property list (Z_METADATA.Z_PLIST) is \(what)")
        #expect(try Data(contentsOf: stack.storeURL) == bytes)
    }

    @Test func textThatIsNoPropertyListIsRefused() throws {
        let (stack, _) = try Self.store { try $0.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.text("hello")]) }
        let error = try #require(throws: CocoaError.self) { try stack.reopen() }
        #expect(error.message.hasPrefix("The store \(stack.storeURL.path) has metadata (Z_METADATA.Z_PLIST) that is not a property list"))
    }

    @Test(arguments: [
        ("NSStoreModelVersionHashes", "hashes" as any Sendable, "its NSStoreModelVersionHashes is a string, not a dictionary of entity names to data"),
        ("NSStoreModelVersionHashes", ["Person": "not data"], "its NSStoreModelVersionHashes is a dictionary with values other than data, not a dictionary of entity names to data"),
        ("NSPersistenceFrameworkVersion", "1", "its NSPersistenceFrameworkVersion is a string, not a number"),
        ("NSStoreModelVersionHashesVersion", true, "its NSStoreModelVersionHashesVersion is a Boolean, not a number"),
        ("NSStoreModelVersionIdentifiers", 3, "its NSStoreModelVersionIdentifiers is a number, not an array"),
        ("NSStoreType", Data([1]), "its NSStoreType is data, not a string"),
        ("NSStoreModelVersionChecksumKey", ["a": Data([1])], "its NSStoreModelVersionChecksumKey is a dictionary, not a string"),
    ])
    func aKeyOfTheWrongTypeIsRefusedByName(key: String, value: any Sendable, problem: String) throws {
        let (stack, bytes) = try Self.store { connection in
            let row = try #require(try connection.rows("SELECT Z_PLIST FROM Z_METADATA").first?.first?.dataValue)
            var metadata = try #require(try PropertyListSerialization.propertyList(from: row, format: nil) as? [String: Any])
            metadata[key] = value
            try connection.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(try Self.plist(metadata))])
        }
        let error = try #require(throws: CocoaError.self) { try stack.reopen() }
        #expect(error.code.rawValue == 134000)
        #expect(error.message == "The store \(stack.storeURL.path) has metadata (Z_METADATA) Core Data would not write: \(problem)")
        #expect(try Data(contentsOf: stack.storeURL) == bytes)
    }

    @Test func metadataWithoutHashesIsRefused() throws {
        let (stack, _) = try Self.store { connection in
            try connection.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(try Self.plist(["NSStoreType": "SQLite"]))])
        }
        let error = try #require(throws: CocoaError.self) { try stack.reopen() }
        #expect(error.message.hasSuffix("Core Data would not write: it has no NSStoreModelVersionHashes"))
    }

    /// Metadata of the application's own replaces the whole dictionary, as in Core Data, and the
    /// store keeps Core Data's keys (as Core Data writes them with every save), so it still opens.
    @Test func metadataOfTheApplicationsOwnKeepsTheStoreOpenable() throws {
        let stack = try TestStack(.sqlite)
        let hashes = try #require(Self.current(stack)[NSStoreModelVersionHashesKey] as? [String: Data])
        let store = try #require(stack.coordinator.persistentStores.first)
        stack.coordinator.setMetadata(["lastImport": "today"], for: store)
        _ = stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        try stack.reopen()
        let reopened = try Self.current(stack)
        #expect(reopened["lastImport"] as? String == "today")
        #expect(reopened[NSStoreModelVersionHashesKey] as? [String: Data] == hashes)

        for opened in stack.coordinator.persistentStores { try stack.coordinator.remove(opened) }
        try NSPersistentStoreCoordinator.setMetadata(["lastExport": "now"], forPersistentStoreOfType: NSSQLiteStoreType, at: stack.storeURL)
        try stack.reopen()
        #expect(try Self.current(stack)["lastExport"] as? String == "now")
        #expect(try Self.current(stack)[NSStoreModelVersionHashesKey] as? [String: Data] == hashes)
    }

    /// Metadata the store would refuse at its next opening is refused before it is written.
    @Test func metadataThatWouldNotOpenIsNotWritten() throws {
        let stack = try TestStack(.sqlite)
        for opened in stack.coordinator.persistentStores { try stack.coordinator.remove(opened) }
        let bytes = try Data(contentsOf: stack.storeURL)
        let error = try #require(throws: CocoaError.self) {
            try NSPersistentStoreCoordinator.setMetadata([NSStoreModelVersionHashesKey: "none"], forPersistentStoreOfType: NSSQLiteStoreType,
                                                         at: stack.storeURL)
        }
        #expect(error.code.rawValue == 134030)
        #expect(error.message.contains("its NSStoreModelVersionHashes is a string"))
        #expect(try Data(contentsOf: stack.storeURL) == bytes)
    }

    /// `setMetadata` reads only the store's UUID, so metadata that cannot be read can be replaced.
    @Test func setMetadataRepairsMetadataThatCannotBeRead() throws {
        let stack = try TestStack(.sqlite)
        let good = try Self.current(stack)
        let uuid = try #require(good[NSStoreUUIDKey] as? String)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        do {
            let connection = try SQLiteConnection(path: stack.storeURL.path)
            try connection.run("UPDATE Z_METADATA SET Z_PLIST = NULL")
        }
        #expect(throws: CocoaError.self) { try Self.current(stack) }
        try NSPersistentStoreCoordinator.setMetadata(good, forPersistentStoreOfType: NSSQLiteStoreType, at: stack.storeURL)
        try stack.reopen()
        #expect(try Self.current(stack)[NSStoreUUIDKey] as? String == uuid)
    }
}
