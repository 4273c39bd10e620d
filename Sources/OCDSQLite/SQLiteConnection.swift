import CSQLite
import Foundation

/// One connection to a SQLite database file.
///
/// ```swift
/// let connection = try SQLiteConnection(path: "/tmp/app.sqlite")
/// try connection.execute("CREATE TABLE t (a INTEGER)")
/// try connection.transaction {
///     let insert = try connection.cachedStatement("INSERT INTO t VALUES (?)")
///     try insert.bind(1, at: 1)
///     try insert.run()
/// }
/// ```
/// A connection is used by one thread at a time; the caller serializes access (SQLite is opened
/// with `SQLITE_OPEN_NOMUTEX`, so SQLite itself does not).
public final class SQLiteConnection {
    /// How a connection opens its file.
    public struct Configuration: Sendable {
        /// Open without write access; the file must exist.
        public var readOnly = false
        /// Create the file when it is missing.
        public var createIfMissing = true
        /// `journal_mode=WAL` (the default for Core Data stores since iOS 7).
        public var walMode = true
        /// `synchronous`: `NORMAL` is durable across application crashes in WAL mode.
        public var synchronous = "NORMAL"
        /// How long to wait for another connection's lock before failing with `SQLITE_BUSY`.
        public var busyTimeoutMilliseconds: Int32 = 5_000
        /// `cache_size` in KiB (as a negative pragma value), or nil for SQLite's default.
        public var cacheSizeKiB: Int? = nil
        /// Open a read-only connection with SQLite's `immutable=1`: no locks, no journal, no
        /// `-wal`/`-shm` files created. Only for files nothing else writes while the connection
        /// is open (SQLite cannot see their changes). Ignored unless `readOnly` is set.
        public var immutable = false
        /// `query_only`: the connection refuses every statement that would write (a reader
        /// beside a writer connection).
        public var queryOnly = false

        public init() {}
    }

    let handle: OpaquePointer
    /// The path the connection was opened with.
    public let path: String
    private var statementCache: [String: SQLiteStatement] = [:]
    private var savepointDepth = 0
    private var traceBox: TraceBox?
    private var progressBox: ProgressBox?
    private var functionBoxes: [FunctionBox] = []
    private var aggregateBoxes: [AggregateBox] = []
    private var collationBoxes: [CollationBox] = []

