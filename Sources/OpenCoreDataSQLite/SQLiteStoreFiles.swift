import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OCDSQLite
import OpenCoreDataCore

/// The files of a SQLite store: the database, its `-wal` and `-shm` companions, and the
/// `.<Name>_SUPPORT` folder Core Data keeps beside it (external binary data).
enum SQLiteStoreFiles {
    /// Every path that belongs to the store at `url` (existing or not).
    static func paths(of url: URL) -> [String] {
        let path = url.path
        let support = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT").path
        // The companions first: a log left beside a new database could be replayed into it.
        return [path + "-wal", path + "-shm", path + "-journal", support, path]
    }

    /// Deletes the store at `url` with its companions. A missing store is no error; a file that
    /// is not a Core Data store is refused (134000) and left as it was, unless `force`. What is
    /// not a regular file (a folder, a device) is refused even then; `/dev/null`, where a store
    /// lives only while it is open, has nothing to delete.
    static func destroy(at url: URL, force: Bool = false) throws {
        if SQLiteNullDeviceStoreFile.isNullDevice(url) { return }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return try removeFiles(of: url) }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw CoreDataError.store(.persistentStoreInvalidType, "\(url.path) is not a regular file, so not a SQLite store: it was not destroyed", url: url)
        }
        // Reading the metadata checks, read-only, that the file is a Core Data store.
        if !force { _ = try SQLiteStoreFile.metadata(at: url) }
        try removeFiles(of: url)
    }

    /// Deletes the store at `url` unless a connection anywhere — in this process or another —
    /// has it open: then it throws 134100 saying so, and deletes nothing. For a store that no
    /// longer fits the model and is only a cache (`IncompatibleStorePolicy.destroyAndRecreate`).
    ///
    /// An exclusive lock on the database, which SQLite grants in WAL mode only when no other
    /// connection has the file open, even an idle one, is held while the files go, so that
    /// nobody opens the store meanwhile.
    static func destroyUnlessInUse(at url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return try removeFiles(of: url) }
        _ = try SQLiteStoreFile.metadata(at: url)
        var configuration = SQLiteConnection.Configuration()
        configuration.createIfMissing = false
        configuration.walMode = false
        configuration.busyTimeoutMilliseconds = 0
        let lock = try SQLiteConnection(path: url.path, configuration: configuration)
        do {
            try lock.execute("PRAGMA locking_mode=EXCLUSIVE")
            try lock.execute("BEGIN EXCLUSIVE")
        } catch {
            throw CoreDataError.store(.persistentStoreIncompatibleVersionHash,
                                      "The store \(url.path) no longer fits the model, but another connection has it open: it was not destroyed and recreated",
                                      url: url, underlying: error)
        }
        try withExtendedLifetime(lock) { try removeFiles(of: url) }
    }

    /// Deletes every file of the store at `url`, companions first.
    private static func removeFiles(of url: URL) throws {
        for path in paths(of: url) where FileManager.default.fileExists(atPath: path) {
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw CoreDataError.store(.persistentStoreOperation, "Can't delete \(path) of the store \(url.path)", url: url,
                                          underlying: error)
            }
        }
    }

    /// Writes a copy of the store at `source` to `destination`, with everything the source's
    /// `-wal` still holds, as one self-contained database file, and the external data files its
    /// rows name; whatever was at `destination` is destroyed first.
    ///
    /// The rows are copied first, as one snapshot (`VACUUM INTO`), then exactly the files those
    /// rows name: a save of the source between the two steps can neither leave the copy's rows
    /// naming files that were not copied (files it created are copied when named) nor fail the
    /// copy (files it gave up are not needed). A file the snapshot names that is gone by then
    /// (a later save gave it up) makes the copy start over, up to three times.
    static func replace(_ destination: URL, with source: URL) throws {
        _ = try SQLiteStoreFile.metadata(at: source)
        guard source.standardizedFileURL != destination.standardizedFileURL else { return }
        var attempt = 0
        while true {
            attempt += 1
            try destroy(at: destination)
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            do {
                let connection = try SQLiteStoreFile.open(source, readOnly: true)
                try connection.run("VACUUM INTO ?", [.text(destination.path)])
            } catch {
                throw CoreDataError.store(.persistentStoreOperation, "Can't copy the store \(source.path) to \(destination.path)",
                                          url: destination, underlying: error)
            }
            let copy = try SQLiteConnection(path: destination.path)
            let missing = try copyExternalData(namedIn: copy, from: source, to: destination)
            if let missing {
                guard attempt < 3 else {
                    try? destroy(at: destination)
                    throw CoreDataError.store(.persistentStoreOperation,
                                              "Can't copy the store \(source.path): its external data file \(missing.path) went away while it was copied, three times",
                                              url: source)
                }
                continue
            }
            // Core Data's stores are WAL databases; the copy is too, as if closed cleanly.
            try copy.execute("PRAGMA journal_mode=WAL")
            return
        }
    }

    /// Copies the external data files the rows of `copy` name from beside `source` to beside
    /// `destination`, flushed; returns a named file that is not there (nil when all were).
    private static func copyExternalData(namedIn copy: SQLiteConnection, from source: URL, to destination: URL) throws -> URL? {
        let names = try externalDataNames(in: copy)
        guard !names.isEmpty else { return nil }
        let from = ExternalDataFolder.url(of: source), to = ExternalDataFolder.url(of: destination)
        do {
            try FileManager.default.createDirectory(at: to, withIntermediateDirectories: true)
            for name in names.sorted() {
                let file = from.appendingPathComponent(name)
                guard let data = try? Data(contentsOf: file, options: .mappedIfSafe) else { return file }
                try AtomicFileWrite.create(to.appendingPathComponent(name), with: data)
            }
            AtomicFileWrite.flushDirectory(to)
            AtomicFileWrite.flushDirectory(to.deletingLastPathComponent())
            AtomicFileWrite.flushDirectory(to.deletingLastPathComponent().deletingLastPathComponent())
        } catch {
            throw CoreDataError.store(.persistentStoreOperation, "Can't copy the external data files of \(source.path) to \(to.path)",
                                      url: destination, underlying: error)
        }
        return nil
    }

    /// The external data files the rows of the store on `connection` name: the `0x02` references
    /// in the BLOB columns of its entity tables (Core Data's `Z…` tables).
    static func externalDataNames(in connection: SQLiteConnection) throws -> Set<String> {
        var names = Set<String>()
        let tables = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%'").compactMap { $0.first?.stringValue }
        for table in tables {
            let quotedTable = SQLiteConnection.quotedIdentifier(table)
            let columns = try connection.columns(ofTable: table).filter { $0.type.uppercased() == "BLOB" }.map(\.name)
            for column in columns {
                let quoted = SQLiteConnection.quotedIdentifier(column)
                let sql = "SELECT \(quoted) FROM \(quotedTable) WHERE substr(\(quoted), 1, 1) = x'02'"
                for row in try connection.rows(sql) {
                    if let data = row.first?.dataValue, let name = ExternalDataColumn.referencedName(in: data) { names.insert(name) }
                }
            }
        }
        return names
    }
}

