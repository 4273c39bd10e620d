import CSQLite
import Foundation
import OpenCoreDataSQLite

/// The raw SQLite side of workloads W1–W6: the sqlite3 C API called directly, prepared
/// statements reused, one transaction per write phase (see `WORKLOAD.md`).
///
/// Every function opens a fresh database in `directory`, does its setup untimed, and returns the
/// seconds of the timed part. Setup that fills the store (W2–W5) runs on its own connection,
/// which is closed (checkpointing the WAL) before a fresh connection runs the timed part.
enum RawWorkloads {
    /// W1: insert N rows in one transaction with one reused INSERT statement.
    static func w1(directory: URL, n: Int) throws -> Double {
        let db = try RawDatabase.open(in: directory)
        try createItemSchema(db)
        let changesBefore = db.totalChanges
        let seconds = try Stopwatch.time { try insertItems(n: n, into: db) }
        try expect(db.totalChanges - changesBefore == n, "W1", "inserted \(db.totalChanges - changesBefore) rows, expected \(n)")
        return seconds
    }

    /// W2: one SELECT of every row, building an array of N `ItemRow`s.
    static func w2(directory: URL, n: Int) throws -> Double {
        try fillItemStore(in: directory, n: n)
        let db = try RawDatabase.open(in: directory)
        var rows: [ItemRow] = []
        // The checksum is part of the timed work on both sides: the framework side reads every
        // attribute into the same sum.
        let seconds = try Stopwatch.time {
            rows = try fetchAllItems(db)
            BenchSink.consume(ItemRow.checksum(rows))
        }
        try expect(rows.count == n, "W2", "fetched \(rows.count) rows, expected \(n)")
        return seconds
    }

    /// W3: 1,000 executions of one prepared `score BETWEEN ? AND ?` SELECT, building rows.
    static func w3(directory: URL, n: Int) throws -> Double {
        try fillItemStore(in: directory, n: n)
        let db = try RawDatabase.open(in: directory)
        var fetched = 0
        let seconds = try Stopwatch.time { fetched = try rangeFetchItems(db) }
        let expected = BenchData.expectedRangeFetchRows(n: n)
        try expect(fetched == expected, "W3", "fetched \(fetched) rows, expected \(expected)")
        return seconds
    }

    /// W4: one transaction: SELECT id, price of the rows with an even score, then one reused
    /// UPDATE per row setting `price = price * 1.1`.
    static func w4(directory: URL, n: Int) throws -> Double {
        try fillItemStore(in: directory, n: n)
        let db = try RawDatabase.open(in: directory)
        let changesBefore = db.totalChanges
        let seconds = try Stopwatch.time { try updateEvenScorePrices(db) }
        let expected = (n + 1) / 2
        try expect(db.totalChanges - changesBefore == expected, "W4", "updated \(db.totalChanges - changesBefore) rows, expected \(expected)")
        return seconds
    }

    /// W5: one transaction: SELECT the ids of every second row (even rowid), then one reused
    /// DELETE per row.
    static func w5(directory: URL, n: Int) throws -> Double {
        try fillItemStore(in: directory, n: n)
        let db = try RawDatabase.open(in: directory)
        let changesBefore = db.totalChanges
        let seconds = try Stopwatch.time { try deleteEverySecondItem(db) }
        let expected = n / 2
        try expect(db.totalChanges - changesBefore == expected, "W5", "deleted \(db.totalChanges - changesBefore) rows, expected \(expected)")
        return seconds
    }

    /// W6: the owner/pet graph (N is ignored). Timed, in order: insert every owner and pet in
    /// one transaction; one JOIN building the graph and summing pet weights; delete every
    /// owner's pets then the owner, in one transaction. Returns the total of the three phases.
    static func w6(directory: URL, n: Int) throws -> Double {
        let db = try RawDatabase.open(in: directory)
        try createGraphSchema(db)
        let insertSeconds = try Stopwatch.time { try insertGraph(db) }

        var owners: [OwnerRow] = []
        let fetchSeconds = try Stopwatch.time { owners = try fetchGraph(db) }
        try checkGraph(owners)

        let changesBefore = db.totalChanges
        let deleteSeconds = try Stopwatch.time { try deleteGraph(owners, from: db) }
        let expected = BenchData.ownerCount * (1 + BenchData.petsPerOwner)
        try expect(db.totalChanges - changesBefore == expected, "W6", "deleted \(db.totalChanges - changesBefore) rows, expected \(expected)")
        if ProcessInfo.processInfo.environment["OCD_BENCH_PHASES"] != nil {
            FileHandle.standardError.write(Data("W6 raw phases: insert \(insertSeconds) fetch \(fetchSeconds) delete \(deleteSeconds)\n".utf8))
        }
        return insertSeconds + fetchSeconds + deleteSeconds
    }
}