    /// Opens (and, if allowed, creates) the database at `path`, then applies the configuration.
    ///
    /// Opening does not read the file; the first statement does. So a file that is not a
    /// database is detected by `configure` below, before anything is written to it.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        var flags = SQLITE_OPEN_NOMUTEX
        if configuration.readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if configuration.createIfMissing { flags |= SQLITE_OPEN_CREATE }
        }
        var filename = path
        if configuration.readOnly && configuration.immutable {
            // A URI filename, so that the path's `%`, `?` and `#` must be escaped.
            flags |= SQLITE_OPEN_URI
            filename = "file:" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path) + "?immutable=1"
        }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(filename, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(extendedCode: code, message: "cannot open \(path): \(message)")
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, configuration.busyTimeoutMilliseconds)
        do {
            try configure(configuration)
        } catch {
            statementCache.removeAll()
            sqlite3_close_v2(db)
            throw error
        }
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    private func configure(_ configuration: Configuration) throws {
        // Reading the schema first makes a non-database file fail here, untouched, rather than
        // in a pragma that might try to write a journal next to it.
        try execute("SELECT count(*) FROM sqlite_master")
        if configuration.walMode && !configuration.readOnly {
            try execute("PRAGMA journal_mode=WAL")
        }
        try execute("PRAGMA synchronous=\(configuration.synchronous)")
        if let cache = configuration.cacheSizeKiB {
            try execute("PRAGMA cache_size=-\(cache)")
        }
        if configuration.queryOnly { try execute("PRAGMA query_only=1") }
    }

    // MARK: Statements

    /// Prepares a new statement. Prefer `cachedStatement(_:)` for SQL that runs repeatedly.
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// Returns a prepared statement for `sql`, reset and with cleared bindings, preparing it
    /// once per connection.
    public func cachedStatement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs one or more SQL statements that take no parameters.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// Replaces this connection's main database with a copy of `source`'s, page by page, in one
    /// write transaction of this database (SQLite's online backup): other connections see the
    /// old database or the new one, and a crash leaves one of them. Fails with SQLITE_BUSY when
    /// another connection holds a lock the copy needs.
    public func replaceContents(with source: SQLiteConnection) throws {
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: nil)
        }
        let step = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE, finish == SQLITE_OK else {
            let code = step == SQLITE_DONE ? finish : step
            throw SQLiteError(extendedCode: code, message: String(cString: sqlite3_errstr(code)), sql: nil)
        }
    }

    /// Runs `sql` with `arguments` bound and returns every row as values.
    public func rows(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        var rows: [[SQLiteValue]] = []
        let columns = statement.columnCount
        while try statement.step() {
            rows.append((0..<columns).map { statement.value(at: $0) })
        }
        return rows
    }

    /// Runs `sql` with `arguments` bound, ignoring any rows.
    public func run(_ sql: String, _ arguments: [SQLiteValue] = []) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        try statement.run()
    }

    /// The first column of the first row, or `.null` when there is no row.
    public func scalar(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> SQLiteValue {
        try rows(sql, arguments).first?.first ?? .null
    }

    /// The SQLite library's version as a number (3.40.1 is 3040001).
    public static var libraryVersionNumber: Int32 { sqlite3_libversion_number() }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last inserted row.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// True while a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// True if a table with this name exists (a view is not a table).
    ///
    /// Asked with a statement, not of the schema the connection holds
    /// (`sqlite3_table_column_metadata`): only a statement notices that another connection
    /// changed the schema since this one last read it — beginning a transaction does not.
    public func tableExists(_ name: String) throws -> Bool {
        try scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]).int64Value ?? 0 > 0
    }

    /// The columns of `table`, in their order, with their declared types as written (an empty
    /// string for none); empty when there is no such table.
    public func columns(ofTable table: String) throws -> [(name: String, type: String)] {
        // `PRAGMA table_info` rather than the `pragma_table_info` function: a SELECT of it
        // prepares the pragma again inside, and this is read for every table whenever a store
        // opens.
        try rows("PRAGMA table_info(" + Self.quotedIdentifier(table) + ")").compactMap { row in
            guard row.count > 2, let name = row[1].stringValue else { return nil }
            return (name, row[2].stringValue ?? "")
        }
    }

    /// The names of `table`'s columns, in their order; empty when there is no such table.
    public func columnNames(ofTable table: String) throws -> [String] {
        try columns(ofTable: table).map(\.name)
    }

    /// `name` as an SQL identifier: in double quotes, a double quote in it doubled.
    public static func quotedIdentifier(_ name: String) -> String {
        // Foundation's replacingOccurrences goes through NSString on Linux: tens of microseconds a
        // call, and this runs for every table whenever a store opens.
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        var quoted = "\""
        for character in name.unicodeScalars {
            if character == "\"" { quoted.unicodeScalars.append("\"") }
            quoted.unicodeScalars.append(character)
        }
        return quoted + "\""
    }

    // MARK: Transactions

    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED", immediate = "IMMEDIATE", exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// Nested calls become savepoints.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        if isInTransaction { return try savepoint(body) }
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        do {
            let result = try body()
            try execute("COMMIT TRANSACTION")
            return result
        } catch {
            try? execute("ROLLBACK TRANSACTION")
            throw error
        }
    }

    /// Runs `body` inside a savepoint, released when it returns and rolled back when it throws.
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "ocd_savepoint_\(savepointDepth)"
        try execute("SAVEPOINT \(name)")
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            try? execute("ROLLBACK TO SAVEPOINT \(name)")
            try? execute("RELEASE SAVEPOINT \(name)")
            throw error
        }
    }

    // MARK: Tracing

    /// Calls `observer` with the SQL of every statement as it starts (for tests and debugging).
    /// Pass nil to stop.
    public func trace(_ observer: ((String) -> Void)?) {
        guard let observer else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            traceBox = nil
            return
        }
        let box = TraceBox(observer)
        traceBox = box
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, statement, _ in
            guard let context, let statement else { return 0 }
            let box = Unmanaged<TraceBox>.fromOpaque(context).takeUnretainedValue()
            if let expanded = sqlite3_expanded_sql(OpaquePointer(statement)) {
                box.observer(String(cString: expanded))
                sqlite3_free(expanded)
            }
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
    }

    /// Calls `shouldInterrupt` about every `instructions` virtual-machine steps while a statement
    /// runs; when it returns true, the statement stops with `SQLITE_INTERRUPT`. Nil removes it.
    ///
    /// ```swift
    /// connection.setProgressHandler(every: 10_000) { progress.isCancelled }
    /// ```
    public func setProgressHandler(every instructions: Int32, _ shouldInterrupt: (() -> Bool)?) {
        guard let shouldInterrupt else {
            sqlite3_progress_handler(handle, 0, nil, nil)
            progressBox = nil
            return
        }
        let box = ProgressBox(shouldInterrupt)
        progressBox = box
        sqlite3_progress_handler(handle, instructions, { context in
            guard let context else { return 0 }
            return Unmanaged<ProgressBox>.fromOpaque(context).takeUnretainedValue().shouldInterrupt() ? 1 : 0
        }, Unmanaged.passUnretained(box).toOpaque())
    }

    // MARK: Functions

    /// Registers a scalar SQL function implemented in Swift.
    ///
    /// ```swift
    /// try connection.createFunction("twice", argumentCount: 1) { args in
    ///     .integer((args[0].int64Value ?? 0) * 2)
    /// }
    /// ```
    public func createFunction(_ name: String, argumentCount: Int32, deterministic: Bool = true,
                               _ body: @escaping ([SQLiteValue]) throws -> SQLiteValue) throws {
        let box = FunctionBox(body)
        functionBoxes.append(box)
        var flags = SQLITE_UTF8
        if deterministic { flags |= SQLITE_DETERMINISTIC }
        let code = sqlite3_create_function_v2(handle, name, argumentCount, flags, Unmanaged.passUnretained(box).toOpaque(), { context, count, arguments in
            let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
            var values: [SQLiteValue] = []
            values.reserveCapacity(Int(count))
            for index in 0..<Int(count) {
                values.append(SQLiteValue(sqliteValue: arguments![index]))
            }
            do {
                SQLiteConnection.setResult(try box.body(values), of: context)
            } catch {
                sqlite3_result_error(context, "\(error)", -1)
            }
        }, nil, nil, nil)
        if code != SQLITE_OK { throw lastError(code: code, sql: nil) }
    }

    /// Registers a collation implemented in Swift, for `ORDER BY column COLLATE name` and for
    /// comparisons that name it. `compare` must be a consistent total order, as SQLite requires.
    ///
    /// ```swift
    /// try connection.createCollation("numeric") { $0.compare($1, options: .numeric) }
    /// ```
    public func createCollation(_ name: String, _ compare: @escaping (String, String) -> ComparisonResult) throws {
        let box = CollationBox(compare)
        collationBoxes.append(box)
        let code = sqlite3_create_collation_v2(handle, name, SQLITE_UTF8, Unmanaged.passUnretained(box).toOpaque(), { context, leftCount, left, rightCount, right in
            let box = Unmanaged<CollationBox>.fromOpaque(context!).takeUnretainedValue()
            let leftText = String(decoding: UnsafeRawBufferPointer(start: left, count: Int(leftCount)), as: UTF8.self)
            let rightText = String(decoding: UnsafeRawBufferPointer(start: right, count: Int(rightCount)), as: UTF8.self)
            switch box.compare(leftText, rightText) {
            case .orderedAscending: return -1
            case .orderedSame: return 0
            case .orderedDescending: return 1
            }
        }, nil)
        if code != SQLITE_OK { throw lastError(code: code, sql: nil) }
    }

    /// Registers an aggregate SQL function implemented in Swift: `step` sees each row's
    /// arguments with the group's state (made by `initial` for the group's first row), `final`
    /// turns the state into the result; a group with no rows gets `final(initial())`.
    ///
    /// ```swift
    /// try connection.createAggregateFunction("product", argumentCount: 1, initial: { 1.0 },
    ///     step: { product, args in product *= args[0].doubleValue ?? 1 }, final: { .real($0) })
    /// ```
    public func createAggregateFunction<State>(_ name: String, argumentCount: Int32, initial: @escaping () -> State,
                                               step: @escaping (inout State, [SQLiteValue]) -> Void,
                                               final: @escaping (State) -> SQLiteValue) throws {
        let box = AggregateBox(initial: initial, step: step, final: final)
        aggregateBoxes.append(box)
        let code = sqlite3_create_function_v2(handle, name, argumentCount, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                              Unmanaged.passUnretained(box).toOpaque(), nil, { context, count, arguments in
            let box = Unmanaged<AggregateBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
            var values: [SQLiteValue] = []
            values.reserveCapacity(Int(count))
            for index in 0..<Int(count) { values.append(SQLiteValue(sqliteValue: arguments![index])) }
            // The group's state lives in a Swift object whose pointer SQLite keeps for the group.
            guard let slot = sqlite3_aggregate_context(context, Int32(MemoryLayout<UnsafeMutableRawPointer?>.size))?
                .assumingMemoryBound(to: UnsafeMutableRawPointer?.self) else {
                sqlite3_result_error_nomem(context)
                return
            }
            if slot.pointee == nil { slot.pointee = box.makeState() }
            box.step(slot.pointee!, values)
        }, { context in
            let box = Unmanaged<AggregateBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
            let slot = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
            let state = slot?.pointee ?? box.makeState()
            SQLiteConnection.setResult(box.finish(state), of: context)
        }, nil)
        if code != SQLITE_OK { throw lastError(code: code, sql: nil) }
    }

    fileprivate static func setResult(_ value: SQLiteValue, of context: OpaquePointer?) {
        switch value {
        case .null: sqlite3_result_null(context)
        case .integer(let value): sqlite3_result_int64(context, value)
        case .real(let value): sqlite3_result_double(context, value)
        case .text(let value): sqlite3_result_text(context, value, -1, csqlite_transient())
        case .blob(let value):
            value.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), csqlite_transient()) }
        }
    }

    func lastError(code: Int32, sql: String?) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        return SQLiteError(extendedCode: extended != 0 ? extended : code, message: message, sql: sql)
    }
}

