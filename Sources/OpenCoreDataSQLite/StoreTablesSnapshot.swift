import Foundation
import OCDSQLite

/// What has been read of a store's tables while nothing changes them: its entity numbers
/// (`Z_PRIMARYKEY`), read at once, and the columns of each table, read when first asked for.
/// Opening a store that must migrate compares the same tables with the model, with each
/// candidate source model and with the source found, before the migration changes anything:
/// each table is read once for all of them.
///
/// ```swift
/// let snapshot = try StoreTablesSnapshot(connection: connection, url: url, metadata: storedMetadata)
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
    /// Upper-cased names of the tables, and table → columns, a deferred migration left to drop.
    private let leftTables: Set<String>
    private let leftColumns: [String: Set<String>]

    /// `metadata`, the store's: the tables and columns its deferred cleanup will drop
    /// (`SQLiteDeferredCleanup`) are not seen, so that a model that adds one of them back is
    /// compared with the store as it will be, and migrates.
    init(connection: SQLiteConnection, url: URL, metadata: [String: Any]) throws {
        self.connection = connection
        numbers = try StoredEntityNumbers.read(on: connection, url: url)
        var tables: Set<String> = []
        var columns: [String: Set<String>] = [:]
        for task in SQLiteDeferredCleanup.pending(in: metadata) {
            switch task {
            case .dropTable(let table): tables.insert(table.uppercased())
            case .dropColumn(let table, let column): columns[table.uppercased(), default: []].insert(column.uppercased())
            }
        }
        leftTables = tables
        leftColumns = columns
    }

    /// The columns of `table` (`SQLiteConnection.columns(ofTable:)`), read once.
    func columns(ofTable table: String) throws -> [(name: String, type: String)] {
        if let columns = columnsByTable[table] { return columns }
        var columns = leftTables.contains(table.uppercased()) ? [] : try connection.columns(ofTable: table)
        if let left = leftColumns[table.uppercased()] { columns.removeAll { left.contains($0.name.uppercased()) } }
        columnsByTable[table] = columns
        return columns
    }
}
