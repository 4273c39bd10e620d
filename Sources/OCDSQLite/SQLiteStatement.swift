import CSQLite
import Foundation

/// A prepared statement: bind parameters (1-based), step through rows, read columns (0-based).
///
/// ```swift
/// let statement = try connection.prepare("SELECT name FROM person WHERE age > ?")
/// try statement.bind(30, at: 1)
/// while try statement.step() { print(statement.string(at: 0) ?? "nil") }
/// ```
/// A statement belongs to its connection and must not outlive it or cross threads.
public final class SQLiteStatement {
    @usableFromInline let handle: OpaquePointer
    /// The SQL text the statement was prepared from.
    public let sql: String
    unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw connection.lastError(code: code, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Number of `?` parameters.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Number of result columns.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of result column `index`.
    public func columnName(at index: Int) -> String {
        String(cString: sqlite3_column_name(handle, Int32(index)))
    }

    // MARK: Binding

    public func bind(_ value: Int64, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), value))
    }

    public func bind(_ value: Int, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), Int64(value)))
    }

    public func bind(_ value: Double, at index: Int) throws {
        try check(sqlite3_bind_double(handle, Int32(index), value))
    }

    public func bind(_ value: Bool, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), value ? 1 : 0))
    }

    public func bind(_ value: String, at index: Int) throws {
        var value = value
        let code = value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                // An empty string must bind as '' rather than NULL, so never pass a nil pointer.
                guard let base = chars.baseAddress else {
                    return sqlite3_bind_text(handle, Int32(index), "", 0, csqlite_transient())
                }
                return sqlite3_bind_text(handle, Int32(index), base, Int32(chars.count), csqlite_transient())
            }
        }
        try check(code)
    }

    public func bind(_ value: Data, at index: Int) throws {
        let code = value.withUnsafeBytes { bytes in
            // A zero-length blob must still bind as a blob, not as NULL.
            sqlite3_bind_blob(handle, Int32(index), bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count),
                              csqlite_transient())
        }
        try check(code)
    }

    public func bindNull(at index: Int) throws {
        try check(sqlite3_bind_null(handle, Int32(index)))
    }

    public func bind(_ value: SQLiteValue, at index: Int) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let value): try bind(value, at: index)
        case .real(let value): try bind(value, at: index)
        case .text(let value): try bind(value, at: index)
        case .blob(let value): try bind(value, at: index)
        }
    }

    /// Binds `values` to parameters 1…n.
    public func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    /// Resets the statement so it can run again, and clears its bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Stepping

    /// Advances to the next row. Returns `true` when a row is available, `false` when done.
    @discardableResult
    public func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.lastError(code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows (or whose rows are ignored), then resets it.
    public func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    // MARK: Columns

    @inlinable
    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    @inlinable
    public func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    @inlinable
    public func double(at index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

    /// The text of column `index`, or nil when it is NULL.
    @inlinable
    public func string(at index: Int) -> String? {
        guard let text = sqlite3_column_text(handle, Int32(index)) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The bytes of column `index`, or nil when it is NULL.
    public func data(at index: Int) -> Data? {
        let column = Int32(index)
        if sqlite3_column_type(handle, column) == SQLITE_NULL { return nil }
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// Column `index` as whatever storage class it has.
    public func value(at index: Int) -> SQLiteValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(string(at: index) ?? "")
        case SQLITE_BLOB: return .blob(data(at: index) ?? Data())
        default: return .null
        }
    }

    private func check(_ code: Int32) throws {
        if code != SQLITE_OK { throw connection.lastError(code: code, sql: sql) }
    }
}

@available(*, unavailable)
extension SQLiteStatement: Sendable {}
