import Foundation
import OCDSQLite
import OpenCoreDataCore

/// A SQLite store's side of a query generation: a reader from the store's pool holding a read
/// transaction open, so that under WAL every read through it sees the store as it was when the
/// transaction began, whatever is committed since. Shared by the contexts pinned to the
/// generation, one read at a time.
///
/// While it lives, checkpoints cannot move past its snapshot: the `-wal` file keeps growing
/// until the generation is released (a context moves on, resets or unpins; its tokens go away).
final class SQLitePinnedReader: StoreGenerationPin, @unchecked Sendable {
    // @unchecked Sendable: `reader` is used only under `lock`; `pool` synchronises itself.
    private let lock = NSLock()
    private let reader: SQLiteReader
    private let pool: SQLiteReaderPool

    /// Takes a reader and begins its read transaction, reading once so that its snapshot is
    /// taken now rather than at its first fetch.
    init(pool: SQLiteReaderPool) throws {
        let reader = try pool.takeForPin()
        do {
            try reader.connection.execute("BEGIN DEFERRED TRANSACTION")
            _ = try reader.connection.scalar("SELECT count(*) FROM sqlite_master")
        } catch {
            if reader.connection.isInTransaction { try? reader.connection.execute("ROLLBACK") }
            pool.giveBackPinned(reader)
            throw error
        }
        self.reader = reader
        self.pool = pool
    }

    /// Runs `body` with the pinned reader; throws once the store has been removed.
    func withReader<Result>(_ body: (SQLiteReader) throws -> Result) throws -> Result {
        try lock.withLock {
            if let refusal = pool.closedRefusal { throw refusal }
            return try body(reader)
        }
    }

    deinit {
        // Ending the read transaction lets checkpoints past this snapshot.
        try? reader.connection.execute("ROLLBACK")
        pool.giveBackPinned(reader)
    }
}
