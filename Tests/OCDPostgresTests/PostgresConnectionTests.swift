import Foundation
import OCDPostgres
import OCDSQL
import Testing

/// The PostgreSQL layer: values through the binary format both ways, prepared statements reused
/// by argument types, batches in one round trip, transactions, and errors that name the server,
/// the database and the statement.
@Suite(.needsPostgres) struct PostgresConnectionTests {
    @Test func everyValueKindComesBackAsItWasBound() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        try connection.execute("CREATE TABLE t (i bigint, r double precision, s text, b bytea)")
        let rows: [[SQLValue]] = [
            [.integer(.max), .real(1.1), .text("Ådä ✓ 🐘"), .blob(Data([0, 1, 0, 255]))],
            [.integer(.min), .real(-0.0), .text(""), .blob(Data())],
            [.null, .null, .null, .null],
            [.integer(0), .real(.greatestFiniteMagnitude), .text("a'b\"c?d"), .blob(Data(repeating: 7, count: 100_000))],
        ]
        for (index, row) in rows.enumerated() {
            try connection.run("INSERT INTO t VALUES (?, ?, ?, ?)", row)
            #expect(try connection.query("SELECT i, r, s, b FROM t WHERE ctid = (SELECT max(ctid) FROM t)").rows == [row], "row \(index)")
        }
        #expect(try connection.query("SELECT count(*) FROM t").int64(0, 0) == 4)
        let negativeZero = try connection.query("SELECT r FROM t WHERE i = ?", [.integer(.min)]).double(0, 0)
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
    }

    @Test func integersOfEveryWidthAndNumericsReadAsSQLiteWouldHoldThem() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        let result = try connection.query("""
            SELECT 7::int2, -70000::int4, true, 12345678901234567::numeric, 1.5::numeric, -0.0001::numeric,
                   0.00000001::numeric, 123456789.000123::numeric, sum(x), 2.5::float4, 'x'::varchar, NULL::text
            FROM (VALUES (9223372036854775807::bigint), (1::bigint)) AS v(x)
            """)
        #expect(result.rows == [[.integer(7), .integer(-70000), .integer(1), .integer(12345678901234567), .real(1.5), .real(-0.0001),
                                 .real(0.00000001), .real(123456789.000123), .real(9223372036854775808.0), .real(2.5), .text("x"), .null]])
    }

    @Test func aStatementPreparedForIntegersIsNotReusedForReals() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        // Bound as int8 first, then as float8: the second must not read the double's bits as an integer.
        #expect(try connection.scalar("SELECT ? * 2", [.integer(21)]) == .integer(42))
        #expect(try connection.scalar("SELECT ? * 2", [.real(1.25)]) == .real(2.5))
        #expect(try connection.scalar("SELECT ? * 2", [.integer(4)]) == .integer(8))
        #expect(try connection.scalar("SELECT ?::bigint IS NULL", [.null]) == .integer(1))
    }

    @Test func aBatchRunsInOneGoAndStopsAtItsFirstFailure() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY, name text)")
        let inserts = (1...1000).map { (sql: "INSERT INTO t VALUES (?, ?)", arguments: [SQLValue.integer(Int64($0)), .text("n\($0)")]) }
        #expect(try connection.transaction { try connection.runBatch(inserts) } == Array(repeating: 1, count: 1000))
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(1000))

        // The 600th repeats a key: nothing of the batch stays once its transaction rolls back.
        var failing = (1001...1700).map { (sql: "INSERT INTO t VALUES (?, ?)", arguments: [SQLValue.integer(Int64($0)), .text("m")]) }
        failing[599].arguments[0] = .integer(5)
        #expect {
            try connection.transaction { try connection.runBatch(failing) }
        } throws: { error in
            (error as? PostgresError)?.isUniqueViolation == true && (error as? PostgresError)?.sql == "INSERT INTO t VALUES (?, ?)"
        }
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(1000))
        #expect(!connection.isInTransaction)
        #expect(try connection.run("UPDATE t SET name = ? WHERE id <= ?", [.text("x"), .integer(10)]) == 10)
    }

    @Test func aFailedStatementNamesItsStateTheStatementTheServerAndTheDatabase() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        let error = try #require(throws: PostgresError.self) { try connection.query("SELECT * FROM missing_table WHERE x = ?", [1]) }
        #expect(error.isUndefinedTable)
        #expect(error.kind == .statementFailed)
        #expect(error.sql == "SELECT * FROM missing_table WHERE x = ?")
        #expect(error.description.contains("database \"\(connection.database)\" on \(connection.server)"))
        #expect(error.description.contains("missing_table"))
    }

    @Test func aStatementTimeoutIsAnErrorNamingTheStatement() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        try connection.execute("SET statement_timeout = 50")
        let error = try #require(throws: PostgresError.self) { try connection.query("SELECT pg_sleep(5)") }
        #expect(error.isStatementTimeout)
        #expect(error.sql == "SELECT pg_sleep(5)")
        // The connection goes on.
        #expect(try connection.scalar("SELECT 1") == .integer(1))
    }

    @Test func aTransactionThatThrowsLeavesNothing() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        try connection.execute("CREATE TABLE t (id bigint)")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try connection.transaction {
                try connection.run("INSERT INTO t VALUES (1)")
                throw Stop()
            }
        }
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func aLostConnectionIsSaidSoAndReconnects() throws {
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        #expect(try connection.scalar("SELECT ?", [.integer(1)]) == .integer(1))
        let killer = try schema.connect()
        try killer.query("SELECT pg_terminate_backend(?::int4)", [.integer(Int64(connection.backendProcessID))])
        let error = try #require(throws: PostgresError.self) { try connection.query("SELECT ?", [.integer(2)]) }
        #expect(error.isConnectionFailure)
        #expect(!connection.isOpen)
        try connection.reconnect()
        #expect(try connection.scalar("SELECT ?", [.integer(3)]) == .integer(3))
    }

    @Test func aWrongURLOrAMissingServerOrDatabaseIsAClearError() throws {
        let invalid = try #require(throws: PostgresError.self) { try PostgresConnection(url: "postgresql:///shop?nosuchoption=1") }
        #expect(invalid.kind == .invalidURL)

        let noServer = try #require(throws: PostgresError.self) {
            try PostgresConnection(url: "postgresql:///shop?host=/nonexistent/ocd-socket-folder")
        }
        #expect(noServer.kind == .connectionFailed)
        #expect(noServer.description.contains("database \"shop\" on /nonexistent/ocd-socket-folder"))

        let base = PostgresServer.baseURL
        let elsewhere = base + (base.contains("?") ? "&" : "?") + "dbname=ocd_no_such_database"
        let noDatabase = try #require(throws: PostgresError.self) { try PostgresConnection(url: elsewhere) }
        #expect(noDatabase.kind == .connectionFailed)
        #expect(noDatabase.description.contains("ocd_no_such_database"))
    }

    @Test func questionMarksAreNumberedParameters() {
        #expect(SQLFragment.numberingParameters("SELECT a FROM t WHERE b = ? AND c IN (?, ?)") == "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)")
        #expect(SQLFragment.numberingParameters("SELECT 1") == "SELECT 1")
    }
}
