/// The transitions of an object's life — new, fault, filled, inaccessible, unreadable, saved,
/// gone from its context — as the only code that changes its flags, values, relationships and
/// saved state together. Each says what it keeps, so that no path resets some of the fields and
/// forgets the others (undo, merges, refreshes and saves all go through these).
extension NSManagedObject {
    /// A new object with `defaults`: inserted, no saved state, nothing changed yet. Its
    /// relationships and refused values stay (a new object has none of either).
    final func enterNew(defaults: [PrimitiveValue]) {
        values = defaults
        state = [.inserted]
        snapshot = nil
        changedAttributeMask = 0
    }

    /// A fault of `snapshot` (nil: to be read from the store when fired): no values, no
    /// relationships, nothing refused, not changed (its next change is a first change again,
    /// announced even in the current event). Its other flags stay, and so does the batch it
    /// may load with.
    final func enterFault(of snapshot: RowSnapshot?) {
        self.snapshot = snapshot
        values = []
        changedAttributeMask = 0
        relations = []
        rejectedValues = [:]
        state.insert(.fault)
        state.remove([.updated, .changedInEvent])
    }

    /// A fired fault, holding `values` (its snapshot's).
    final func fill(with values: [PrimitiveValue]) {
        state.remove(.fault)
        changedAttributeMask = 0
        self.values = values
    }

    /// A fired fault whose row is gone: it reads nil everywhere and counts as deleted elsewhere.
    final func fillAsInaccessible(attributeCount: Int) {
        fill(with: [PrimitiveValue](repeating: .null, count: attributeCount))
        state.insert(.inaccessible)
    }

    /// A fired fault whose row could not be read: it reads nil, and keeps `reason` under
    /// `unreadableKey` for the save to refuse it with.
    final func fillAsUnreadable(attributeCount: Int, reason: String) {
        fill(with: [PrimitiveValue](repeating: .null, count: attributeCount))
        rejectedValues[Self.unreadableKey] = reason
    }

    /// The key of `rejectedValues` under which an unreadable object keeps its reason.
    static let unreadableKey = ""

    /// A saved object: `snapshot` is what is stored now, nothing differs from it, no flags.
    /// Its relationships are committed separately (`markRelationshipsCommitted()`).
    final func commit(_ snapshot: RowSnapshot?) {
        self.snapshot = snapshot
        changedAttributeMask = 0
        state = []
    }

    /// An object leaving its context (saved as deleted, merged away, undone, rolled back): no
    /// flags, except that a fault, whose values were never read, reads its defaults from then on.
    final func leaveContext() {
        state = state.contains(.fault) || state.contains(.needsDefaultValues) ? .needsDefaultValues : []
    }
}
