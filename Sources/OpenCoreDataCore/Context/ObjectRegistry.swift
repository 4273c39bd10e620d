/// The objects a context has registered, by permanent object ID: what makes uniquing work (one
/// object per row per context).
///
/// One open-addressing table of primary keys per store and inheritance tree, with linear probing:
/// registering and forgetting objects is on the path of every fetched row, where a
/// general-purpose dictionary keyed by object IDs (SipHash over the ID, generic code) cost more
/// than decoding the row. References are unowned: objects remove themselves when they go away.
struct ObjectRegistry {
    private var tables: [PrimaryKeyTable] = []

    var count: Int { tables.reduce(0) { $0 + $1.count } }

    subscript(id: NSManagedObjectID) -> NSManagedObject? {
        guard let location = id.rowLocation, let index = tableIndex(for: location) else { return nil }
        return tables[index].object(for: location.key)
    }

    /// Where a fetched row's object is registered: the object found at `location`, or the empty
    /// slot to `fill` with a new one. One probe where a lookup and an insert would take two; no
    /// other object may be registered in between (objects going away are allowed).
    mutating func slot(at location: RowLocation) -> Slot {
        let table = tableIndex(for: location) ?? addTable(store: location.store, root: location.root)
        let (index, found) = tables[table].slot(for: location.key)
        return Slot(table: table, index: index, key: location.key, removals: tables[table].removals, object: found?.takeUnretainedValue())
    }

    struct Slot {
        fileprivate let table: Int
        fileprivate let index: Int
        fileprivate let key: Int64
        fileprivate let removals: Int
        let object: NSManagedObject?
    }

    /// Registers `object` in the empty `slot` (looked for again if an object went away since).
    mutating func fill(_ slot: Slot, with object: NSManagedObject) {
        tables[slot.table].fill(slot.index, key: slot.key, with: object, removalsSeen: slot.removals)
    }

    /// Registers `object` under its permanent `id`.
    mutating func insert(_ object: NSManagedObject, for id: NSManagedObjectID) {
        guard let location = id.rowLocation else { return }
        let index = tableIndex(for: location) ?? addTable(store: location.store, root: location.root)
        tables[index].insert(object, for: location.key)
    }

    /// Forgets `id`, if it names `object` (or any object when `object` is nil).
    mutating func remove(_ id: NSManagedObjectID, ifMatching object: NSManagedObject? = nil) {
        guard let location = id.rowLocation else { return }
        remove(location, ifMatching: object)
    }

    /// Forgets the row at `location`, if it names `object` (or any object when `object` is nil).
    mutating func remove(_ location: RowLocation, ifMatching object: NSManagedObject? = nil) {
        guard let index = tableIndex(for: location) else { return }
        tables[index].remove(location.key, ifMatching: object)
    }

    /// Makes room for `additional` more objects in the table of `location`'s store and tree, so
    /// that registering many objects at once (a fetch, a save) does not rebuild it as it fills.
    mutating func reserveCapacity(_ additional: Int, besideRowAt location: RowLocation) {
        let index = tableIndex(for: location) ?? addTable(store: location.store, root: location.root)
        tables[index].reserveCapacity(tables[index].count + additional)
    }

    /// Makes room for objects about to be registered under `ids`, counted per table (a save's
    /// new objects are of several trees). Temporary IDs are left out.
    mutating func reserveCapacity(forObjectsWith ids: [NSManagedObjectID]) {
        var counts: [(location: RowLocation, count: Int)] = []
        for id in ids {
            guard let location = id.rowLocation else { continue }
            // IDs come in runs of one tree: the last entry is the one to count, nearly always.
            if let last = counts.indices.last, counts[last].location.isInTable(of: location) {
                counts[last].count += 1
            } else if let index = counts.firstIndex(where: { $0.location.isInTable(of: location) }) {
                counts[index].count += 1
            } else {
                counts.append((location, 1))
            }
        }
        for (location, count) in counts { reserveCapacity(count, besideRowAt: location) }
    }