// MARK: - Item workloads

/// One row of the `item` table, every column read.
struct ItemRow {
    let id: Int64
    let name: String
    let score: Int64
    let price: Double
    let created: Date
    let flag: Bool
    let note: String?

    /// The columns, in the order `init(_:)` reads them.
    static let columns = "id, name, score, price, created, flag, note"

    /// Reads the current row of a statement selecting `ItemRow.columns`.
    init(_ statement: RawStatement) {
        id = statement.int64(0)
        name = statement.text(1) ?? ""
        score = statement.int64(2)
        price = statement.double(3)
        created = Date(timeIntervalSinceReferenceDate: statement.double(4))
        flag = statement.int64(5) != 0
        note = statement.text(6)
    }

    /// A cheap checksum touching every field, so that the rows are observably used.
    static func checksum(_ rows: [ItemRow]) -> Int {
        rows.reduce(0) { sum, row in
            sum &+ Int(row.id) &+ row.name.utf8.count &+ Int(row.score) &+ Int(row.price)
                &+ Int(row.created.timeIntervalSinceReferenceDate) &+ (row.flag ? 1 : 0)
                &+ (row.note?.utf8.count ?? 0)
        }
    }
}

extension RawWorkloads {
    /// Creates the `item` table and its score index.
    static func createItemSchema(_ db: RawDatabase) throws {
        try db.execute("""
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, score INTEGER, price REAL,
                              created REAL, flag INTEGER, note TEXT);
            CREATE INDEX item_score ON item(score);
            """)
    }

    /// Untimed setup of W2–W5: a store holding the N rows, its connection closed again.
    static func fillItemStore(in directory: URL, n: Int) throws {
        let db = try RawDatabase.open(in: directory)
        try createItemSchema(db)
        try insertItems(n: n, into: db)
    }

    /// Inserts rows 0..<n (ids 1...n) in one transaction with one reused INSERT.
    static func insertItems(n: Int, into db: RawDatabase) throws {
        try db.transaction {
            let insert = try db.prepare("""
                INSERT INTO item(name, score, price, created, flag, note) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """)
            for i in 0..<n {
                try insert.bind(BenchData.name(i), at: 1)
                try insert.bind(BenchData.score(i), at: 2)
                try insert.bind(BenchData.price(i), at: 3)
                try insert.bind(BenchData.created(i), at: 4)
                try insert.bind(Int64(BenchData.flag(i) ? 1 : 0), at: 5)
                try insert.bind(BenchData.note(i), at: 6)
                try insert.run()
            }
        }
    }

    /// One SELECT of every row.
    static func fetchAllItems(_ db: RawDatabase) throws -> [ItemRow] {
        let select = try db.prepare("SELECT \(ItemRow.columns) FROM item")
        var rows: [ItemRow] = []
        while try select.step() {
            rows.append(ItemRow(select))
        }
        return rows
    }

    /// The W3 range fetches; returns how many rows they read in total.
    static func rangeFetchItems(_ db: RawDatabase) throws -> Int {
        let select = try db.prepare("SELECT \(ItemRow.columns) FROM item WHERE score BETWEEN ?1 AND ?2")
        var fetched = 0
        for k in 0..<BenchData.rangeFetchCount {
            let lo = BenchData.rangeLow(k)
            try select.bind(lo, at: 1)
            try select.bind(lo + 9, at: 2)
            var rows: [ItemRow] = []
            while try select.step() {
                rows.append(ItemRow(select))
            }
            try select.reset()
            fetched += rows.count
            BenchSink.consume(ItemRow.checksum(rows))
        }
        return fetched
    }

    /// W4's transaction: read the targets, then update each one.
    static func updateEvenScorePrices(_ db: RawDatabase) throws {
        try db.transaction {
            let select = try db.prepare("SELECT id, price FROM item WHERE score % 2 = 0")
            var targets: [(id: Int64, price: Double)] = []
            while try select.step() {
                targets.append((select.int64(0), select.double(1)))
            }
            let update = try db.prepare("UPDATE item SET price = ?1 WHERE id = ?2")
            for target in targets {
                try update.bind(target.price * BenchData.priceFactor, at: 1)
                try update.bind(target.id, at: 2)
                try update.run()
            }
        }
    }

