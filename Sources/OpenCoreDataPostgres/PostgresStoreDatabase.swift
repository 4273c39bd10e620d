import Foundation
import OCDPostgres
import OpenCoreDataCore

/// A PostgreSQL store read without adding it, for tools (`ocd store convert`).
package enum PostgresStoreDatabase {
    /// The model the store at `url` keeps of itself in `Z_MODELCACHE` (as a SQLite store does),
    /// or nil when it keeps none.
    package static func storedModel(at url: URL) throws -> NSManagedObjectModel? {
        let connection = try PostgreSQLStore.connect(to: url)
        do {
            return try storedModel(on: connection, url: url)
        } catch let error as PostgresError {
            throw CoreDataError.store(.persistentStoreOpen, error.description, url: url, underlying: error)
        }
    }

    /// The model the store on `connection` keeps in `Z_MODELCACHE`, or nil.
    static func storedModel(on connection: PostgresConnection, url: URL) throws -> NSManagedObjectModel? {
        guard try connection.tableExists("Z_MODELCACHE") else { return nil }
        let result = try connection.query("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
        guard result.rowCount > 0, let content = result.data(0, 0), !content.isEmpty else { return nil }
        return try CompiledModel.model(fromModelCache: content, source: url)
    }
}
