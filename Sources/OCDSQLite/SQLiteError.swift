import CSQLite
import Foundation

/// An error reported by SQLite: its result code, its message, and the SQL that failed.
///
/// ```swift
/// do { try connection.execute("INSERT INTO t VALUES (1)") }
/// catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT { … }
/// ```
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The extended result code (`sqlite3_extended_errcode`); `primaryCode` is its low byte.
    public let extendedCode: Int32
    /// SQLite's message for the error (`sqlite3_errmsg`), or a message of ours.
    public let message: String
    /// The SQL being prepared or run, when there was one.
    public let sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_NOTADB`, …).
    public var primaryCode: Int32 { extendedCode & 0xFF }

    /// True for a violated UNIQUE or PRIMARY KEY constraint.
    public var isUniqueConstraintViolation: Bool {
        // SQLITE_CONSTRAINT_UNIQUE (2067) and SQLITE_CONSTRAINT_PRIMARYKEY (1555) are macros Swift
        // does not import.
        extendedCode == 2067 || extendedCode == 1555
    }

    /// True when the file is not a SQLite database (or is encrypted, or truncated in its header).
    public var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB }

    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}

extension SQLiteError: LocalizedError {
    /// The description, so that `localizedDescription` says what SQLite said rather than
    /// "The operation could not be completed".
    public var errorDescription: String? { description }
}