    /// W5's transaction: read the ids of every second row, then delete each one.
    static func deleteEverySecondItem(_ db: RawDatabase) throws {
        try db.transaction {
            let select = try db.prepare("SELECT id FROM item WHERE id % 2 = 0")
            var ids: [Int64] = []
            while try select.step() {
                ids.append(select.int64(0))
            }
            let delete = try db.prepare("DELETE FROM item WHERE id = ?1")
            for id in ids {
                try delete.bind(id, at: 1)
                try delete.run()
            }
        }
    }
}

// MARK: - Object graph workload

/// One pet of the W6 graph, as read back.
struct PetRow {
    let id: Int64
    let name: String
    let weight: Double
}

/// One owner of the W6 graph with its pets, as read back.
struct OwnerRow {
    let id: Int64
    let name: String
    var pets: [PetRow]
}

extension RawWorkloads {
    /// Creates the owner/pet tables and the index on `pet.owner`.
    static func createGraphSchema(_ db: RawDatabase) throws {
        try db.execute("""
            CREATE TABLE owner(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE pet(id INTEGER PRIMARY KEY, owner INTEGER REFERENCES owner(id), name TEXT, weight REAL);
            CREATE INDEX pet_owner ON pet(owner);
            """)
    }

    /// Inserts every owner (ids 1...ownerCount) followed by its pets, in one transaction.
    static func insertGraph(_ db: RawDatabase) throws {
        try db.transaction {
            let insertOwner = try db.prepare("INSERT INTO owner(id, name) VALUES (?1, ?2)")
            let insertPet = try db.prepare("INSERT INTO pet(owner, name, weight) VALUES (?1, ?2, ?3)")
            for owner in 0..<BenchData.ownerCount {
                let ownerID = Int64(owner + 1)
                try insertOwner.bind(ownerID, at: 1)
                try insertOwner.bind(BenchData.ownerName(owner), at: 2)
                try insertOwner.run()
                for pet in 0..<BenchData.petsPerOwner {
                    try insertPet.bind(ownerID, at: 1)
                    try insertPet.bind(BenchData.petName(owner: owner, pet: pet), at: 2)
                    try insertPet.bind(BenchData.petWeight(pet: pet), at: 3)
                    try insertPet.run()
                }
            }
        }
    }

    /// One JOIN of owners and pets, grouped into owners with their pets.
    static func fetchGraph(_ db: RawDatabase) throws -> [OwnerRow] {
        let select = try db.prepare("""
            SELECT owner.id, owner.name, pet.id, pet.name, pet.weight
            FROM owner JOIN pet ON pet.owner = owner.id ORDER BY owner.id
            """)
        var owners: [OwnerRow] = []
        while try select.step() {
            let ownerID = select.int64(0)
            if owners.last?.id != ownerID {
                owners.append(OwnerRow(id: ownerID, name: select.text(1) ?? "", pets: []))
            }
            let pet = PetRow(id: select.int64(2), name: select.text(3) ?? "", weight: select.double(4))
            owners[owners.count - 1].pets.append(pet)
        }
        return owners
    }

    /// The sum of every pet's weight across the graph.
    static func totalPetWeight(_ owners: [OwnerRow]) -> Double {
        owners.reduce(0) { sum, owner in owner.pets.reduce(sum) { $0 + $1.weight } }
    }

    /// Checks the fetched graph: every owner present and the pet weights summing as expected.
    static func checkGraph(_ owners: [OwnerRow]) throws {
        try expect(owners.count == BenchData.ownerCount, "W6", "fetched \(owners.count) owners, expected \(BenchData.ownerCount)")
        let total = totalPetWeight(owners)
        try expect(total == BenchData.expectedTotalPetWeight, "W6", "pet weights sum to \(total), expected \(BenchData.expectedTotalPetWeight)")
        BenchSink.consume(Int(total) &+ owners.reduce(0) { $0 &+ $1.name.utf8.count &+ $1.pets.count })
    }

    /// Deletes each owner's pets then the owner (a cascade by hand), in one transaction.
    static func deleteGraph(_ owners: [OwnerRow], from db: RawDatabase) throws {
        try db.transaction {
            let deletePets = try db.prepare("DELETE FROM pet WHERE owner = ?1")
            let deleteOwner = try db.prepare("DELETE FROM owner WHERE id = ?1")
            for owner in owners {
                try deletePets.bind(owner.id, at: 1)
                try deletePets.run()
                try deleteOwner.bind(owner.id, at: 1)
                try deleteOwner.run()
            }
        }
    }

    /// Throws a `BenchCheckError` unless `condition` holds.
    static func expect(_ condition: Bool, _ workload: String, _ detail: @autoclosure () -> String) throws {
        guard condition else { throw BenchCheckError(workload: workload, detail: detail()) }
    }
}