    /// Every registered object.
    var objects: [NSManagedObject] { tables.flatMap(\.objects) }

    mutating func removeAll() { tables = [] }

    private func tableIndex(for location: RowLocation) -> Int? {
        // Few tables (one per store and inheritance tree): a scan beats hashing.
        for index in tables.indices where tables[index].root == location.root && tables[index].store == location.store {
            return index
        }
        return nil
    }

    private mutating func addTable(store: ObjectIdentifier, root: ObjectIdentifier) -> Int {
        tables.append(PrimaryKeyTable(store: store, root: root))
        return tables.count - 1
    }
}

/// Where a row lives: its store, its inheritance tree and its key there. What the registry
/// files objects under, read from an object ID or, for a fetched object that has not made its
/// ID yet, from its snapshot. Identities only, so that it touches no reference count.
struct RowLocation {
    let store: ObjectIdentifier
    let root: ObjectIdentifier
    let key: Int64

    /// Whether `other` is registered in the same table: the same store and inheritance tree.
    func isInTable(of other: RowLocation) -> Bool { store == other.store && root == other.root }
}

extension NSManagedObjectID {
    /// Where the row is; nil for a temporary ID.
    var rowLocation: RowLocation? {
        guard let key = primaryKey, let store = storeIdentity else { return nil }
        return RowLocation(store: store, root: rootIdentity, key: key)
    }
}

extension RowSnapshot {
    var rowLocation: RowLocation { RowLocation(store: ObjectIdentifier(store), root: rootIdentity, key: primaryKey) }
}

/// Primary key → object, for one store and inheritance tree. Keys are positive (`Z_PK`), so 0
/// marks an empty slot and -1 a removed one (a tombstone).
///
/// Keys are hashed in runs of eight: consecutive keys, the usual order of fetched rows and of
/// objects going away, share a cache line of keys and one of objects, while the runs themselves
/// are scattered by a multiplicative hash (so that keys beyond the table's size do not pile
/// onto a dense run of small ones, as they would with the identity). Removal leaves a
/// tombstone instead of shifting the rest of the probe run back (with keys in runs, those
/// runs are long, and objects go away one by one) — unless the run ends right after the removed
/// slot, which then becomes empty with the tombstones before it. Tombstones are reused by
/// inserts and cleared when the table is rebuilt.
struct PrimaryKeyTable {
    let store: ObjectIdentifier
    let root: ObjectIdentifier
    private var keys: [Int64]
    private var values: [Unmanaged<NSManagedObject>?]
    private var shift: UInt64
    private(set) var count = 0
    /// Removed slots that still mark a probe run: each has a live entry after it in its run.
    private(set) var tombstones = 0
    /// Counts removals, so that a slot found before one is looked for again (see `fill`).
    private(set) var removals = 0

    private static let empty: Int64 = 0
    private static let removed: Int64 = -1

    init(store: ObjectIdentifier, root: ObjectIdentifier) {
        self.store = store
        self.root = root
        keys = Array(repeating: Self.empty, count: 16)
        values = Array(repeating: nil, count: 16)
        shift = 64 - 4
    }

    private var mask: Int { keys.count - 1 }

    private static let runBits: UInt64 = 3

    @inline(__always)
    private func home(_ key: Int64) -> Int {
        let bits = UInt64(bitPattern: key)
        let run = ((bits >> Self.runBits) &* 0x9E37_79B9_7F4A_7C15) >> (shift + Self.runBits)
        return Int(truncatingIfNeeded: run << Self.runBits | bits & ((1 << Self.runBits) - 1))
    }

    func object(for key: Int64) -> NSManagedObject? {
        var index = home(key)
        while true {
            let found = keys[index]
            if found == key { return values[index]?.takeUnretainedValue() }
            if found == Self.empty { return nil }
            index = (index + 1) & mask
        }
    }

