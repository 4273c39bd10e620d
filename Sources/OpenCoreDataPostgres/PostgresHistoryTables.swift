import Foundation
import OCDPostgres
import OCDSQL
import OpenCoreDataCore
import OpenCoreDataSQLite

/// Core Data's persistent history tables (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`,
/// COREDATA-FORMAT.md §2) in PostgreSQL's types, with the SQLite store's columns and
/// `Z_PRIMARYKEY` rows (entities 16001–16003), so that `ocd store convert` and
/// `migratePersistentStore` see the same layout on both engines.
///
/// Transactions are numbered by `Z_MAX` of their `Z_PRIMARYKEY` row, not by a sequence: the
/// row is updated at the end of the save, and its lock is held until the save commits, so that
/// saves that record history commit in the order of their numbers on every server. A reader
/// that has read through number n has then seen every transaction up to n — a sequence hands
/// out numbers at the start, and a save with a smaller number could commit later, unseen.
enum PostgresHistoryTables {
    static let changeEntity = SQLiteHistoryTables.changeEntity
    static let transactionEntity = SQLiteHistoryTables.transactionEntity
    static let stringEntity = SQLiteHistoryTables.stringEntity
    static let consumerTable = SQLiteHistoryTables.consumerTable

    /// Whether the database has history tables (the store was added with tracking once).
    static func exist(on connection: PostgresConnection) throws -> Bool {
        try connection.tableExists("ATRANSACTION")
    }