// MARK: - Minimal sqlite3 access

/// An error reported by SQLite on the raw side: the result code, SQLite's message, and what
/// was being done.
struct RawSQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    let context: String

    var description: String {
        "SQLite error \(code) (\(String(cString: sqlite3_errstr(code)))) while \(context): \(message)"
    }
}

/// A sqlite3 connection opened with the benchmark's settings (`journal_mode=WAL`,
/// `synchronous=NORMAL`, `SQLITE_OPEN_NOMUTEX` like the framework's connections). Closed on
/// deinit; `sqlite3_close_v2` defers the close until its statements are finalized.
final class RawDatabase {
    let handle: OpaquePointer

    /// The file name of the raw side's database inside its directory.
    static let fileName = "raw.sqlite"

    /// Opens (creating it if needed) `raw.sqlite` in `directory` and applies the pragmas.
    static func open(in directory: URL) throws -> RawDatabase {
        try RawDatabase(path: directory.appendingPathComponent(fileName).path)
    }

    init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw RawSQLiteError(code: code, message: message, context: "opening \(path)")
        }
        handle = db
        let mode = try queryText("PRAGMA journal_mode=WAL")
        guard mode?.lowercased() == "wal" else {
            throw RawSQLiteError(code: SQLITE_ERROR, message: "journal_mode is \(mode ?? "nil")", context: "enabling WAL on \(path)")
        }
        try execute("PRAGMA synchronous=NORMAL")
        // The page cache the framework's SQLite store gives its connections.
        try execute("PRAGMA cache_size=-\(SQLiteStoreDefaults.pageCacheKiB)")
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// The number of rows changed by INSERT, UPDATE and DELETE since the connection opened.
    var totalChanges: Int { Int(sqlite3_total_changes(handle)) }

    /// Runs one or more SQL statements that return no rows of interest.
    func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard code == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw RawSQLiteError(code: code, message: message, context: "executing \(sql)")
        }
    }

    /// Runs a statement and returns the text of the first column of its first row.
    func queryText(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.text(0) : nil
    }

    /// Prepares a statement for reuse.
    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw error(code, "preparing \(sql)")
        }
        return RawStatement(handle: statement, database: self, sql: sql)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    func transaction(_ body: () throws -> Void) throws {
        try execute("BEGIN IMMEDIATE TRANSACTION")
        do {
            try body()
            try execute("COMMIT TRANSACTION")
        } catch {
            try? execute("ROLLBACK TRANSACTION")
            throw error
        }
    }

    /// The error for result `code`, with the connection's current message.
    func error(_ code: Int32, _ context: String) -> RawSQLiteError {
        RawSQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), context: context)
    }
}

/// A prepared statement, finalized on deinit. Thin wrappers over `sqlite3_bind_*`,
/// `sqlite3_step` and `sqlite3_column_*` that turn every failure into a `RawSQLiteError`.
final class RawStatement {
    let handle: OpaquePointer
    private let database: RawDatabase
    private let sql: String

    fileprivate init(handle: OpaquePointer, database: RawDatabase, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value), "binding parameter \(index)")
    }

    func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, value), "binding parameter \(index)")
    }

    /// Binds text (copied by SQLite), or NULL for nil.
    func bind(_ value: String?, at index: Int32) throws {
        let code: Int32
        if let value {
            code = sqlite3_bind_text(handle, index, value, -1, csqlite_transient())
        } else {
            code = sqlite3_bind_null(handle, index)
        }
        try check(code, "binding parameter \(index)")
    }

    /// Binds a blob (copied by SQLite).
    func bind(_ value: Data, at index: Int32) throws {
        let code = value.withUnsafeBytes { bytes in
            sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), csqlite_transient())
        }
        try check(code, "binding parameter \(index)")
    }

    /// Steps once: true if a row is available, false when done (the statement is then reset).
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return false
        default:
            let error = database.error(code, "running \(sql)")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows, then resets it for the next execution.
    func run() throws {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let error = database.error(code, "running \(sql)")
            sqlite3_reset(handle)
            throw error
        }
        sqlite3_reset(handle)
    }

    /// Resets the statement (after a partial read) so that it can run again.
    func reset() throws {
        try check(sqlite3_reset(handle), "resetting")
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func double(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    /// The column's bytes, copied (empty for NULL).
    func data(_ column: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// The column's text, or nil if it is NULL.
    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    private func check(_ code: Int32, _ context: @autoclosure () -> String) throws {
        guard code == SQLITE_OK else {
            throw database.error(code, "\(context()) of \(sql)")
        }
    }
}
