import Foundation

/// The saved state of one object as a store knows it: its attribute values, its to-one
/// references and its version. Immutable and shared: an object's values start as the snapshot's
/// array and are copied only when the object is changed.
struct RowSnapshot: Sendable {
    let objectID: NSManagedObjectID
    /// The optimistic-locking version (`Z_OPT`): 1 for a newly saved row, +1 on every update.
    let version: Int64
    /// Attribute values by attribute slot; transient attributes are `.null`.
    let values: [PrimitiveValue]
    /// To-one destinations by relationship slot; nil for to-many slots and for empty to-ones.
    let toOne: [NSManagedObjectID?]
    /// When the row was read from (or written to) its store, on `SnapshotClock`: what
    /// `NSManagedObjectContext.stalenessInterval` is measured against. Taken once per statement
    /// or save by whoever makes the snapshots, not once per row.
    let readAt: UInt64

    /// Whether the row is older than `interval` seconds (a negative interval allows any age).
    func isStale(after interval: TimeInterval) -> Bool {
        interval >= 0 && Double(SnapshotClock.now() &- readAt) / 1e9 > interval
    }
}

/// A monotonic clock in nanoseconds for the age of snapshots.
enum SnapshotClock {
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
