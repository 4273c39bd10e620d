import Foundation
import OCDSQLite
import OpenCoreDataCore

/// Core Data's `Z_METADATA` table: one row (`Z_VERSION` 1) holding the store's UUID (`Z_UUID`)
/// and the rest of its metadata as a binary property list (`Z_PLIST`).
///
/// Used by the open store, and on its own by `NSPersistentStoreCoordinator`'s class methods,
/// which read and write a store's metadata without opening the store.
enum SQLiteMetadataTable {
    /// The metadata stored through `connection`: the property list, with `NSStoreUUID` from
    /// `Z_UUID` and `NSStoreType` added. Throws 134000 (naming the file) when the database has no
    /// `Z_METADATA` row or its property list cannot be read.
    static func read(from connection: SQLiteConnection, url: URL?) throws -> [String: Any] {
        // Only errors name the path: `URL.path` takes the URL apart again each time.
        var path: String { url?.path ?? "?" }
        let rows: [[SQLiteValue]]
        do {
            rows = try connection.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
        } catch let error as SQLiteError where error.primaryCode == 1 /* SQLITE_ERROR */ {
            // Asked only when the read fails: every store has the table, and each statement is parsed.
            guard try connection.tableExists("Z_METADATA") else { throw notAStore(url) }
            throw error
        }
        guard let row = rows.first else {
            throw CoreDataError.store(.persistentStoreInvalidType, "The store \(path) has no metadata row in Z_METADATA", url: url)
        }
        // Core Data always writes a property list; without one the store's model is unknown.
        let data: Data
        switch row[1] {
        case .blob(let bytes) where !bytes.isEmpty: data = bytes
        case .text(let text) where !text.isEmpty: data = Data(text.utf8)   // perhaps an XML property list
        case .null: throw noMetadata(path, url, "NULL")
        case .blob, .text: throw noMetadata(path, url, "empty")
        case .integer, .real: throw noMetadata(path, url, "a number")
        }
        let plist: Any
        do {
            // Not PropertyListSerialization: on Linux it can crash on a corrupt binary list.
            plist = try PropertyListValue.read(data).foundationValue
        } catch {
            throw CoreDataError.store(.persistentStoreInvalidType,
                                      "The store \(path) has metadata (Z_METADATA.Z_PLIST) that is not a property list",
                                      url: url, underlying: error)
        }
        guard var metadata = plist as? [String: Any] else {
            throw CoreDataError.store(.persistentStoreInvalidType,
                                      "The store \(path) has metadata (Z_METADATA.Z_PLIST) that is not a dictionary", url: url)
        }
        if let uuid = row[0].stringValue, !uuid.isEmpty { metadata[NSStoreUUIDKey] = uuid }
        metadata[NSStoreTypeKey] = metadata[NSStoreTypeKey] ?? NSSQLiteStoreType
        return metadata
    }

    static func notAStore(_ url: URL?) -> CocoaError {
        CoreDataError.store(.persistentStoreInvalidType,
                            "The file \(url?.path ?? "?") is a SQLite database but not a Core Data store (it has no Z_METADATA table)", url: url)
    }

    private static func noMetadata(_ path: String, _ url: URL?, _ what: String) -> CocoaError {
        CoreDataError.store(.persistentStoreInvalidType,
                            "The store \(path) has no metadata: its property list (Z_METADATA.Z_PLIST) is \(what)", url: url)
    }

    /// The store's UUID (`Z_UUID`), whatever its property list holds; nil when there is none.
    static func uuid(from connection: SQLiteConnection) throws -> String? {
        try connection.rows("SELECT Z_UUID FROM Z_METADATA WHERE Z_VERSION = 1").first?.first?.stringValue
    }

    /// Replaces the metadata row: `NSStoreUUID` goes to `Z_UUID` (`uuid` when the metadata has
    /// none), everything else into `Z_PLIST`. Throws 134030 when a value cannot be put in a
    /// property list.
    static func write(_ metadata: [String: Any], uuid: String, on connection: SQLiteConnection, url: URL?) throws {
        var plist = metadata
        let storeUUID = (plist.removeValue(forKey: NSStoreUUIDKey) as? String) ?? uuid
        let data: Data
        do {
            // Not PropertyListSerialization: bridging every value into CoreFoundation costs more
            // than the rest of a small migration's metadata work.
            data = BinaryPropertyListWriter.write(try PropertyListValue(propertyListObject: plist))
        } catch {
            throw CoreDataError.store(.persistentStoreSave,
                                      "The metadata for the store \(url?.path ?? "?") cannot be saved: it holds values a property list cannot hold (\(error))",
                                      url: url, underlying: error)
        }
        try connection.run("INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                           [.text(storeUUID), .blob(data)])
    }
}

/// Reading and writing the metadata of a SQLite store file that is not open.
enum SQLiteStoreFile {
    /// The metadata of the store at `url`, read on a read-only connection: the file is neither
    /// created nor changed.
    static func metadata(at url: URL) throws -> [String: Any] {
        let connection = try open(url, readOnly: true)
        return try SQLiteMetadataTable.read(from: connection, url: url)
    }

