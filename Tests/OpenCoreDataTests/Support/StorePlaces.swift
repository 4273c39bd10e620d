import Foundation
import OCDPostgres
import OCDSQLite
import OpenCoreData
import OpenCoreDataPostgres

/// Where a test's stores live, by name: files in a fresh directory for the SQLite store, schemas
/// of their own on the test server for the PostgreSQL store (dropped when the places go), so that
/// one test body runs on both engines that keep Core Data's tables.
final class StorePlaces: @unchecked Sendable {
    // @unchecked Sendable: a test uses its places from one thread.

    /// The stores that keep Core Data's tables: SQLite, and PostgreSQL when there is a server.
    static var tableStores: [StoreKind] { [.sqlite] + (PostgresServer.isRequired ? [.postgres] : []) }

    let kind: StoreKind
    private let directory = TemporaryDirectory()
    private var schemas: [String: PostgresTestSchema] = [:]

    init(_ kind: StoreKind) {
        precondition(kind == .sqlite || kind == .postgres, "StorePlaces holds SQLite files and PostgreSQL schemas")
        self.kind = kind
    }

    deinit { for schema in schemas.values { schema.drop() } }

    /// The store type a coordinator adds at these places.
    var type: String { kind.type }

    /// The URL of the store named `name`: the same one each time it is asked.
    func url(_ name: String) throws -> URL {
        switch kind {
        case .postgres:
            let schema = try schemas[name] ?? PostgresTestSchema()
            schemas[name] = schema
            return URL(string: schema.url)!
        default:
            return directory.file(name + ".sqlite")
        }
    }

    /// A connection of the store's own engine to the store named `name`, for checking its tables.
    func raw(_ name: String) throws -> RawTables {
        switch kind {
        case .postgres:
            let connection = try PostgresConnection(url: try url(name).absoluteString)
            return RawTables(rows: { sql, arguments in try connection.query(sql, arguments).rows })
        default:
            let connection = try SQLiteConnection(path: try url(name).path)
            return RawTables(rows: { sql, arguments in try connection.rows(sql, arguments) })
        }
    }
}

/// SQL on a store's own tables, whichever engine holds them (`?` marks arguments on both).
struct RawTables {
    let rows: (String, [SQLValue]) throws -> [[SQLValue]]

    func rows(_ sql: String, _ arguments: [SQLValue] = []) throws -> [[SQLValue]] { try rows(sql, arguments) }

    func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue { try rows(sql, arguments).first?.first ?? .null }

    func run(_ sql: String, _ arguments: [SQLValue] = []) throws { _ = try rows(sql, arguments) }
}
