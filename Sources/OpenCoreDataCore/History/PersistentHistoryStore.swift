import Foundation

/// The history side of the store seam: a store that records persistent history answers these
/// (the SQLite store, in Core Data's `ATRANSACTION`/`ACHANGE` tables).
package protocol PersistentHistoryStore: AnyObject {
    /// Whether the store records history (it was added with `NSPersistentHistoryTrackingKey`).
    var tracksHistory: Bool { get }

    /// The transactions numbered above `number` (all for nil) and written after `date` (any
    /// time for nil), oldest first, with their changes when `includingChanges`.
    func historyTransactions(afterNumber number: Int64?, after date: Date?, includingChanges: Bool) throws
        -> [NSPersistentHistoryTransaction]

    /// Deletes the transactions numbered up to `number` (all for nil) and, for a `date`, up to
    /// the last one written before it, with their changes; returns how many changes went, and
    /// (when asked) the objects they were of.
    func deleteHistory(throughNumber number: Int64?, before date: Date?, reportingObjectIDs: Bool) throws
        -> (count: Int, objectIDs: [NSManagedObjectID])

    /// The number of the last transaction recorded (0 for none), and the number up to which
    /// history has been deleted (0 for none): a token below it has lost history.
    func historyBounds() throws -> (last: Int64, deletedThrough: Int64)

    /// Records that `consumer` has read history through transaction `number`.
    func markHistoryRead(through number: Int64, byConsumer consumer: String) throws

    /// The last transaction each registered consumer has read, by name.
    func historyConsumers() throws -> [String: Int64]

    /// Runs `body`'s reads on one state of the store.
    func readingHistoryConsistently<T>(_ body: () throws -> T) throws -> T
}
