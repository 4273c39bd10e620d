import Foundation

/// An error from a PostgreSQL server or from libpq: what failed, where (the server and the
/// database), PostgreSQL's SQLSTATE code when the server sent one, and the statement that failed.
///
/// ```swift
/// do { try connection.run("INSERT INTO t VALUES (1)") }
/// catch let error as PostgresError where error.isUniqueViolation { … }
/// ```
public struct PostgresError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable {
        /// The URL is not a connection string libpq accepts.
        case invalidURL
        /// No connection could be made: the server is not there, refused the credentials, or has
        /// no such database.
        case connectionFailed
        /// The connection broke while a statement ran (the server went away or restarted).
        case connectionLost
        /// The server refused or failed a statement (`sqlState` says why).
        case statementFailed
    }

    public let kind: Kind
    /// The server the connection is (or was to be) made to: a host name and port, or the folder
    /// of a Unix socket.
    public let server: String
    /// The database on that server.
    public let database: String
    /// PostgreSQL's five-character SQLSTATE (`23505` for a unique violation), when the server
    /// sent one.
    public let sqlState: String?
    /// The server's or libpq's message, without its trailing newline.
    public let message: String
    /// The server's detail line, when it sent one.
    public let detail: String?
    /// The SQL being run, when there was one.
    public let sql: String?

    public init(kind: Kind, server: String, database: String, sqlState: String? = nil, message: String,
                detail: String? = nil, sql: String? = nil) {
        self.kind = kind
        self.server = server
        self.database = database
        self.sqlState = sqlState
        self.message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        self.detail = detail
        self.sql = sql
    }

    /// A unique constraint or primary key was violated (23505).
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// The statement ran longer than `statement_timeout` and was cancelled (57014).
    public var isStatementTimeout: Bool { sqlState == "57014" }
    /// A relation the statement names does not exist (42P01).
    public var isUndefinedTable: Bool { sqlState == "42P01" }
    /// The connection is gone: the statement may not have reached the server, and a transaction
    /// it was in was rolled back by the server.
    public var isConnectionFailure: Bool {
        kind == .connectionLost || kind == .connectionFailed || (sqlState?.hasPrefix("08") ?? false)
            || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03"
    }

    /// The server and database as messages name them: `database "shop" on /tmp/pg`.
    public var place: String { "database \"\(database)\" on \(server)" }

    public var description: String {
        var text: String
        switch kind {
        case .invalidURL: text = "Not a PostgreSQL connection URL: \(message)"
        case .connectionFailed: text = "Could not connect to \(place): \(message)"
        case .connectionLost: text = "The connection to \(place) was lost: \(message)"
        case .statementFailed: text = "PostgreSQL error \(sqlState ?? "?") in \(place): \(message)"
        }
        if let detail { text += " (\(detail))" }
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}

extension PostgresError: LocalizedError {
    /// The description, so that `localizedDescription` says what PostgreSQL said.
    public var errorDescription: String? { description }
}
