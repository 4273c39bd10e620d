import Foundation
import OCDPostgres
import OpenCoreDataCore

/// A PostgreSQL store read without adding it, for tools (`ocd store convert`).
package enum PostgresStoreDatabase {
    /// The model the store at `url` keeps of itself in `Z_MODELCACHE` (as a SQLite store does),
    /// or nil when it keeps none.
    package static func storedModel(at url: URL) throws -> NSManagedObjectModel? {
        let connection = try PostgreSQLStore.connect(to: url)
        let content: Data?
        do {
            if try connection.tableExists("Z_MODELCACHE") {
                let result = try connection.query("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
                content = result.rowCount > 0 ? result.data(0, 0) : nil
            } else {
                content = nil
            }
        } catch let error as PostgresError {
            throw CoreDataError.store(.persistentStoreOpen, error.description, url: url, underlying: error)
        }
        guard let content, !content.isEmpty else { return nil }
        return try CompiledModel.model(fromModelCache: content, source: url)
    }
}
