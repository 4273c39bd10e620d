import Foundation

/// The saved state of one object as a store knows it: its identity, its attribute values, its
/// to-one references and its version. Immutable and shared: an object's values start as the
/// snapshot's array and are copied only when the object is changed.
///
/// A snapshot names its row by key, entity and store rather than by an `NSManagedObjectID`:
/// most fetched objects are read and let go without anyone asking for their ID, so the ID
/// object is made only when asked for (see `objectID`, and `NSManagedObject.objectID`, which
/// keeps the one it made).
///
/// `@usableFromInline`, as `PrimitiveValue`: the members of a plain package type are never
/// inlined into another module, whatever their attributes, and the SQLite store makes one
/// snapshot per row it reads.
@usableFromInline package struct RowSnapshot: Sendable {
    /// The row's key in its store (`Z_PK` in the SQLite store).
    @usableFromInline package let primaryKey: Int64
    /// The row's own entity (not its table's root).
    @usableFromInline package let entity: NSEntityDescription
    @usableFromInline package let store: NSPersistentStore
    /// `ObjectIdentifier(entity.rootEntity)`: keys are unique per inheritance tree of a store.
    @usableFromInline package let rootIdentity: ObjectIdentifier
    /// The optimistic-locking version (`Z_OPT`): 1 for a newly saved row, +1 on every update.
    @usableFromInline package let version: Int64
    /// Attribute values by attribute slot; transient attributes are `.null`.
    @usableFromInline package let values: [PrimitiveValue]
    /// To-one destinations by relationship slot; nil for to-many slots and for empty to-ones.
    @usableFromInline package let toOne: [NSManagedObjectID?]
    /// When the row was read from (or written to) its store, on `SnapshotClock`: what
    /// `NSManagedObjectContext.stalenessInterval` is measured against. Taken once per statement
    /// or save by whoever makes the snapshots, not once per row.
    @usableFromInline package let readAt: UInt64

    // Inlinable: the SQLite store makes one per row it reads, from another module.
    @inlinable
    package init(primaryKey: Int64, entity: NSEntityDescription, store: NSPersistentStore, rootIdentity: ObjectIdentifier,
                 version: Int64, values: [PrimitiveValue], toOne: [NSManagedObjectID?], readAt: UInt64) {
        self.primaryKey = primaryKey
        self.entity = entity
        self.store = store
        self.rootIdentity = rootIdentity
        self.version = version
        self.values = values
        self.toOne = toOne
        self.readAt = readAt
    }

    /// The snapshot of the row `objectID` names, which must be permanent.
    package init(objectID: NSManagedObjectID, version: Int64, values: [PrimitiveValue], toOne: [NSManagedObjectID?], readAt: UInt64) {
        guard let primaryKey = objectID.primaryKey, let store = objectID.persistentStore else {
            preconditionFailure("A snapshot needs a permanent object ID, not \(objectID)")
        }
        self.init(primaryKey: primaryKey, entity: objectID.entity, store: store, rootIdentity: objectID.rootIdentity,
                  version: version, values: values, toOne: toOne, readAt: readAt)
    }

    /// The row's object ID: a new ID object on every call, equal to the others.
    package var objectID: NSManagedObjectID {
        NSManagedObjectID(entity: entity, store: store, primaryKey: primaryKey, rootIdentity: rootIdentity)
    }

    /// Whether the row is older than `interval` seconds (a negative interval allows any age).
    func isStale(after interval: TimeInterval) -> Bool {
        interval >= 0 && Double(SnapshotClock.now() &- readAt) / 1e9 > interval
    }
}

/// A monotonic clock in nanoseconds for the age of snapshots.
package enum SnapshotClock {
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
