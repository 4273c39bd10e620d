import Foundation
import OCDSQLite
import OpenCoreDataCore

/// The model a Core Data SQLite store keeps of itself: the single row of `Z_MODELCACHE`,
/// written by Core Data from about framework version 1044 on (COREDATA-FORMAT.md §2, §5).
///
/// ```swift
/// if let model = try StoreModelCache.model(ofStoreAt: storeURL) {
///     print(model.entitiesByName.keys.sorted())
/// }
/// ```
package enum StoreModelCache {
    /// The raw `Z_CONTENT` (raw DEFLATE of the model's keyed archive) of the store at `url`,
    /// or nil when the store has no `Z_MODELCACHE` table, no row in it, or a NULL content.
    ///
    /// The store is opened read-only, so nothing is written to it and its write-ahead log is
    /// not checkpointed; a read-only connection still reads the `-wal` beside the file (it
    /// needs the `-shm` to exist or to be creatable), so a store whose data sits in its WAL
    /// is read as Core Data left it.
    static func content(ofStoreAt url: URL) throws -> Data? {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ModelFileError(file: url, reason: "there is no such store file")
        }
        return try content(of: try SQLiteStoreFile.open(url, readOnly: true), url: url)
    }

    /// The raw `Z_CONTENT` read through an open `connection` to the store at `url`.
    static func content(of connection: SQLiteConnection, url: URL) throws -> Data? {
        guard try connection.tableExists("Z_MODELCACHE") else { return nil }
        switch try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1") {
        case .null: return nil
        case .blob(let data): return data.isEmpty ? nil : data
        case let other: throw ModelFileError(file: url, element: "Z_MODELCACHE", reason: "Z_CONTENT holds \(other), not a blob")
        }
    }

    /// The model decoded from the store's model cache, or nil when it has none.
    static func model(ofStoreAt url: URL) throws -> NSManagedObjectModel? {
        guard let content = try content(ofStoreAt: url) else { return nil }
        return try CompiledModel.model(fromModelCache: content, source: url)
    }

    /// Writes `model` as the store's model cache through `connection` (inside the caller's
    /// transaction), replacing what was there, as Core Data does when it creates or migrates a
    /// store; a store that predates the table gets it.
    ///
    /// A model the archive cannot hold (see `KeyedArchiveModelEncoder`) leaves the store with no
    /// model cache rather than a wrong one: the cache is a convenience for migrations and
    /// tools, never needed to open the store.
    static func write(_ model: NSManagedObjectModel, on connection: SQLiteConnection) throws {
        try write(content: content(for: model), on: connection)
    }

    /// Writes `content` (the archive `content(for:)` made; nil: none) as the store's model cache.
    static func write(content: Data?, on connection: SQLiteConnection) throws {
        do {
            try connection.execute("DELETE FROM Z_MODELCACHE")
        } catch let error as SQLiteError where error.primaryCode == 1 /* SQLITE_ERROR */ {
            // Asked only when the delete fails: nearly every store has the table, and each statement is parsed.
            guard try !connection.tableExists("Z_MODELCACHE") else { throw error }
            try connection.execute("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        }
        guard let content else { return }
        let insert = try connection.prepare("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)")
        try insert.bind(content, at: 1)
        try insert.run()
    }

    /// `model`'s model cache content, or nil when the archive cannot hold the model.
    package static func content(for model: NSManagedObjectModel) -> Data? {
        try? CompiledModel.modelCache(of: model)
    }
}
