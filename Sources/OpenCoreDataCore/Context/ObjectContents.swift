/// Everything a managed object holds besides its identity (entity, context, ID): its flags, its
/// values, its relationships and its saved state, as one value.
///
/// Undo, merges, refreshes and saves capture and restore an object's state; keeping it in one
/// value with one set of wholesale writers — the transitions below, each building the whole
/// value and so naming every field — means that no path can reset some fields and forget the
/// others. Flags and single values are still changed in place by the code that owns them (a
/// setter marks the object updated and writes one slot).
struct ObjectContents {
    /// The object's flags.
    var state: ObjectState
    /// The last saved state (nil for an object never saved). Its arrays are shared with `values`
    /// until the object changes.
    var snapshot: RowSnapshot?
    /// Current attribute values by slot; meaningful once the object is not a fault.
    var values: [PrimitiveValue]
    /// Which attribute slots may differ from the snapshot: bit n for slot n, bit 63 for every
    /// slot from 63 on. Set by every write of a value, cleared when the values are the snapshot's
    /// again; a save compares only these slots instead of every attribute.
    var changedAttributeMask: UInt64
    /// Relationship states by slot; empty until a relationship is touched.
    var relations: [RelationshipState]
    /// The batched fetch this fault came from, and its position there (see `FaultBatch`).
    var faultBatch: (batch: FaultBatch, index: Int)?
    /// Values `setValue(_:forKey:)` could not accept, reported at validation (key → reason).
    var rejectedValues: [String: String]

    /// The key of `rejectedValues` under which an unreadable object keeps its reason.
    static let unreadableKey = ""

    // MARK: Transitions

    /// An object made in no context: nothing yet, its defaults to be set on first use.
    static var detached: ObjectContents {
        ObjectContents(state: .needsDefaultValues, snapshot: nil, values: [], changedAttributeMask: 0,
                       relations: [], faultBatch: nil, rejectedValues: [:])
    }

    /// A detached object that its context makes a fault of one of its rows: only the flags
    /// change, since a detached value holds nothing else yet. (Not a whole new value: this
    /// runs for every object a fetch makes, and replacing the value costs a release of each
    /// empty field.)
    /// An application's subclass may have touched the object in its initializer (reading
    /// defaults, setting a relationship): then the whole value is replaced.
    mutating func enterFaultFromDetached() {
        if values.isEmpty && relations.isEmpty && rejectedValues.isEmpty, case .none = snapshot {
            state = .fault
        } else {
            self = ObjectContents(state: .fault, snapshot: nil, values: [], changedAttributeMask: 0,
                                  relations: [], faultBatch: nil, rejectedValues: [:])
        }
    }

    /// A new object with `defaults`: inserted, no saved state, nothing changed yet. Its
    /// relationships and refused values stay (a new object has none of either), and so does a
    /// batch it was a fault of.
    mutating func enterNew(defaults: [PrimitiveValue]) {
        self = ObjectContents(state: [.inserted], snapshot: nil, values: defaults,
                              changedAttributeMask: 0, relations: take(&relations),
                              faultBatch: faultBatch, rejectedValues: take(&rejectedValues))
    }

    /// A fault of `snapshot` (nil: to be read from the store when fired): no values, no
    /// relationships, nothing refused, not changed (its next change is a first change again,
    /// announced even in the current event). Its other flags stay (none with
    /// `clearingFlags`, as after a rollback), and so does the batch it may load with.
    mutating func enterFault(of snapshot: RowSnapshot?, clearingFlags: Bool = false) {
        self = ObjectContents(state: clearingFlags ? .fault : state.union(.fault).subtracting([.updated, .changedInEvent]),
                              snapshot: snapshot, values: [], changedAttributeMask: 0,
                              relations: [], faultBatch: faultBatch, rejectedValues: [:])
    }

    /// A fired fault, holding `values` (its snapshot's): no longer a fault, nothing changed,
    /// its batch done with. Its other flags, snapshot, relationships and refused values stay.
    mutating func fill(with values: [PrimitiveValue]) {
        // In place rather than a whole new value: this runs once per object read from a store,
        // and rebuilding the value there measured slower; the fields it keeps are listed above.
        state.remove(.fault)
        changedAttributeMask = 0
        faultBatch = nil
        self.values = values
    }

