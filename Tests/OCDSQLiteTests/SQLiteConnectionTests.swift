import Foundation
import OCDSQLite
import Testing

/// A fresh directory per test, removed afterwards, so tests can run in parallel.
final class TemporaryDirectory {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-sqlite-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

@Suite struct SQLiteConnectionTests {
    let directory = TemporaryDirectory()

    @Test func valuesRoundTripThroughEveryStorageClass() throws {
        let connection = try SQLiteConnection(path: directory.path("values.sqlite"))
        try connection.execute("CREATE TABLE t (a, b, c, d, e)")
        let blob = Data([0, 1, 2, 255])
        try connection.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [.integer(-7), .real(2.5), .text("héllo"), .blob(blob), .null])
        try connection.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [.integer(Int64.max), .real(0), .text(""), .blob(Data()), .null])
        let rows = try connection.rows("SELECT a, b, c, d, e FROM t ORDER BY rowid")
        #expect(rows[0] == [.integer(-7), .real(2.5), .text("héllo"), .blob(blob), .null])
        #expect(rows[1] == [.integer(Int64.max), .real(0), .text(""), .blob(Data()), .null])
    }

    /// A table whose name holds double quotes and non-ASCII letters is created, listed and read
    /// through the quoted identifier.
    @Test func quotedIdentifierNamesAnyTable() throws {
        #expect(SQLiteConnection.quotedIdentifier("ZITEM") == "\"ZITEM\"")
        #expect(SQLiteConnection.quotedIdentifier("a\"b\"\"c") == "\"a\"\"b\"\"\"\"c\"")
        let connection = try SQLiteConnection(path: directory.path("quoted.sqlite"))
        for name in ["plain", "with \"quotes\"", "épée \"", "\""] {
            let table = SQLiteConnection.quotedIdentifier(name)
            try connection.execute("CREATE TABLE \(table) (\(SQLiteConnection.quotedIdentifier("col\"umn")) TEXT)")
            try connection.run("INSERT INTO \(table) VALUES (?)", [.text(name)])
            #expect(try connection.columnNames(ofTable: name) == ["col\"umn"])
            #expect(try connection.rows("SELECT * FROM \(table)") == [[.text(name)]])
        }
    }

    /// A progress handler that answers true stops the running statement with SQLITE_INTERRUPT;
    /// without one the same statement runs to its end.
    @Test func aProgressHandlerInterruptsALongStatement() throws {
        let connection = try SQLiteConnection(path: directory.path("progress.sqlite"))
        let count = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000) SELECT count(*) FROM n"
        var calls = 0
        connection.setProgressHandler(every: 1_000) {
            calls += 1
            return calls > 3
        }
        let error = try #require(throws: SQLiteError.self) { try connection.scalar(count) }
        #expect(error.primaryCode == 9)  // SQLITE_INTERRUPT
        #expect(calls == 4)
        connection.setProgressHandler(every: 0, nil)
        #expect(try connection.scalar(count).int64Value == 200_000)
    }

    @Test func connectionUsesWALAndNormalSynchronous() throws {
        let connection = try SQLiteConnection(path: directory.path("wal.sqlite"))
        #expect(try connection.scalar("PRAGMA journal_mode") == .text("wal"))
        #expect(try connection.scalar("PRAGMA synchronous") == .integer(1))
    }

    @Test func failingTransactionRollsBackEverything() throws {
        let connection = try SQLiteConnection(path: directory.path("tx.sqlite"))
        try connection.execute("CREATE TABLE t (a INTEGER UNIQUE)")
        #expect(throws: SQLiteError.self) {
            try connection.transaction {
                try connection.run("INSERT INTO t VALUES (1)")
                try connection.run("INSERT INTO t VALUES (1)")
            }
        }
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(0))
        #expect(!connection.isInTransaction)
    }

    @Test func nestedTransactionBecomesSavepoint() throws {
        let connection = try SQLiteConnection(path: directory.path("sp.sqlite"))
        try connection.execute("CREATE TABLE t (a INTEGER)")
        try connection.transaction {
            try connection.run("INSERT INTO t VALUES (1)")
            _ = try? connection.transaction {
                try connection.run("INSERT INTO t VALUES (2)")
                throw SQLiteError(extendedCode: 1, message: "inner failure")
            }
        }
        #expect(try connection.rows("SELECT a FROM t") == [[.integer(1)]])
    }

    @Test func constraintErrorCarriesCodeMessageAndSQL() throws {
        let connection = try SQLiteConnection(path: directory.path("err.sqlite"))
        try connection.execute("CREATE TABLE t (a INTEGER UNIQUE)")
        try connection.run("INSERT INTO t VALUES (1)")
        do {
            try connection.run("INSERT INTO t VALUES (1)")
            Issue.record("expected a constraint error")
        } catch let error as SQLiteError {
            #expect(error.isUniqueConstraintViolation)
            #expect(error.message.contains("UNIQUE"))
            #expect(error.sql == "INSERT INTO t VALUES (1)")
        }
    }

    @Test func syntaxErrorNamesTheSQL() throws {
        let connection = try SQLiteConnection(path: directory.path("syntax.sqlite"))
        let error = #expect(throws: SQLiteError.self) { try connection.prepare("SELEC 1") }
        #expect(error?.sql == "SELEC 1")
        #expect(error?.message.contains("syntax error") == true)
    }

    @Test func fileThatIsNotADatabaseIsRefusedAndLeftUntouched() throws {
        let path = directory.path("notes.txt")
        let original = Data(String(repeating: "not a database at all. ", count: 100).utf8)
        try original.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SQLiteError.self) { try SQLiteConnection(path: path) }
        #expect(error?.isNotADatabase == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// An immutable read-only connection reads a closed WAL database without leaving `-wal` and
    /// `-shm` files beside it (a plain read-only connection leaves both); the path may hold
    /// characters that a URI filename must escape.
    @Test func immutableReadOnlyConnectionCreatesNoFiles() throws {
        let path = directory.path("odd name #1 ?100%.sqlite")
        do {
            let writer = try SQLiteConnection(path: path)
            try writer.execute("CREATE TABLE t (a INTEGER)")
            try writer.run("INSERT INTO t VALUES (42)")
        }
        let files = { try FileManager.default.contentsOfDirectory(atPath: self.directory.url.path).sorted() }
        #expect(try files() == ["odd name #1 ?100%.sqlite"])
        var configuration = SQLiteConnection.Configuration()
        configuration.readOnly = true
        configuration.immutable = true
        do {
            let reader = try SQLiteConnection(path: path, configuration: configuration)
            #expect(try reader.scalar("SELECT a FROM t") == .integer(42))
        }
        #expect(try files() == ["odd name #1 ?100%.sqlite"])
    }

    @Test func cachedStatementIsReusedAndReset() throws {
        let connection = try SQLiteConnection(path: directory.path("cache.sqlite"))
        try connection.execute("CREATE TABLE t (a INTEGER)")
        let first = try connection.cachedStatement("INSERT INTO t VALUES (?)")
        try first.bind(1, at: 1)
        try first.run()
        let second = try connection.cachedStatement("INSERT INTO t VALUES (?)")
        #expect(first === second)
        try second.run()  // bindings were cleared: inserts NULL
        #expect(try connection.rows("SELECT a FROM t ORDER BY rowid") == [[.integer(1)], [.null]])
    }

    @Test func swiftFunctionsAndTracing() throws {
        let connection = try SQLiteConnection(path: directory.path("fn.sqlite"))
        try connection.createFunction("twice", argumentCount: 1) { .integer(($0[0].int64Value ?? 0) * 2) }
        var traced: [String] = []
        connection.trace { traced.append($0) }
        #expect(try connection.scalar("SELECT twice(?)", [.integer(21)]) == .integer(42))
        #expect(traced == ["SELECT twice(21)"])
        connection.trace(nil)
    }

    /// An aggregate in Swift: one state per group, `final` of a fresh state for an empty group,
    /// and every group's state released (an error mid-query still finishes the groups).
    @Test func swiftAggregateFunctions() throws {
        let connection = try SQLiteConnection(path: directory.path("aggregate.sqlite"))
        try connection.createAggregateFunction("product", argumentCount: 1, initial: { 1.0 },
                                               step: { product, arguments in product *= arguments[0].doubleValue ?? 1 },
                                               final: { .real($0) })
        try connection.execute("CREATE TABLE t(g, v); INSERT INTO t VALUES ('a', 2), ('a', 3), ('b', 5), ('b', NULL), ('b', 0.5)")
        #expect(try connection.rows("SELECT g, product(v) FROM t GROUP BY g ORDER BY g")
            == [[.text("a"), .real(6)], [.text("b"), .real(2.5)]])
        #expect(try connection.scalar("SELECT product(v) FROM t WHERE 0") == .real(1))
        #expect(try connection.scalar("SELECT (SELECT product(v) FROM t u WHERE u.g = t.g) FROM t WHERE g = 'a' LIMIT 1") == .real(6))
    }

    /// A collation written in Swift orders `ORDER BY … COLLATE` and decides comparisons that
    /// name it; texts reach it whole, multi-byte characters included.
    @Test func swiftCollations() throws {
        let connection = try SQLiteConnection(path: directory.path("collation.sqlite"))
        try connection.createCollation("bylength") { left, right in
            if left.count != right.count { return left.count < right.count ? .orderedAscending : .orderedDescending }
            return left == right ? .orderedSame : (left < right ? .orderedAscending : .orderedDescending)
        }
        try connection.execute("CREATE TABLE t(s TEXT); INSERT INTO t VALUES ('ccc'), ('a'), ('bb'), ('ü'), ('éé')")
        #expect(try connection.rows("SELECT s FROM t ORDER BY s COLLATE bylength").map { $0[0] }
            == [.text("a"), .text("ü"), .text("bb"), .text("éé"), .text("ccc")])
        #expect(try connection.scalar("SELECT count(*) FROM t WHERE s < 'zz' COLLATE bylength") == .integer(3))
    }

    /// A table is found by its name, a view or a missing name is no table, and the answer
    /// follows the schema as it changes, inside a transaction too, and as another connection
    /// changes it — also in a transaction begun after that change.
    @Test func tableExistsFollowsTheSchema() throws {
        let connection = try SQLiteConnection(path: directory.path("tables.sqlite"))
        #expect(try !connection.tableExists("ZITEM"))
        try connection.execute("CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY); CREATE VIEW ZVIEW AS SELECT * FROM ZITEM")
        #expect(try connection.tableExists("ZITEM"))
        #expect(try !connection.tableExists("ZVIEW"))
        #expect(try !connection.tableExists("ZOTHER"))
        try connection.transaction {
            try connection.execute("ALTER TABLE ZITEM RENAME TO ZOTHER")
            #expect(try connection.tableExists("ZOTHER"))
            #expect(try !connection.tableExists("ZITEM"))
        }
        let other = try SQLiteConnection(path: directory.path("tables.sqlite"))
        try other.execute("CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY)")
        #expect(try connection.tableExists("ATRANSACTION"))
        try other.execute("DROP TABLE ATRANSACTION")
        #expect(try !connection.tableExists("ATRANSACTION"))
        // A transaction begun after another connection changed the schema sees the change.
        try other.execute("CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY)")
        #expect(try connection.transaction { try connection.tableExists("ACHANGE") })
        try other.execute("DROP TABLE ACHANGE")
        #expect(try !connection.transaction(.deferred) { try connection.tableExists("ACHANGE") })
    }

    /// A table's columns come in their order with their declared types (empty for none); a
    /// name holding a double quote is quoted; a missing table has none; a column added later is
    /// read.
    @Test func columnsOfATableAreReadInOrderWithTheirTypes() throws {
        let connection = try SQLiteConnection(path: directory.path("columns.sqlite"))
        try connection.execute(#"CREATE TABLE "Z""ODD" (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR, ZANY)"#)
        let columns = try connection.columns(ofTable: #"Z"ODD"#)
        #expect(columns.map(\.name) == ["Z_PK", "ZNAME", "ZANY"])
        #expect(columns.map(\.type) == ["INTEGER", "VARCHAR", ""])
        #expect(try connection.columns(ofTable: "ZMISSING").isEmpty)
        try connection.execute(#"ALTER TABLE "Z""ODD" ADD COLUMN ZTAG BLOB"#)
        #expect(try connection.columnNames(ofTable: #"Z"ODD"#) == ["Z_PK", "ZNAME", "ZANY", "ZTAG"])
    }
}