@available(*, unavailable)
extension SQLiteConnection: Sendable {}

private final class ProgressBox {
    let shouldInterrupt: () -> Bool
    init(_ shouldInterrupt: @escaping () -> Bool) { self.shouldInterrupt = shouldInterrupt }
}

private final class TraceBox {
    let observer: (String) -> Void
    init(_ observer: @escaping (String) -> Void) { self.observer = observer }
}

/// An aggregate function's closures, with its state's type erased for the C callbacks: each
/// group's state is a retained box, passed to SQLite as a raw pointer.
private final class AggregateBox {
    private final class StateBox<State> {
        var value: State
        init(_ value: State) { self.value = value }
    }

    /// A new group state, retained: the pointer SQLite keeps for the group.
    let makeState: () -> UnsafeMutableRawPointer
    let step: (UnsafeMutableRawPointer, [SQLiteValue]) -> Void
    /// The result of a group, releasing its state.
    let finish: (UnsafeMutableRawPointer) -> SQLiteValue

    init<State>(initial: @escaping () -> State, step: @escaping (inout State, [SQLiteValue]) -> Void,
                final: @escaping (State) -> SQLiteValue) {
        makeState = { Unmanaged.passRetained(StateBox(initial())).toOpaque() }
        self.step = { state, values in step(&Unmanaged<StateBox<State>>.fromOpaque(state).takeUnretainedValue().value, values) }
        finish = { state in final(Unmanaged<StateBox<State>>.fromOpaque(state).takeRetainedValue().value) }
    }
}

private final class CollationBox {
    let compare: (String, String) -> ComparisonResult
    init(_ compare: @escaping (String, String) -> ComparisonResult) { self.compare = compare }
}

private final class FunctionBox {
    let body: ([SQLiteValue]) throws -> SQLiteValue
    init(_ body: @escaping ([SQLiteValue]) throws -> SQLiteValue) { self.body = body }
}

extension SQLiteValue {
    init(sqliteValue value: OpaquePointer?) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(value))
            if let text = sqlite3_value_text(value) {
                self = .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            } else {
                self = .text("")
            }
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            if let bytes = sqlite3_value_blob(value) {
                self = .blob(Data(bytes: bytes, count: count))
            } else {
                self = .blob(Data())
            }
        default: self = .null
        }
    }
}
