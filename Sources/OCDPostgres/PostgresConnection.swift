import CLibPQ
import Foundation
import OCDSQL

/// One connection to a PostgreSQL server, over libpq: statements with bound arguments in
/// PostgreSQL's binary format, each prepared once and reused; transactions; batches of
/// statements sent in one round trip (libpq's pipeline mode).
///
/// ```swift
/// let connection = try PostgresConnection(url: "postgresql:///shop?host=/tmp/pg")
/// try connection.execute("CREATE TABLE t (id bigint, name text)")
/// try connection.run("INSERT INTO t VALUES (?, ?)", [1, "Ada"])
/// let result = try connection.query("SELECT name FROM t WHERE id = ?", [1])
/// print(result.string(0, 0)!)   // Ada
/// ```
/// Parameters are written `?`, as in the SQLite layer, and numbered for PostgreSQL. Errors name
/// the server and the database (`PostgresError`). A connection is used by one thread at a time.
public final class PostgresConnection {
    private var handle: OpaquePointer
    /// The server, as errors name it: `host:port`, or the folder of the Unix socket.
    public let server: String
    /// The database.
    public let database: String
    /// The server and database as messages name them: `database "shop" on /tmp/pg`.
    public var place: String { "database \"\(database)\" on \(server)" }
    /// The names of the prepared statements, by SQL text and argument types.
    private var prepared: [PreparedKey: String] = [:]
    /// Numbers the prepared statements' names; never reset while the session lasts, so that a
    /// new statement never takes a name the server still has.
    private var nextStatementNumber = 0
    /// At most this many statements are kept prepared: statements of many texts (lists of every
    /// length) are let go all at once beyond it.
    private static let preparedLimit = 1_000
    /// Statements run again whenever the connection is made anew (`reconnect()`, or a reset
    /// after a batch that could not finish): the session's settings.
    public var sessionStatements: [String] = []
    /// Called with each statement's text before it runs (tests and diagnostics).
    public var trace: ((String) -> Void)?
    /// How many times the connection has waited for the server: one per statement run alone,
    /// per statement prepared, and per batch of up to 1,000 pipelined statements.
    public private(set) var roundTrips = 0

    private struct PreparedKey: Hashable {
        let sql: String
        let signature: [UInt8]
    }