extension NSPersistentStoreCoordinator {
    /// Deletes the store at `url`: the database and its `-wal`, `-shm` and support files, as a
    /// store used as a cache is thrown away when its model changed.
    ///
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    /// if !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
    ///     try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType)
    /// }
    /// ```
    /// If this coordinator has the store, it is removed first. A missing store is no error. A file
    /// that is not a Core Data store is refused (134000) and left as it was, unless the options
    /// have `NSPersistentStoreForceDestroyOption`. For the in-memory
    /// store type there is nothing to delete. For the binary and XML stores and registered types
    /// of your own, the regular file at `url` is deleted, with what an interrupted save left
    /// beside it (anything else there is refused with 134000); Core Data leaves a type of your
    /// own to its store class.
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        guard storeType == NSSQLiteStoreType else {
            if storeType == NSInMemoryStoreType { return }
            if try destroyFileStore(at: url, ofType: storeType) { return }
            throw CoreDataError.make(.persistentStoreInvalidType, "Unknown store type '\(storeType)'")
        }
        if let store = persistentStore(for: url) { try remove(store) }
        try SQLiteStoreFiles.destroy(at: url, force: StoreOptionFlag.isOn(options?[NSPersistentStoreForceDestroyOption]))
    }

    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL` (for
    /// example a store shipped with the application), including what the source's `-wal` still
    /// holds. The destination is destroyed first; the copy keeps the source's UUID and metadata.
    ///
    /// ```swift
    /// try coordinator.replacePersistentStore(at: storeURL, destinationOptions: nil,
    ///                                        withPersistentStoreFrom: seedURL, sourceOptions: nil,
    ///                                        ofType: NSSQLiteStoreType)
    /// ```
    /// If this coordinator has the destination store, it is removed first (add it again to use
    /// the copy). The source must be a Core Data store of `storeType` (134000 otherwise); it is
    /// only read. A store kept in one file (binary, XML, a registered type of your own) is copied
    /// over the destination atomically.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                       withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                       ofType storeType: String) throws {
        guard storeType == NSSQLiteStoreType else {
            if try replaceFileStore(at: destinationURL, with: sourceURL, ofType: storeType) { return }
            throw CoreDataError.make(.persistentStoreInvalidType, "Stores of type '\(storeType)' can't be replaced")
        }
        if let store = persistentStore(for: destinationURL) { try remove(store) }
        try SQLiteStoreFiles.replace(destinationURL, with: sourceURL)
    }
}

extension NSPersistentStoreCoordinator {
    /// The iOS 15 spelling of `destroyPersistentStore(at:ofType:options:)`.
    public func destroyPersistentStore(at url: URL, type storeType: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil) throws {
        try destroyPersistentStore(at: url, ofType: storeType.rawValue, options: options)
    }