    /// A detached object (or one that left its context unread) on first use: it holds its
    /// entity's `defaults`. Its other flags and fields stay.
    mutating func fillWithDefaults(_ defaults: [PrimitiveValue]) {
        values = defaults
        state.remove(.needsDefaultValues)
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

    /// A saved object: `snapshot` is what is stored now, nothing differs from it, no flags.
    /// Its values, relationships (committed separately, `markRelationshipsCommitted()`) and
    /// refused values stay.
    mutating func commit(_ snapshot: RowSnapshot?) {
        self = ObjectContents(state: [], snapshot: snapshot, values: take(&values),
                              changedAttributeMask: 0, relations: take(&relations),
                              faultBatch: faultBatch, rejectedValues: take(&rejectedValues))
    }

    /// An object leaving its context (saved as deleted, merged away, undone, rolled back): no
    /// flags, except that a fault, whose values were never read, reads its defaults from then
    /// on. Everything else stays, so that undo and redo can bring it back as it was.
    mutating func leaveContext() {
        state = state.contains(.fault) || state.contains(.needsDefaultValues) ? .needsDefaultValues : []
    }

    /// An object brought back into a context by undo or redo: a new object again, with the
    /// values, relationships and saved state it had. One that left as an unread fault still
    /// reads its defaults on first use.
    mutating func comeBack() {
        state = ObjectState.inserted.union(state.intersection(.needsDefaultValues))
    }

    /// An object whose save is retried by a merge policy: `latest` is the row as the store
    /// holds it now, which the save expects; `values` are what the policy chose, any of which
    /// may differ from the row. Flags, relationships and refused values stay.
    mutating func rebase(on latest: RowSnapshot, values: [PrimitiveValue]) {
        snapshot = latest
        self.values = values
        changedAttributeMask = ~0
    }

}

/// Moves `value` out of its place (leaving an empty one), so that building a new value from
/// it does not copy its storage.
@inline(__always)
private func take<Element>(_ value: inout [Element]) -> [Element] {
    var taken: [Element] = []
    swap(&taken, &value)
    return taken
}

@inline(__always)
private func take<Key, Value>(_ value: inout [Key: Value]) -> [Key: Value] {
    var taken: [Key: Value] = [:]
    swap(&taken, &value)
    return taken
}

/// The state flags of an object.
struct ObjectState: OptionSet {
    let rawValue: UInt16
    static let inserted = ObjectState(rawValue: 1 << 0)
    static let updated = ObjectState(rawValue: 1 << 1)
    static let deleted = ObjectState(rawValue: 1 << 2)
    static let fault = ObjectState(rawValue: 1 << 3)
    /// Delete rules have run for this deleted object.
    static let deletionPropagated = ObjectState(rawValue: 1 << 4)
    /// Changes are not tracked (during awakeFromFetch and while the store's values are applied).
    static let trackingSuspended = ObjectState(rawValue: 1 << 5)
    /// The row is gone from the store: properties read as nil.
    static let inaccessible = ObjectState(rawValue: 1 << 6)
    /// The object is in the context's list of inserted / updated / deleted candidates (ChangeList).
    static let listedInserted = ObjectState(rawValue: 1 << 7)
    static let listedUpdated = ObjectState(rawValue: 1 << 8)
    static let listedDeleted = ObjectState(rawValue: 1 << 9)
    static let listed: ObjectState = [.listedInserted, .listedUpdated, .listedDeleted]
    /// A probe object: its `@Managed` accessors report which property they use (ManagedPropertyProbe).
    static let probe = ObjectState(rawValue: 1 << 10)
    /// An object made in no context, or a fault that left its context unread: its values are
    /// still to be set to the entity's defaults (`willAccess`).
    static let needsDefaultValues = ObjectState(rawValue: 1 << 11)
    /// The object is in the context's lists of the current change event (`eventInserted` or
    /// `eventUpdated`): further changes before `processPendingChanges()` need no notice.
    static let changedInEvent = ObjectState(rawValue: 1 << 12)
}