    /// Replaces the metadata of the store at `url`, in one transaction. A `NSStoreUUID` in
    /// `metadata` replaces the store's UUID; without one the UUID is kept.
    static func setMetadata(_ metadata: [String: Any], at url: URL) throws {
        let connection = try open(url, readOnly: false)
        do {
            try connection.transaction {
                guard try connection.tableExists("Z_METADATA") else { throw SQLiteMetadataTable.notAStore(url) }
                // Metadata that cannot be read can still be replaced: then only the UUID is kept.
                let current = (try? SQLiteMetadataTable.read(from: connection, url: url)) ?? [:]
                let uuid = try SQLiteMetadataTable.uuid(from: connection).flatMap { $0.isEmpty ? nil : $0 } ?? UUID().uuidString
                var updated = StoreMetadataValidation.keepingCoreDataKeys(of: current, in: metadata)
                updated[NSStoreTypeKey] = updated[NSStoreTypeKey] ?? NSSQLiteStoreType
                if let problem = StoreMetadataValidation.problem(in: updated) {
                    throw CoreDataError.store(.persistentStoreSave,
                                              "The metadata for the store \(url.path) cannot be written: \(problem), and the store would not open again",
                                              url: url)
                }
                try SQLiteMetadataTable.write(updated, uuid: uuid, on: connection, url: url)
            }
        } catch let error as CocoaError {
            throw error
        } catch {
            throw CoreDataError.store(.persistentStoreSave, "The metadata of the store \(url.path) could not be written", url: url, underlying: error)
        }
    }

    /// A connection to the existing store file at `url`; 260 when there is no file, otherwise an
    /// error saying why it cannot be opened (see `SQLiteStoreFileError`). Never creates a file,
    /// nor changes the journal mode.
    static func open(_ url: URL, readOnly: Bool) throws -> SQLiteConnection {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard url.isFileURL, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CoreDataError.store(.fileReadNoSuchFile, "There is no persistent store file at \(path)", url: url)
        }
        guard !isDirectory.boolValue else {
            throw CoreDataError.store(.persistentStoreInvalidType, "The path \(path) is a directory, not a SQLite store file", url: url)
        }
        var configuration = SQLiteConnection.Configuration()
        configuration.readOnly = readOnly
        configuration.createIfMissing = false
        configuration.walMode = false
        // Even a read-only connection creates `-wal` and `-shm` files next to a WAL database that
        // has none (which is how a closed store is left), and leaves them behind. With no `-wal`
        // file the database file holds everything, and no connection has it open (an open WAL
        // database always has one), so it is read as immutable, creating nothing.
        // With one, the `-wal` holds data not yet in the database file, so SQLite must read it.
        configuration.immutable = readOnly && isWALDatabaseWithoutLog(path)
        // SQLite reads a 0-byte file as an empty database; as a store's file it holds nothing.
        if let empty = SQLiteStoreFileError.emptyFile(url) { throw empty }
        do {
            return try SQLiteConnection(path: path, configuration: configuration)
        } catch {
            throw SQLiteStoreFileError.unopenable(url, underlying: error)
        }
    }

    /// Whether the database at `path` is in WAL mode (file format bytes 18 and 19 are 2) and has
    /// no `-wal` file beside it.
    static func isWALDatabaseWithoutLog(_ path: String) -> Bool {
        guard !FileManager.default.fileExists(atPath: path + "-wal"),
              let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header.starts(with: Data("SQLite format 3\0".utf8)) && header[18] == 2 && header[19] == 2
    }
}

extension SQLiteStoreFile {
    /// The model the store at `url` carries (its model cache), or, for a store without one, the
    /// model inferred from its tables. Either way the model numbers its entities as the store
    /// does. The file is opened read-only and left as it was.
    static func storedModel(at url: URL) throws -> NSPersistentStoreCoordinator.StoredModel {
        let connection = try open(url, readOnly: true)
        guard try connection.tableExists("Z_PRIMARYKEY"), try connection.tableExists("Z_METADATA") else {
            throw CoreDataError.store(.persistentStoreInvalidType,
                                      "The file \(url.path) is a SQLite database but not a Core Data store (it has no Z_METADATA and Z_PRIMARYKEY tables)",
                                      url: url)
        }
        if let content = try StoreModelCache.content(of: connection, url: url) {
            let model = try CompiledModel.model(fromModelCache: content, source: url)
            model.storedEntityNumbers = StoredEntityNumbers.numbers(of: model.entities,
                                                                    in: try StoredEntityNumbers.read(on: connection, url: url))
            return .init(model: model, source: .modelCache)
        }
        var inference = StoreSchemaInference(connection: connection, url: url)
        return .init(model: try inference.inferModel(), source: .inferredFromTables)
    }
}
