import Foundation
import OCDSQLite
import OpenCoreDataCore

/// Core Data's persistent history tables, as Apple's Core Data lays them out (read from stores
/// it wrote, see COREDATA-FORMAT.md §2): `ATRANSACTION` (one row per save), `ACHANGE` (one row
/// per changed object) and `ATRANSACTIONSTRING` (authors, bundle, context and process names,
/// each stored once), registered in `Z_PRIMARYKEY` as entities 16002, 16001 and 16003, whose
/// `Z_MAX` hands out their primary keys.
package enum SQLiteHistoryTables {
    package static let changeEntity: Int64 = 16001
    package static let transactionEntity: Int64 = 16002
    package static let stringEntity: Int64 = 16003

    /// Whether the store's file has history tables (it was opened with tracking once).
    static func exist(on connection: SQLiteConnection) throws -> Bool {
        try connection.tableExists("ATRANSACTION")
    }

    /// Creates the tables, their indexes and their `Z_PRIMARYKEY` rows where missing.
    static func create(on connection: SQLiteConnection) throws {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
            CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID);
            CREATE TABLE IF NOT EXISTS ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB );
            CREATE INDEX IF NOT EXISTS ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS);
            CREATE INDEX IF NOT EXISTS ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS);
            CREATE INDEX IF NOT EXISTS ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS);
            CREATE INDEX IF NOT EXISTS ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS);
            CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC);
            CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC);
            CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
            CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC);
            INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, ifnull((SELECT max(Z_PK) FROM ACHANGE), 0));
            INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16002, 'TRANSACTION', 0, ifnull((SELECT max(Z_PK) FROM ATRANSACTION), 0));
            INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16003, 'TRANSACTIONSTRING', 0, ifnull((SELECT max(Z_PK) FROM ATRANSACTIONSTRING), 0));
            """)
    }

    /// Whether the tables and their `Z_PRIMARYKEY` rows are all there (nothing to create).
    static func complete(on connection: SQLiteConnection) throws -> Bool {
        guard try exist(on: connection), try connection.tableExists("ACHANGE"), try connection.tableExists("ATRANSACTIONSTRING") else {
            return false
        }
        return try connection.scalar("SELECT count(*) FROM Z_PRIMARYKEY WHERE Z_ENT IN (16001, 16002, 16003)").int64Value == 3
    }

    /// The number of the last transaction recorded (`Z_MAX` of the transaction entity); 0 for none.
    static func lastTransaction(on connection: SQLiteConnection) throws -> Int64 {
        try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(transactionEntity)]).int64Value ?? 0
    }

    /// Hands out `count` primary keys of history entity `entity`; returns the first.
    static func allocateKeys(_ count: Int64, of entity: Int64, on connection: SQLiteConnection) throws -> Int64 {
        // Two statements rather than `UPDATE … RETURNING`, which SQLite before 3.35 lacks; both
        // run inside the save's transaction.
        let update = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ?")
        try update.bind(count, at: 1)
        try update.bind(entity, at: 2)
        try update.run()
        let select = try connection.cachedStatement("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
        try select.bind(entity, at: 1)
        defer { select.reset() }
        guard try select.step() else {
            throw CoreDataError.make(.persistentStoreSave, "The store's Z_PRIMARYKEY has no row for history entity \(entity)")
        }
        return select.int64(at: 0) - count + 1
    }

    /// Rows written by one statement: many rows per statement cost far less than one each.
    private static let rowsPerStatement = 100

    /// Writes `rows` as changes of `transaction`, keyed from `firstKey` on.
    static func insertChanges(_ rows: [HistoryChangeRow], firstKey: Int64, transaction: Int64,
                              on connection: SQLiteConnection) throws {
        let prefix = "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES "
        let tuple = "(?, \(changeEntity), ?, ?, ?, ?, ?)"
        let full = try connection.cachedStatement(prefix + Array(repeating: tuple, count: rowsPerStatement).joined(separator: ", "))
        let single = try connection.cachedStatement(prefix + tuple)
        var index = 0
        while index < rows.count {
            let statement = rows.count - index >= rowsPerStatement ? full : single
            let count = statement === full ? rowsPerStatement : 1
            var parameter = 1
            for row in rows[index..<index + count] {
                try statement.bind(firstKey + Int64(index), at: parameter)
                try statement.bind(Int64(row.type.rawValue), at: parameter + 1)
                try statement.bind(row.entity, at: parameter + 2)
                try statement.bind(row.key, at: parameter + 3)
                try statement.bind(transaction, at: parameter + 4)
                if let columns = row.columns {
                    try statement.bind(Data(columns), at: parameter + 5)
                } else {
                    try statement.bindNull(at: parameter + 5)
                }
                parameter += 6
                index += 1
            }
            try statement.run()
        }
    }

    /// How many `ZTOMBSTONE<n>` columns `ACHANGE` has.
    static func tombstoneColumnCount(on connection: SQLiteConnection) throws -> Int {
        let names = Set(try connection.columnNames(ofTable: "ACHANGE").map { $0.uppercased() })
        var count = 0
        while names.contains("ZTOMBSTONE\(count)") { count += 1 }
        return count
    }

    /// Writes the tombstones of `rows` (keyed from `firstKey` on), adding `ZTOMBSTONE<n>`
    /// columns the table lacks.
    static func writeTombstones(of rows: [HistoryChangeRow], firstKey: Int64, on connection: SQLiteConnection) throws {
        let needed = rows.reduce(0) { max($0, $1.tombstone?.count ?? 0) }
        let existing = try tombstoneColumnCount(on: connection)
        for index in existing..<max(existing, needed) {
            try connection.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(index) BLOB")
        }
        for (offset, row) in rows.enumerated() {
            guard let values = row.tombstone, !values.isEmpty else { continue }
            let assignments = values.indices.map { "ZTOMBSTONE\($0) = ?" }.joined(separator: ", ")
            try connection.run("UPDATE ACHANGE SET \(assignments) WHERE Z_PK = ?", values + [.integer(firstKey + Int64(offset))])
        }
    }

    /// The table of how far each consumer has read (`markHistoryRead(through:byConsumer:)`):
    /// OpenCoreData's own, beside Core Data's tables, which Core Data leaves alone.
    package static let consumerTable = "OCD_HISTORYCONSUMER"

    static func setConsumer(_ name: String, readThrough number: Int64, on connection: SQLiteConnection) throws {
        try connection.execute("CREATE TABLE IF NOT EXISTS \(consumerTable) (ZNAME VARCHAR PRIMARY KEY, ZTRANSACTION INTEGER)")
        try connection.run("INSERT OR REPLACE INTO \(consumerTable) (ZNAME, ZTRANSACTION) VALUES (?, ?)", [.text(name), .integer(number)])
    }

    static func consumers(on connection: SQLiteConnection) throws -> [String: Int64] {
        guard try connection.tableExists(consumerTable) else { return [:] }
        var consumers: [String: Int64] = [:]
        for row in try connection.rows("SELECT ZNAME, ZTRANSACTION FROM \(consumerTable)") {
            if let name = row[0].stringValue, let number = row[1].int64Value { consumers[name] = number }
        }
        return consumers
    }

    /// The key of `name` in `ATRANSACTIONSTRING`, added when it is not there yet.
    static func stringKey(_ name: String, on connection: SQLiteConnection) throws -> Int64 {
        let lookup = try connection.cachedStatement("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?")
        try lookup.bind(name, at: 1)
        let found = try lookup.step() ? lookup.int64(at: 0) : nil
        lookup.reset()
        if let found { return found }
        let key = try allocateKeys(1, of: stringEntity, on: connection)
        try connection.run("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (?, ?, ?)",
                           [.integer(key), .integer(stringEntity), .text(name)])
        return key
    }

    /// Every string, by key.
    static func strings(on connection: SQLiteConnection) throws -> [Int64: String] {
        var strings: [Int64: String] = [:]
        for row in try connection.rows("SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING") {
            if let key = row[0].int64Value, let name = row[1].stringValue { strings[key] = name }
        }
        return strings
    }
}
