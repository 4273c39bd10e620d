import Foundation
import OCDPostgres
import OpenCoreDataCore

/// The connections a PostgreSQL store reads on, so that fetches and faults run in parallel with
/// each other and with a save being written (each reads the last commit). At most `capacity`
/// are open; a read that finds them all busy waits for one. A connection the server dropped is
/// closed when its read ends, and a new one is made when next needed.
final class PostgresReaderPool: @unchecked Sendable {
    // @unchecked Sendable: `idle`, `opened` and `closed` are used only under `condition`; each
    // connection is used by one read at a time, between its check-out and its check-in.
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var opened = 0
    private var closed = false
    let capacity: Int
    private let connect: () throws -> PostgresConnection
    private let closedError: () -> Error

    /// The number of readers unless `NSPersistentStoreConnectionPoolMaxSizeKey` says otherwise.
    static let defaultCapacity = 4

    init(capacity: Int, connect: @escaping () throws -> PostgresConnection, closedError: @escaping () -> Error) {
        self.capacity = max(1, capacity)
        self.connect = connect
        self.closedError = closedError
    }

    /// Runs `body` on a reader of its own.
    func withConnection<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// How many readers are open now (idle or reading).
    var openCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return opened
    }

    /// Closes the idle readers, and the others as their reads end; later reads throw.
    func close() {
        condition.lock()
        closed = true
        idle = []
        opened = 0
        condition.broadcast()
        condition.unlock()
    }

    private func checkOut() throws -> PostgresConnection {
        condition.lock()
        while true {
            if closed {
                condition.unlock()
                throw closedError()
            }
            if let connection = idle.popLast() {
                condition.unlock()
                return connection
            }
            if opened < capacity { break }
            condition.wait()
        }
        opened += 1
        condition.unlock()
        // Connected outside the lock: other reads go on meanwhile.
        do {
            return try connect()
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func checkIn(_ connection: PostgresConnection) {
        condition.lock()
        defer { condition.unlock() }
        if closed { return }
        if connection.isOpen && !connection.isInTransaction {
            idle.append(connection)
        } else {
            opened -= 1
        }
        condition.signal()
    }
}
