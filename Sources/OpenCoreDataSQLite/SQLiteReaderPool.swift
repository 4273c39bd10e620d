import Foundation
import OCDSQLite
import OpenCoreDataCore

/// One reading connection of a SQLite store, with the fetch statements made for it. Used by one
/// thread at a time: whoever took it from the pool.
final class SQLiteReader {
    let connection: SQLiteConnection
    /// The SQL of recent fetches (see `FetchStatementCache`).
    var fetchStatements = FetchStatementCache()

    init(connection: SQLiteConnection) { self.connection = connection }
}

/// A generation's pin as the pool remembers it, without keeping it alive.
private struct WeakPin {
    weak var pin: SQLitePinnedReader?
}

/// The reading connections of a SQLite store. Under WAL each reader sees the last committed save
/// while the store's one writer connection writes the next one, so a fetch never waits for
/// another context's save. Readers are opened on first need, at most `capacity` of them; a read
/// that finds every one busy waits for the first given back. The most recently used reader is
/// handed out first, so that a single thread keeps reusing one connection's prepared statements.
final class SQLiteReaderPool: @unchecked Sendable {
    // @unchecked Sendable: `idle`, `opened` and `isClosed` are used only under `condition`; a
    // reader is used only by the thread that took it, until it gives it back.

    /// How many readers a store opens at most.
    static let defaultCapacity = 4

    let capacity: Int
    private let open: () throws -> SQLiteConnection
    private let closedError: () -> Error
    private let condition = NSCondition()
    private var idle: [SQLiteReader] = []
    private var opened = 0
    /// Readers kept by query generations (`takeForPin(for:)`), counted apart from `capacity`.
    private var pinned = 0
    /// The generations' pins holding them, to let go of when the pool closes.
    private var pins: [WeakPin] = []
    private var isClosed = false

    /// A pool whose readers `open` makes; once closed, reads throw `closedError()`.
    init(capacity: Int = defaultCapacity, open: @escaping () throws -> SQLiteConnection, closedError: @escaping () -> Error) {
        self.capacity = max(1, capacity)
        self.open = open
        self.closedError = closedError
    }

    /// Runs `body` with a reader of its own.
    @inline(__always)
    func withReader<Result>(_ body: (SQLiteReader) throws -> Result) throws -> Result {
        let reader = try take()
        defer { giveBack(reader) }
        return try body(reader)
    }

    /// A reader kept for a query generation, for as long as the generation lasts: an idle one,
    /// or a new one beyond the capacity, so that pinned contexts never starve the others' reads.
    /// Give it back with `giveBackPinned(_:)`.
    func takeForPin(for pin: SQLitePinnedReader) throws -> SQLiteReader {
        condition.lock()
        if isClosed {
            condition.unlock()
            throw closedError()
        }
        pinned += 1
        pins.append(WeakPin(pin: pin))
        if let reader = idle.popLast() {
            condition.unlock()
            return reader
        }
        opened += 1
        condition.unlock()
        do {
            return SQLiteReader(connection: try open())
        } catch {
            condition.withLock {
                opened -= 1
                pinned -= 1
                pins.removeAll { $0.pin === pin || $0.pin == nil }
                condition.signal()
            }
            throw error
        }
    }

    /// Gives back a reader `takeForPin(for:)` took (its read transaction ended): it joins the
    /// idle readers while the pool is within its capacity, and is closed otherwise.
    func giveBackPinned(_ reader: SQLiteReader, of pin: SQLitePinnedReader) {
        condition.lock()
        pinned -= 1
        pins.removeAll { $0.pin === pin || $0.pin == nil }
        if !isClosed && opened - pinned <= capacity {
            idle.append(reader)
        } else {
            opened -= 1
        }
        condition.signal()
        condition.unlock()
    }

    /// Closes the idle readers and refuses further reads; readers in use close when given back.
    /// Pinned readers (query generations) end their read transactions and close now, so that
    /// nothing keeps the file open once its store is removed.
    func close() {
        condition.lock()
        isClosed = true
        idle.removeAll()
        let holding = pins.compactMap(\.pin)
        condition.broadcast()
        condition.unlock()
        // Outside the pool's lock: a pin takes its own lock first, then the pool's.
        for pin in holding { pin.release() }
    }

    /// Runs `body` on each idle reader (none is in use meanwhile).
    func forEachIdle(_ body: (SQLiteReader) -> Void) {
        condition.lock()
        defer { condition.unlock() }
        for reader in idle { body(reader) }
    }

    /// The error reads get once the pool is closed (its store removed), nil while it is open.
    var closedRefusal: Error? {
        condition.withLock { isClosed ? closedError() : nil }
    }

    /// The number of readers opened so far.
    var openedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return opened
    }

    private func take() throws -> SQLiteReader {
        condition.lock()
        while true {
            if isClosed {
                condition.unlock()
                throw closedError()
            }
            if let reader = idle.popLast() {
                condition.unlock()
                return reader
            }
            if opened - pinned < capacity {
                opened += 1
                condition.unlock()
                return try openReader()
            }
            condition.wait()
        }
    }

    /// Opens a new reader, outside the lock (opening reads the file); a failure gives its place back.
    private func openReader() throws -> SQLiteReader {
        do {
            return SQLiteReader(connection: try open())
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ reader: SQLiteReader) {
        condition.lock()
        if !isClosed { idle.append(reader) }
        condition.signal()
        condition.unlock()
    }
}
