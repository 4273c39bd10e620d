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
}
