import Foundation
import OCDPostgres
import OpenCoreDataCore

/// A PostgreSQL store's side of a query generation: a connection of its own holding a
/// `REPEATABLE READ` transaction open, so that every read through it sees the database as it
/// was when the generation began, whatever any server commits since. Shared by the contexts
/// pinned to the generation, one read at a time.
///
/// The connection is not one of the store's readers (a generation kept for long would take
/// one from every fetch); it is closed when the generation is let go (a context moves on,
/// resets or unpins, its tokens go away) or the store is removed. While it lives, the server
/// keeps the row versions its snapshot may read (VACUUM cannot remove them).
final class PostgresPinnedReader: StoreGenerationPin, @unchecked Sendable {
    // @unchecked Sendable: `connection` is used and changed only under `lock`.
    private let lock = NSLock()
    private var connection: PostgresConnection?
    /// Whether the store was removed: reads then throw its error.
    private let storeRemoved: () -> Error?

    /// Opens the connection and takes its snapshot now (PostgreSQL takes it at the first query,
    /// not at `BEGIN`).
    init(connect: () throws -> PostgresConnection, storeRemoved: @escaping () -> Error?) throws {
        self.storeRemoved = storeRemoved
        let connection = try connect()
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        _ = try connection.scalar("SELECT 1")
        self.connection = connection
    }

    /// Closes the connection (the store is being removed): its snapshot holds back no vacuum
    /// and no lock from then on, and reads through it fail.
    func close() {
        lock.withLock { connection = nil }
    }

    /// Runs `body` on the generation's connection. Throws once the store has been removed, and
    /// when the transaction has ended (the server dropped the connection): reads must not
    /// quietly move on to the newest state.
    func withConnection<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        try lock.withLock {
            if let error = storeRemoved() {
                connection = nil
                throw error
            }
            guard let connection, connection.isOpen, connection.isInHealthyTransaction else {
                throw CoreDataError.make(.persistentStoreOperation,
                                         "The query generation's snapshot has ended (its connection to the server was lost, or a read of it failed): pin the context to a generation again")
            }
            return try body(connection)
        }
    }
}
