import Foundation
import OCDSQLite
import OpenCoreDataCore

/// The cleanup a deferred lightweight migration leaves in a SQLite store
/// (`NSPersistentStoreDeferredLightweightMigrationOptionKey`): tables of removed entities and
/// columns of removed attributes, left in the file unused until they are dropped. The tasks
/// are kept in the store's metadata, so that they survive the store being closed, and each is
/// dropped in a transaction of its own with the metadata that no longer lists it.
///
/// ```swift
/// let tasks = SQLiteDeferredCleanup.pending(in: metadata)          // [.dropColumn("ZITEM", "ZNOTE")]
/// try tasks[0].run(on: connection)
/// metadata = SQLiteDeferredCleanup.metadata(metadata, pending: Array(tasks.dropFirst()))
/// ```
enum SQLiteDeferredCleanup: Equatable, Sendable {
    /// The table of an entity the model no longer has.
    case dropTable(String)
    /// The column of an attribute the entity no longer has, in a table kept in place.
    case dropColumn(table: String, column: String)

    /// Whether this SQLite library drops a column in place (`ALTER TABLE … DROP COLUMN`, 3.35):
    /// without it a removed column rebuilds its table at once, as when nothing is deferred.
    static var dropsColumns: Bool { SQLiteConnection.libraryVersionNumber >= 3_035_000 }

    /// Drops what the task names; a table or column already gone is not an error.
    func run(on connection: SQLiteConnection) throws {
        switch self {
        case .dropTable(let table):
            guard try connection.tableExists(table) else { return }
            try connection.execute("DROP TABLE " + SQLiteConnection.quotedIdentifier(table))
        case .dropColumn(let table, let column):
            guard try connection.columnNames(ofTable: table).contains(where: { $0.caseInsensitiveCompare(column) == .orderedSame }) else { return }
            try connection.execute("ALTER TABLE \(SQLiteConnection.quotedIdentifier(table)) DROP COLUMN \(SQLiteConnection.quotedIdentifier(column))")
        }
    }

    // MARK: In the metadata

    /// The tasks `metadata` lists, in the order they are to run (tables before nothing: each
    /// stands alone).
    static func pending(in metadata: [String: Any]) -> [SQLiteDeferredCleanup] {
        guard let entries = metadata[StoreMetadataKey.deferredMigrationTasks] as? [Any] else { return [] }
        return entries.compactMap { entry in
            guard let fields = entry as? [String: Any], let table = fields["table"] as? String else { return nil }
            if let column = fields["column"] as? String { return .dropColumn(table: table, column: column) }
            return .dropTable(table)
        }
    }

    /// `metadata` listing `pending` as the cleanup left to do: with the deferral key true while
    /// there is some, without either key once there is none.
    static func metadata(_ metadata: [String: Any], pending: [SQLiteDeferredCleanup]) -> [String: Any] {
        var updated = metadata
        if pending.isEmpty {
            updated[StoreMetadataKey.deferredMigrationTasks] = nil
            updated[NSPersistentStoreDeferredLightweightMigrationOptionKey] = nil
        } else {
            updated[StoreMetadataKey.deferredMigrationTasks] = pending.map(\.propertyList)
            updated[NSPersistentStoreDeferredLightweightMigrationOptionKey] = true
        }
        return updated
    }

    private var propertyList: [String: String] {
        switch self {
        case .dropTable(let table): ["table": table]
        case .dropColumn(let table, let column): ["table": table, "column": column]
        }
    }
}