    /// The statements that create the tables, their indexes and their `Z_PRIMARYKEY` rows where
    /// missing; run under the store's creation lock.
    static let creationStatements = [
        "CREATE TABLE IF NOT EXISTS ACHANGE ( Z_PK bigint PRIMARY KEY, Z_ENT bigint, Z_OPT bigint, ZCHANGETYPE bigint, ZENTITY bigint, ZENTITYPK bigint, ZTRANSACTIONID bigint, ZCOLUMNS bytea )",
        "CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        """
        CREATE TABLE IF NOT EXISTS ATRANSACTION ( Z_PK bigint PRIMARY KEY, Z_ENT bigint, Z_OPT bigint, ZAUTHORTS bigint, ZBUNDLEIDTS bigint, \
        ZCONTEXTNAMETS bigint, ZPROCESSIDTS bigint, ZTIMESTAMP double precision, ZAUTHOR text COLLATE "C", ZBUNDLEID text COLLATE "C", \
        ZCONTEXTNAME text COLLATE "C", ZPROCESSID text COLLATE "C", ZQUERYGEN bytea )
        """,
        "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP)",
        #"CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING ( Z_PK bigint PRIMARY KEY, Z_ENT bigint, Z_OPT bigint, ZNAME text COLLATE "C" UNIQUE )"#,
        "CREATE TABLE IF NOT EXISTS \(consumerTable) ( ZNAME text PRIMARY KEY, ZTRANSACTION bigint )",
        "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, (SELECT coalesce(max(Z_PK), 0) FROM ACHANGE)) ON CONFLICT (Z_ENT) DO NOTHING",
        "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16002, 'TRANSACTION', 0, (SELECT coalesce(max(Z_PK), 0) FROM ATRANSACTION)) ON CONFLICT (Z_ENT) DO NOTHING",
        "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16003, 'TRANSACTIONSTRING', 0, (SELECT coalesce(max(Z_PK), 0) FROM ATRANSACTIONSTRING)) ON CONFLICT (Z_ENT) DO NOTHING",
    ]

    /// Whether the tables and their `Z_PRIMARYKEY` rows are all there: opening the store then
    /// runs no DDL (which needs the tables' owner, and locks them against other servers' saves).
    static func complete(on connection: PostgresConnection) throws -> Bool {
        for table in tables where try !connection.tableExists(table) { return false }
        return try connection.scalar("SELECT count(*) FROM Z_PRIMARYKEY WHERE Z_ENT IN (16001, 16002, 16003)").int64Value == 3
    }

    /// The history tables, as `destroyPersistentStore` drops them.
    static let tables = ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING", consumerTable]

    /// The number of the last transaction recorded (0 for none).
    static func lastTransaction(on connection: PostgresConnection) throws -> Int64 {
        try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(transactionEntity)]).int64Value ?? 0
    }

    /// Hands out `count` keys of history entity `entity`; returns the first. The row stays
    /// locked until the save's transaction ends.
    static func allocateKeys(_ count: Int, of entity: Int64, on connection: PostgresConnection) throws -> Int64 {
        let last = try connection.scalar("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX",
                                         [.integer(Int64(count)), .integer(entity)])
        guard let last = last.int64Value else {
            throw CoreDataError.make(.persistentStoreSave, "The store's Z_PRIMARYKEY has no row for history entity \(entity)")
        }
        return last - Int64(count) + 1
    }

    /// The key of each of `names` in `ATRANSACTIONSTRING`; those not there yet are added (one
    /// query to look them up, two more when some are new).
    static func stringKeys(_ names: Set<String>, on connection: PostgresConnection) throws -> [String: Int64] {
        guard !names.isEmpty else { return [:] }
        let sorted = names.sorted()
        let lookup: SQLFragment = "SELECT ZNAME, Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME IN (\(SQLFragment.list(sorted.map { .text($0) })))"
        let found = try connection.query(lookup)
        var keys: [String: Int64] = [:]
        for row in 0..<found.rowCount { if let name = found.string(row, 0) { keys[name] = found.int64(row, 1) } }
        let missing = sorted.filter { keys[$0] == nil }
        guard !missing.isEmpty else { return keys }
        let first = try allocateKeys(missing.count, of: stringEntity, on: connection)
        var statements: [(sql: String, arguments: [SQLValue])] = []
        for (offset, name) in missing.enumerated() {
            keys[name] = first + Int64(offset)
            statements.append(("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (?, ?, ?)",
                               [.integer(first + Int64(offset)), .integer(stringEntity), .text(name)]))
        }
        _ = try connection.runBatch(statements)
        return keys
    }

    /// Every string, by key.
    static func strings(on connection: PostgresConnection) throws -> [Int64: String] {
        let result = try connection.query("SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING")
        var strings: [Int64: String] = [:]
        for row in 0..<result.rowCount { if let name = result.string(row, 1) { strings[result.int64(row, 0)] = name } }
        return strings
    }

    /// Rows written by one statement: many rows per statement cost far less than one each.
    private static let rowsPerStatement = 100

    /// The statements that write `rows` as changes of `transaction`, keyed from `firstKey` on;
    /// a row with a tombstone is written with its `ZTOMBSTONE<n>` values.
    static func changeInsertions(_ rows: [HistoryChangeRow], firstKey: Int64, transaction: Int64) -> [(sql: String, arguments: [SQLValue])] {
        let prefix = "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES "
        // ZCOLUMNS is bound as data always (empty for none), so that every row binds the same
        // types and each statement shape is prepared once.
        let tuple = "(?, \(changeEntity), ?, ?, ?, ?, NULLIF(?, ''::bytea))"
        var statements: [(sql: String, arguments: [SQLValue])] = []
        var pending: [[SQLValue]] = []
        for (offset, row) in rows.enumerated() {
            let values: [SQLValue] = [.integer(firstKey + Int64(offset)), .integer(Int64(row.type.rawValue)), .integer(row.entity),
                                      .integer(row.key), .integer(transaction), .blob(Data(row.columns ?? []))]
            if let tombstone = row.tombstone, !tombstone.isEmpty {
                let columns = tombstone.indices.map { ", ZTOMBSTONE\($0)" }.joined()
                let marks = String(repeating: ", ?", count: tombstone.count)
                statements.append(("INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(columns)) "
                                   + "VALUES (?, \(changeEntity), ?, ?, ?, ?, NULLIF(?, ''::bytea)\(marks))", values + tombstone.map(PostgresTombstoneCoding.stored)))
            } else {
                pending.append(values)
            }
            if pending.count == rowsPerStatement {
                statements.append((prefix + Array(repeating: tuple, count: rowsPerStatement).joined(separator: ", "), pending.flatMap { $0 }))
                pending = []
            }
        }
        // The rest one row each: two shapes of statement, each prepared once.
        statements += pending.map { (prefix + tuple, $0) }
        return statements
    }

    /// How many `ZTOMBSTONE<n>` columns `ACHANGE` has.
    static func tombstoneColumnCount(on connection: PostgresConnection) throws -> Int {
        let result = try connection.query("""
            SELECT upper(column_name) FROM information_schema.columns WHERE table_schema = current_schema() AND upper(table_name) = 'ACHANGE'
            """)
        let names = Set((0..<result.rowCount).compactMap { result.string($0, 0) })
        var count = 0
        while names.contains("ZTOMBSTONE\(count)") { count += 1 }
        return count
    }

    /// Adds the `ZTOMBSTONE<n>` columns from `existing` up to `needed` (an `ALTER TABLE` locks
    /// `ACHANGE` against every reader until the save commits: only for columns it lacks).
    static func addTombstoneColumns(from existing: Int, upTo needed: Int, on connection: PostgresConnection) throws {
        for index in existing..<max(existing, needed) { try connection.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(index) bytea") }
    }

    static func setConsumer(_ name: String, readThrough number: Int64, on connection: PostgresConnection) throws {
        try connection.run("INSERT INTO \(consumerTable) (ZNAME, ZTRANSACTION) VALUES (?, ?) ON CONFLICT (ZNAME) DO UPDATE SET ZTRANSACTION = EXCLUDED.ZTRANSACTION",
                           [.text(name), .integer(number)])
    }

    static func consumers(on connection: PostgresConnection) throws -> [String: Int64] {
        let result = try connection.query("SELECT ZNAME, ZTRANSACTION FROM \(consumerTable)")
        var consumers: [String: Int64] = [:]
        for row in 0..<result.rowCount { if let name = result.string(row, 0) { consumers[name] = result.int64(row, 1) } }
        return consumers
    }
}

/// How a tombstone value is kept in a `ZTOMBSTONE<n>` column. SQLite's columns take a value of
/// any type; PostgreSQL's have one, and the n-th kept attribute of each entity is of its own
/// type: so each value is kept as `bytea`, a byte naming its SQL type (`i`nteger, `r`eal,
/// `t`ext, `b`lob) before its bytes (numbers big-endian, text in UTF-8), and read back by the
/// attribute's type as its column would be.
enum PostgresTombstoneCoding {
    static func stored(_ value: SQLValue) -> SQLValue {
        switch value {
        case .null: return .null
        case .integer(let integer): return .blob(Data([UInt8(ascii: "i")]) + withUnsafeBytes(of: integer.bigEndian) { Data($0) })
        case .real(let real): return .blob(Data([UInt8(ascii: "r")]) + withUnsafeBytes(of: real.bitPattern.bigEndian) { Data($0) })
        case .text(let text): return .blob(Data([UInt8(ascii: "t")]) + Data(text.utf8))
        case .blob(let data): return .blob(Data([UInt8(ascii: "b")]) + data)
        }
    }

    static func value(_ stored: Data) -> SQLValue {
        guard let tag = stored.first else { return .null }
        let body = stored.dropFirst()
        func word() -> UInt64? {
            guard body.count == 8 else { return nil }
            return body.reduce(0) { $0 << 8 | UInt64($1) }
        }
        switch tag {
        case UInt8(ascii: "i"): return word().map { .integer(Int64(bitPattern: $0)) } ?? .null
        case UInt8(ascii: "r"): return word().map { .real(Double(bitPattern: $0)) } ?? .null
        case UInt8(ascii: "t"): return .text(String(decoding: body, as: UTF8.self))
        case UInt8(ascii: "b"): return .blob(Data(body))
        default: return .null
        }
    }
}
