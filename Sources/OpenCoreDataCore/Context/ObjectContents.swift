/// Everything a managed object holds besides its entity, its identity and its context: its
/// flags, its values and relationships, the saved state they are compared with, and what it
/// refused. One value, so that code that captures or restores an object's state (undo, merges,
/// refreshes, saves) handles all of it at once, and every change of an object's life — new,
/// fault, filled, saved, unreadable, gone — is one of the transitions below, each saying what it
/// keeps, instead of a set of fields written here and there.
struct ObjectContents {
    var state: ObjectState = []
    /// The last saved state (nil for an object never saved). Its arrays are shared with
    /// `values` until the object changes.
    var snapshot: RowSnapshot?
    /// Current attribute values by slot; meaningful once the object is not a fault.
    var values: [PrimitiveValue] = []
    /// Which attribute slots may differ from the snapshot: bit n for slot n, bit 63 for every
    /// slot from 63 on. Set by every write of a value, cleared when the values are the snapshot's
    /// again; a save compares only these slots instead of every attribute.
    var changedAttributeMask: UInt64 = 0
    /// Relationship states by slot; empty until a relationship is touched.
    var relations: [RelationshipState] = []
    /// The batched fetch this fault came from, and its position there (see `FaultBatch`).
    var faultBatch: (batch: FaultBatch, index: Int)?
    /// Values `setValue(_:forKey:)` could not accept, reported at validation (key → reason).
    var rejectedValues: [String: String] = [:]

    // MARK: Transitions

    /// A new object with `defaults`: inserted, no saved state, nothing changed yet. Its
    /// relationships and refused values stay (a new object has none of either).
    mutating func becomeNew(defaults: [PrimitiveValue]) {
        values = defaults
        state = [.inserted]
        snapshot = nil
        changedAttributeMask = 0
    }

    /// A fault of `snapshot` (nil: to be read from the store when fired): no values, no
    /// relationships, nothing refused, not changed (its next change is a first change again,
    /// announced even in the current event). Its other flags stay, and so does the batch it
    /// may load with.
    mutating func becomeFault(of snapshot: RowSnapshot?) {
        self.snapshot = snapshot
        values = []
        changedAttributeMask = 0
        relations = []
        rejectedValues = [:]
        state.insert(.fault)
        state.remove([.updated, .changedInEvent])
    }

    /// A fired fault, holding `values` (its snapshot's).
    mutating func fill(with values: [PrimitiveValue]) {
        state.remove(.fault)
        changedAttributeMask = 0
        self.values = values
    }

    /// A fired fault whose row is gone: it reads nil everywhere and counts as deleted elsewhere.
    mutating func fillAsInaccessible(attributeCount: Int) {
        fill(with: [PrimitiveValue](repeating: .null, count: attributeCount))
        state.insert(.inaccessible)
    }

    /// A fired fault whose row could not be read: it reads nil, and keeps `reason` under
    /// `unreadableKey` for the save to refuse it with.
    mutating func fillAsUnreadable(attributeCount: Int, reason: String) {
        fill(with: [PrimitiveValue](repeating: .null, count: attributeCount))
        rejectedValues[Self.unreadableKey] = reason
    }

    /// The key of `rejectedValues` under which an unreadable object keeps its reason.
    static let unreadableKey = ""

    /// A saved object: `snapshot` is what is stored now, nothing differs from it, no flags.
    /// Its relationships are committed separately (`markRelationshipsCommitted()`).
    mutating func commit(_ snapshot: RowSnapshot?) {
        self.snapshot = snapshot
        changedAttributeMask = 0
        state = []
    }

    /// An object leaving its context (saved as deleted, merged away, undone, rolled back): no
    /// flags, except that a fault, whose values were never read, reads its defaults from then on.
    mutating func leaveContext() {
        state = state.contains(.fault) || state.contains(.needsDefaultValues) ? .needsDefaultValues : []
    }
}
