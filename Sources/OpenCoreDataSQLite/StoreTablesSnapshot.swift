import Foundation
import OCDSQLite

/// What has been read of a store's tables while nothing changes them: its entity numbers
/// (`Z_PRIMARYKEY`), read at once, and the columns of each table, read when first asked for.
/// Opening a store that must migrate compares the same tables with the model, with each
/// candidate source model and with the source found, before the migration changes anything:
/// each table is read once for all of them.
///
/// ```swift
/// let snapshot = try StoreTablesSnapshot(connection: connection, url: url)
/// let columns = try snapshot.columns(ofTable: "ZITEM")   // read now
/// _ = try snapshot.columns(ofTable: "ZITEM")             // kept
/// ```
///
/// Valid only until the tables change: a migration's result is read afresh.
final class StoreTablesSnapshot {
    /// The store's `Z_PRIMARYKEY`: entity name → `Z_ENT` (`StoredEntityNumbers.read`).
    let numbers: [String: Int64]
    private let connection: SQLiteConnection
    private var columnsByTable: [String: [(name: String, type: String)]] = [:]

    init(connection: SQLiteConnection, url: URL) throws {
        self.connection = connection
        numbers = try StoredEntityNumbers.read(on: connection, url: url)
    }

    /// The columns of `table` (`SQLiteConnection.columns(ofTable:)`), read once.
    func columns(ofTable table: String) throws -> [(name: String, type: String)] {
        if let columns = columnsByTable[table] { return columns }
        let columns = try connection.columns(ofTable: table)
        columnsByTable[table] = columns
        return columns
    }
}
