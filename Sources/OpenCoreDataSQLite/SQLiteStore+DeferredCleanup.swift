import Foundation
import OCDSQLite
import OpenCoreDataCore

extension SQLiteStore {
    /// Runs up to `limit` (nil: every one) of the cleanup tasks a deferred lightweight
    /// migration left (`SQLiteDeferredCleanup`), each in a transaction of its own that also
    /// writes the metadata listing what is left. The tasks are read from the file, so that a
    /// task another process ran is not run again. Returns how many ran.
    func finishDeferredMigrationTasks(limit: Int?) throws -> Int {
        try lock.withLock {
            let connection = try liveConnection()
            // Asked from a save's merge policy or notifications while that save holds the store.
            if writesHeld { throw heldWritesRefusal() }
            guard !isReadOnly, !SQLiteDeferredCleanup.pending(in: storedMetadata).isEmpty else { return 0 }
            var ran = 0
            while limit.map({ ran < $0 }) ?? true {
                // The metadata with what is left, taken once committed; `left` is nil when nothing
                // was waiting after all (another process finished it).
                let (updated, left) = try namingTheFile {
                    try connection.transaction { () throws -> ([String: Any], Int?) in
                        let pending = SQLiteDeferredCleanup.pending(in: try SQLiteMetadataTable.read(from: connection, url: url))
                        guard let task = pending.first else { return (SQLiteDeferredCleanup.metadata(storedMetadata, pending: []), nil) }
                        try task.run(on: connection)
                        let updated = SQLiteDeferredCleanup.metadata(storedMetadata, pending: Array(pending.dropFirst()))
                        try SQLiteMetadataTable.write(updated, uuid: identifier, on: connection, url: url)
                        return (updated, pending.count - 1)
                    }
                }
                storedMetadata = updated
                guard let left else { break }
                metadataNeedsWriting = false
                ran += 1
                if left == 0 { break }
            }
            return ran
        }
    }
}