    /// Connects to the server and database `url` names (a `postgresql://` URL or any connection
    /// string libpq accepts: `host=/tmp/pg dbname=shop`).
    /// - Throws: `PostgresError` of kind `.invalidURL` when libpq cannot read `url`, or
    ///   `.connectionFailed` naming the server and database when the connection is refused.
    public init(url: String) throws {
        let (server, database) = try Self.place(of: url)
        guard let handle = PQconnectdb(url) else {
            throw PostgresError(kind: .connectionFailed, server: server, database: database, message: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresError(kind: .connectionFailed, server: server, database: database, message: message)
        }
        self.handle = handle
        self.server = server
        self.database = String(cString: PQdb(handle))
        // Notices ("relation … already exists, skipping") are not printed on standard error.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// The server and database a connection string names, for messages, read as libpq reads it.
    public static func place(of url: String) throws -> (server: String, database: String) {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &error) else {
            let message = error.map { String(cString: $0) } ?? "libpq could not read it"
            if let error { PQfreemem(error) }
            let shown = redactingPassword(url)
            throw PostgresError(kind: .invalidURL, server: shown, database: "", message: "\(shown): \(message)")
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        let environment = ProcessInfo.processInfo.environment
        let host = values["host"] ?? values["hostaddr"] ?? environment["PGHOST"] ?? "/var/run/postgresql"
        let port = values["port"] ?? environment["PGPORT"] ?? "5432"
        let user = values["user"] ?? environment["PGUSER"] ?? ProcessInfo.processInfo.userName
        let database = values["dbname"] ?? environment["PGDATABASE"] ?? user
        let server = host.hasPrefix("/") ? (port == "5432" ? host : "\(host) (port \(port))") : "\(host):\(port)"
        return (server, database)
    }

    /// `url` with any password replaced by `***`, for messages.
    static func redactingPassword(_ url: String) -> String {
        var text = url
        // postgresql://user:secret@host/…
        if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
           let colon = text[scheme.upperBound..<at].firstIndex(of: ":") {
            text.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
        // password=secret, as a keyword or a query parameter
        if let range = text.range(of: "password=") {
            let end = text[range.upperBound...].firstIndex { $0 == " " || $0 == "&" } ?? text.endIndex
            text.replaceSubrange(range.upperBound..<end, with: "***")
        }
        return text
    }

    /// Whether the connection is still open (false once the server went away).
    public var isOpen: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether a transaction is open (or failed and not yet rolled back).
    public var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Whether a transaction is open and no statement of it failed (a failed one can only be
    /// rolled back).
    public var isInHealthyTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS
    }

    /// Commits the open transaction, or throws: when none is open, when one of its statements
    /// failed (the server then rolls it back and answers `ROLLBACK`), or when a constraint
    /// checked at commit refuses it. PostgreSQL answers a `COMMIT` without a transaction with
    /// a mere warning: this never reports such a commit as made.
    public func commit() throws {
        guard isInHealthyTransaction else {
            let wasOpen = isInTransaction
            if wasOpen { try? execute("ROLLBACK") }
            throw PostgresError(kind: isOpen ? .statementFailed : .connectionLost, server: server, database: database,
                                message: wasOpen ? "a statement of the transaction failed, so it was rolled back" : "no transaction is open to commit",
                                sql: "COMMIT")
        }
        trace?("COMMIT")
        roundTrips += 1
        let result = PQexec(handle, "COMMIT")
        guard let result, isOpen else {
            if let result { PQclear(result) }
            prepared = [:]
            // The server may have committed before the connection broke: the outcome is unknown.
            throw PostgresError(kind: .connectionLost, server: server, database: database,
                                message: "the connection was lost while the transaction was being committed; whether it was committed is unknown",
                                sql: "COMMIT")
        }
        let checked = try check(PostgresResult(handle: result), sql: "COMMIT")
        let tag = String(cString: PQcmdStatus(checked.handle))
        guard tag == "COMMIT" else {
            throw PostgresError(kind: .statementFailed, server: server, database: database,
                                message: "the server answered \(tag): the transaction was not committed", sql: "COMMIT")
        }
    }

    /// The server's process for this connection (`pg_backend_pid()`).
    public var backendProcessID: Int32 { PQbackendPID(handle) }

    /// Connects again after the connection was lost; prepared statements are made again.
    public func reconnect() throws {
        PQreset(handle)
        prepared = [:]
        guard isOpen else { throw connectionError(.connectionFailed, sql: nil) }
        for statement in sessionStatements { try execute(statement) }
    }

    // MARK: Statements

    /// Runs one or more statements without arguments (DDL, `BEGIN`, `SET`), ignoring any rows.
    public func execute(_ sql: String) throws {
        trace?(sql)
        roundTrips += 1
        guard let result = PQexec(handle, sql) else { throw connectionError(.connectionLost, sql: sql) }
        _ = try check(PostgresResult(handle: result), sql: sql)
    }

    /// Runs `sql` with `arguments` (a `?` for each), prepared once per text and argument types,
    /// and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ arguments: [SQLValue] = []) throws -> PostgresResult {
        try letGoOfPreparedStatementsIfMany()
        let parameters = PostgresParameters(arguments)
        let name = try preparedName(for: sql, parameters)
        trace?(sql)
        roundTrips += 1
        let result = parameters.withLibPQArrays { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
        }
        guard let result else { throw connectionError(.connectionLost, sql: sql) }
        return try check(PostgresResult(handle: result), sql: sql)
    }

    /// Runs `fragment`, and returns its rows.
    @discardableResult
    public func query(_ fragment: SQLFragment) throws -> PostgresResult {
        try query(fragment.text, fragment.arguments)
    }

    /// Runs `sql` with `arguments`, and returns how many rows it changed.
    @discardableResult
    public func run(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int {
        try query(sql, arguments).affectedRows
    }

    /// The first column of the first row, or NULL.
    public func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue {
        let result = try query(sql, arguments)
        return result.rowCount > 0 && result.columnCount > 0 ? result.value(0, 0) : .null
    }

    /// Runs `statements` in one round trip (libpq's pipeline mode), in order, and returns how
    /// many rows each changed. The first failure stops the rest and is thrown; run a batch inside
    /// a transaction for all or nothing.
    public func runBatch(_ statements: [(sql: String, arguments: [SQLValue])]) throws -> [Int] {
        if statements.count <= 1 { return try statements.map { try run($0.sql, $0.arguments) } }
        try letGoOfPreparedStatementsIfMany()
        // Prepared first, outside the pipeline, so that each is sent as one execution.
        let prepared = try statements.map { statement -> (name: String, parameters: PostgresParameters) in
            let parameters = PostgresParameters(statement.arguments)
            return (try preparedName(for: statement.sql, parameters), parameters)
        }
        guard PQenterPipelineMode(handle) == 1 else { throw connectionError(.connectionLost, sql: statements[0].sql) }
        defer {
            // Results left unread (the batch stopped on a broken send): the session cannot go on
            // in pipeline mode, so it is made anew.
            if PQexitPipelineMode(handle) != 1 { try? reconnect() }
        }
        var counts: [Int] = []
        counts.reserveCapacity(statements.count)
        // Results are read every so often: the server stops reading while its results wait to
        // be read, and libpq would then block writing (a deadlock libpq's manual warns of).
        let chunk = 1000
        var start = 0
        while start < statements.count {
            let end = min(start + chunk, statements.count)
            for index in start..<end {
                trace?(statements[index].sql)
                let sent = prepared[index].parameters.withLibPQArrays { values, lengths, formats in
                    PQsendQueryPrepared(handle, prepared[index].name, Int32(prepared[index].parameters.count), values, lengths, formats, 1)
                }
                guard sent == 1 else { throw connectionError(.connectionLost, sql: statements[index].sql) }
            }
            guard PQpipelineSync(handle) == 1 else { throw connectionError(.connectionLost, sql: statements[start].sql) }
            roundTrips += 1
            var failure: Error?
            for index in start..<end {
                // Each statement's result, then the NULL that ends it.
                guard let result = PQgetResult(handle) else { throw connectionError(.connectionLost, sql: statements[index].sql) }
                let wrapped = PostgresResult(handle: result)
                while let extra = PQgetResult(handle) { PQclear(extra) }
                if failure != nil { continue }
                do {
                    counts.append(try check(wrapped, sql: statements[index].sql).affectedRows)
                } catch {
                    failure = error
                }
            }
            // The sync point's own result.
            while let result = PQgetResult(handle) {
                let status = PQresultStatus(result)
                PQclear(result)
                if status == PGRES_PIPELINE_SYNC { break }
            }
            if let failure { throw failure }
            start = end
        }
        return counts
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(isolation: String? = nil, _ body: () throws -> T) throws -> T {
        try execute(isolation.map { "BEGIN ISOLATION LEVEL \($0)" } ?? "BEGIN")
        let value: T
        do {
            value = try body()
        } catch {
            if isOpen { try? execute("ROLLBACK") }
            throw error
        }
        try commit()
        return value
    }

    /// Whether a table (or view) of that name is on the search path.
    public func tableExists(_ name: String) throws -> Bool {
        try scalar("SELECT to_regclass(?) IS NOT NULL", [.text(name)]).int64Value == 1
    }

    // MARK: Notifications

    /// One `NOTIFY` received: its channel, its payload and the server process that sent it.
    public struct Notification: Sendable, Equatable {
        public let channel: String
        public let payload: String
        public let senderProcessID: Int32
    }

    /// Starts listening on `channel` (`LISTEN`).
    public func listen(_ channel: String) throws {
        try execute("LISTEN \(channel)")
    }

    /// The notifications that arrived, waiting up to `timeout` seconds for the first when none
    /// has; empty when the time passed. Throws when the connection is lost.
    public func notifications(waitingUpTo timeout: Double) throws -> [Notification] {
        var received = takeNotifications()
        if !received.isEmpty { return received }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw connectionError(.connectionLost, sql: nil) }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(max(0, timeout * 1000)))
        guard ready > 0 else { return [] }
        guard PQconsumeInput(handle) == 1 else { throw connectionError(.connectionLost, sql: nil) }
        received = takeNotifications()
        return received
    }

    private func takeNotifications() -> [Notification] {
        var received: [Notification] = []
        while let notification = PQnotifies(handle) {
            received.append(Notification(channel: String(cString: notification.pointee.relname),
                                         payload: String(cString: notification.pointee.extra),
                                         senderProcessID: notification.pointee.be_pid))
            PQfreemem(notification)
        }
        return received
    }

    // MARK: Errors

    private func letGoOfPreparedStatementsIfMany() throws {
        guard prepared.count >= Self.preparedLimit else { return }
        try execute("DEALLOCATE ALL")
        prepared = [:]
    }

    private func preparedName(for sql: String, _ parameters: PostgresParameters) throws -> String {
        let key = PreparedKey(sql: sql, signature: parameters.signature)
        if let name = prepared[key] { return name }
        // libpq's protocol numbers parameters with 16 bits.
        guard parameters.count <= 65_535 else {
            throw PostgresError(kind: .statementFailed, server: server, database: database,
                                message: "the statement has \(parameters.count) arguments; PostgreSQL takes at most 65535", sql: sql)
        }
        nextStatementNumber += 1
        let name = "ocd\(nextStatementNumber)"
        let text = SQLFragment.numberingParameters(sql)
        roundTrips += 1
        let result = parameters.types.withUnsafeBufferPointer { types in
            PQprepare(handle, name, text, Int32(parameters.count), types.baseAddress)
        }
        guard let result else { throw connectionError(.connectionLost, sql: sql) }
        _ = try check(PostgresResult(handle: result), sql: sql)
        prepared[key] = name
        return name
    }

    private func check(_ result: PostgresResult, sql: String) throws -> PostgresResult {
        let status = PQresultStatus(result.handle)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return result }
        func field(_ code: UInt8) -> String? {
            PQresultErrorField(result.handle, Int32(code)).map { String(cString: $0) }
        }
        let sqlState = field(UInt8(ascii: "C"))
        let message = field(UInt8(ascii: "M")) ?? String(cString: PQerrorMessage(handle))
        let kind: PostgresError.Kind = isOpen ? .statementFailed : .connectionLost
        if kind == .connectionLost { prepared = [:] }
        throw PostgresError(kind: kind, server: server, database: database, sqlState: sqlState, message: message,
                            detail: field(UInt8(ascii: "D")), sql: sql)
    }

    private func connectionError(_ kind: PostgresError.Kind, sql: String?) -> PostgresError {
        // A session that ended took its prepared statements with it; one that goes on keeps them.
        if !isOpen { prepared = [:] }
        return PostgresError(kind: kind, server: server, database: database, message: String(cString: PQerrorMessage(handle)), sql: sql)
    }
}