    /// The slot of `key`: where it is, with its object, or the free slot where it would go
    /// (the first tombstone on its probe run, or the empty slot ending it). Makes room first,
    /// so that filling the free slot needs no further growth.
    mutating func slot(for key: Int64) -> (index: Int, object: Unmanaged<NSManagedObject>?) {
        makeRoomForOneMore()
        var index = home(key)
        var firstRemoved: Int?
        while true {
            let found = keys[index]
            if found == key { return (index, values[index]) }
            if found == Self.empty { return (firstRemoved ?? index, nil) }
            if found == Self.removed && firstRemoved == nil { firstRemoved = index }
            index = (index + 1) & mask
        }
    }

    /// Puts `object` under `key` in the free slot `index` found by `slot(for:)`, when no removal
    /// came in between (`removalsSeen` is `removals` as it was then); otherwise it looks for
    /// the slot again, since a removal may have emptied part of the probe run before `index`.
    mutating func fill(_ index: Int, key: Int64, with object: NSManagedObject, removalsSeen: Int) {
        guard removalsSeen == removals else {
            insert(object, for: key)
            return
        }
        fill(index, key: key, with: object)
    }

    /// Puts `object` under `key` in the free slot `index` just found by `slot(for:)`.
    mutating func fill(_ index: Int, key: Int64, with object: NSManagedObject) {
        if keys[index] == Self.removed { tombstones -= 1 }
        keys[index] = key
        values[index] = Unmanaged.passUnretained(object)
        count += 1
    }

    mutating func insert(_ object: NSManagedObject, for key: Int64) {
        let (index, existing) = slot(for: key)
        if existing == nil {
            fill(index, key: key, with: object)
        } else {
            values[index] = Unmanaged.passUnretained(object)
        }
    }

    mutating func remove(_ key: Int64, ifMatching object: NSManagedObject?) {
        var index = home(key)
        while keys[index] != key {
            if keys[index] == Self.empty { return }
            index = (index + 1) & mask
        }
        if let object, values[index]?.toOpaque() != Unmanaged.passUnretained(object).toOpaque() { return }
        values[index] = nil
        count -= 1
        removals &+= 1
        guard keys[(index + 1) & mask] == Self.empty else {
            keys[index] = Self.removed
            tombstones += 1
            return
        }
        // No probe run goes on past an empty slot, so none needs this one or the tombstones
        // just before it: they become empty. A table whose objects all went away (a fetch's
        // results released) ends up empty rather than full of tombstones to rebuild.
        keys[index] = Self.empty
        var previous = (index + mask) & mask
        while keys[previous] == Self.removed {
            keys[previous] = Self.empty
            tombstones -= 1
            previous = (previous + mask) & mask
        }
    }

    mutating func reserveCapacity(_ capacity: Int) {
        var size = keys.count
        while (capacity + tombstones) * 4 > size * 3 { size *= 2 }
        if size > keys.count { rebuild(size: size) }
    }

    /// Keeps live entries and tombstones under three quarters of the slots: the table doubles
    /// when the live entries alone need it, and is rebuilt at its size to drop tombstones.
    private mutating func makeRoomForOneMore() {
        guard (count + tombstones + 1) * 4 > keys.count * 3 else { return }
        rebuild(size: (count + 1) * 2 > keys.count ? keys.count * 2 : keys.count)
    }

    var objects: [NSManagedObject] {
        values.compactMap { $0?.takeUnretainedValue() }
    }

    private mutating func rebuild(size: Int) {
        let oldKeys = keys, oldValues = values
        keys = Array(repeating: Self.empty, count: size)
        values = Array(repeating: nil, count: size)
        shift = 64 - UInt64(size.trailingZeroBitCount)
        count = 0
        tombstones = 0
        for index in oldKeys.indices where oldKeys[index] > 0 {
            var slot = home(oldKeys[index])
            while keys[slot] != Self.empty { slot = (slot + 1) & mask }
            keys[slot] = oldKeys[index]
            values[slot] = oldValues[index]
            count += 1
        }
    }
}
