import Foundation
import OCDSQLite
import OpenCoreDataCore

/// A SQLite store's side of a query generation: a reader from the store's pool holding a read
/// transaction open, so that under WAL every read through it sees the store as it was when the
/// transaction began, whatever is committed since. Shared by the contexts pinned to the
/// generation, one read at a time.
///
/// While it lives, checkpoints cannot move past its snapshot: the `-wal` file keeps growing
/// until the generation is released (a context moves on, resets or unpins; its tokens go away)
/// or the store is removed, which releases it at once.
final class SQLitePinnedReader: StoreGenerationPin, @unchecked Sendable {
    // @unchecked Sendable: `reader` is used and changed only under `lock`; `pool` synchronises
    // itself.
    private let lock = NSLock()
    private var reader: SQLiteReader?
    private let pool: SQLiteReaderPool
    /// Keeps the files of external data its snapshot may name (see `RetiredExternalFiles`).
    private let retired: RetiredExternalFiles
    private let readBegan: Int

    /// Takes a reader and begins its read transaction, reading once so that its snapshot is
    /// taken now rather than at its first fetch.
    init(pool: SQLiteReaderPool, retired: RetiredExternalFiles) throws {
        self.pool = pool
        self.retired = retired
        // Registered before the snapshot is taken, so that no file it names can go first.
        readBegan = retired.beginRead()
        let reader: SQLiteReader
        do {
            reader = try pool.takeForPin(for: self)
        } catch {
            retired.endRead(readBegan)
            throw error
        }
        do {
            try reader.connection.execute("BEGIN DEFERRED TRANSACTION")
            _ = try reader.connection.scalar("SELECT count(*) FROM sqlite_master")
        } catch {
            if reader.connection.isInTransaction { try? reader.connection.execute("ROLLBACK") }
            pool.giveBackPinned(reader, of: self)
            retired.endRead(readBegan)
            throw error
        }
        self.reader = reader
    }

    /// Runs `body` with the pinned reader. Throws once the store has been removed, and when the
    /// read transaction has ended (SQLite ends it on some I/O errors): reads must not quietly
    /// move on to the newest state.
    func withReader<Result>(_ body: (SQLiteReader) throws -> Result) throws -> Result {
        try lock.withLock {
            if let refusal = pool.closedRefusal { throw refusal }
            guard let reader, reader.connection.isInTransaction else {
                throw CoreDataError.make(.persistentStoreOperation,
                                         "The query generation's read transaction has ended: pin the context to a generation again")
            }
            return try body(reader)
        }
    }

    /// Ends the read transaction and gives the reader back (the store is being removed).
    func release() {
        let released: SQLiteReader? = lock.withLock {
            defer { reader = nil }
            return reader
        }
        if let released { giveBack(released) }
    }

    deinit {
        if let reader { giveBack(reader) }
    }

    /// Ending the read transaction lets checkpoints past this snapshot.
    private func giveBack(_ reader: SQLiteReader) {
        try? reader.connection.execute("ROLLBACK")
        pool.giveBackPinned(reader, of: self)
        retired.endRead(readBegan)
    }
}