    /// The iOS 15 spelling of `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)`.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                       withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                       type storeType: NSPersistentStore.StoreType) throws {
        try replacePersistentStore(at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL,
                                   sourceOptions: sourceOptions, ofType: storeType.rawValue)
    }
}

extension SQLiteStore: MigratedStoreReplacing {
    static func watchForReplacement(of url: URL) throws -> any StoreReplacement {
        try SQLiteStoreReplacement(url: url)
    }
}

/// A SQLite store being migrated into another file. A connection opened on it before the
/// migration notes its `data_version`; once the copy is made, a store another connection
/// committed to meanwhile is refused (its changes would be lost), and otherwise the copy
/// replaces the store's contents through SQLite's online backup: one write transaction of the
/// store, so that other connections and a kill see the old store or the new one, and no log is
/// left to be replayed into the wrong file. A store another connection holds a lock on is
/// refused too. (A commit made between the `data_version` check and the backup taking its lock,
/// a few microseconds, would still be lost: SQLite's backup cannot start inside a transaction
/// that would close that gap.)
final class SQLiteStoreReplacement: StoreReplacement {
    let url: URL
    private let connection: SQLiteConnection
    private let version: SQLiteValue

    init(url: URL) throws {
        self.url = url
        var configuration = SQLiteConnection.Configuration()
        configuration.createIfMissing = false
        configuration.walMode = false
        configuration.busyTimeoutMilliseconds = 0
        connection = try SQLiteConnection(path: url.path, configuration: configuration)
        version = try connection.scalar("PRAGMA data_version")
    }

    func replace(with migrated: URL) throws {
        guard try connection.scalar("PRAGMA data_version") == version else {
            throw CoreDataError.store(.migration, "The store \(url.path) was written by another connection while it was migrated: the migrated copy was not put in its place",
                                      url: url)
        }
        try continueHistory(in: migrated)
        var configuration = SQLiteConnection.Configuration()
        configuration.createIfMissing = false
        configuration.readOnly = true
        configuration.walMode = false
        let source = try SQLiteConnection(path: migrated.path, configuration: configuration)
        // The copy's external data files join the store's before its rows do; the store's old
        // ones, which only the old rows name, go after.
        let oldFiles = ExternalDataFolder(store: url).fileNames()
        let movedFiles = try moveExternalData(of: migrated)
        do {
            try connection.replaceContents(with: source)
        } catch {
            for name in movedFiles { unlink(ExternalDataFolder.url(of: url).appendingPathComponent(name).path) }
            throw CoreDataError.store(.migration, "The store \(url.path) was migrated, but the migrated copy could not be put in its place (another connection may have it open)",
                                      url: url, underlying: error)
        }
        for name in oldFiles { unlink(ExternalDataFolder.url(of: url).appendingPathComponent(name).path) }
        // The new pages are in the store's log; fold them into the file while nobody reads.
        _ = try? connection.rows("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Moves the external data files of the migrated copy into the store's folder (their
    /// UUID names are new to it) and returns their names.
    private func moveExternalData(of migrated: URL) throws -> [String] {
        let from = ExternalDataFolder(store: migrated)
        let names = from.fileNames().sorted()
        guard !names.isEmpty else { return [] }
        let to = ExternalDataFolder.url(of: url)
        try FileManager.default.createDirectory(at: to, withIntermediateDirectories: true)
        for (index, name) in names.enumerated() where rename(from.url.appendingPathComponent(name).path, to.appendingPathComponent(name).path) != 0 {
            let reason = String(cString: strerror(errno))
            // The migration fails: the files already moved are named by no row of the store.
            for moved in names[..<index] { unlink(to.appendingPathComponent(moved).path) }
            throw CoreDataError.store(.migration, "The migrated store's external data file \(name) could not be moved to \(to.path): \(reason)",
                                      url: url)
        }
        AtomicFileWrite.flushDirectory(to)
        return names
    }

    /// The copy's persistent history continues the store's numbering, one transaction number
    /// left out for the migration, and holds nothing of the migration's own saves (a copy, not
    /// changes): its objects are new ones with new keys, which no transaction of the old history
    /// describes, so every token of the old history is expired against it (before its first
    /// transaction), however many transactions follow.
    private func continueHistory(in migrated: URL) throws {
        guard try SQLiteHistoryTables.exist(on: connection) else { return }
        let last = try SQLiteHistoryTables.lastTransaction(on: connection)
        var configuration = SQLiteConnection.Configuration()
        configuration.createIfMissing = false
        configuration.walMode = false
        let copy = try SQLiteConnection(path: migrated.path, configuration: configuration)
        guard try SQLiteHistoryTables.exist(on: copy) else { return }
        try copy.transaction {
            try copy.execute("DELETE FROM ACHANGE; DELETE FROM ATRANSACTION; DELETE FROM ATRANSACTIONSTRING")
            try copy.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(last + 1), .integer(SQLiteHistoryTables.transactionEntity)])
        }
    }
}
