/// The in-memory state of one relationship of one object.
enum RelationshipState {
    /// Not touched yet: a to-one is read from the snapshot; a to-many is a fault.
    case unresolved
    /// A to-one relationship's destination.
    case toOne(NSManagedObject?)
    /// A to-many relationship, loaded or not.
    case toMany(ToManyStorage)
}

/// The members of a to-many relationship of one object.
///
/// Until it is loaded, the storage only records what inverse maintenance added and removed, so
/// that setting `pet.owner = person` never has to load `person.pets`; loading applies those
/// changes on top of the store's members.
final class ToManyStorage {
    // `@exclusivity(unchecked)`: a storage belongs to one object, confined to its context's
    // queue; the dynamic checks cost more than the set operations they guard.
    @exclusivity(unchecked) private(set) var isLoaded: Bool
    /// Members; for ordered relationships `order` holds the same objects in order.
    @exclusivity(unchecked) private(set) var members: Set<NSManagedObject> = []
    @exclusivity(unchecked) private(set) var order: [NSManagedObject]?
    @exclusivity(unchecked) private var pendingAdded: [NSManagedObject] = []
    @exclusivity(unchecked) private var pendingRemoved: Set<NSManagedObject> = []
    /// True when membership changed since the last save.
    @exclusivity(unchecked) var hasChanges = false

    init(loaded: Bool, ordered: Bool) {
        isLoaded = loaded
        order = ordered ? [] : nil
    }

    var isOrdered: Bool { order != nil }

    /// Members in order (ordered relationships) or in no particular order.
    var orderedMembers: [NSManagedObject] { order ?? Array(members) }

    func contains(_ object: NSManagedObject) -> Bool { members.contains(object) }

    /// Fills a fault with the store's members, then applies the changes recorded meanwhile.
    func load(_ stored: [NSManagedObject]) {
        guard !isLoaded else { return }
        isLoaded = true
        members.reserveCapacity(members.count + stored.count + pendingAdded.count)
        for object in stored where pendingRemoved.isEmpty || !pendingRemoved.contains(object) { appendMember(object) }
        for object in pendingAdded { appendMember(object) }
        pendingAdded = []
        pendingRemoved = []
    }

    /// Adds `object`; returns false if it was already a member.
    @discardableResult
    func add(_ object: NSManagedObject) -> Bool {
        hasChanges = true
        guard isLoaded else {
            pendingRemoved.remove(object)
            if !pendingAdded.contains(where: { $0 === object }) { pendingAdded.append(object) }
            return true
        }
        return appendMember(object)
    }

    /// Inserts `object` at `index` of an ordered relationship (moving it if already there).
    func insert(_ object: NSManagedObject, at index: Int) {
        guard order != nil else {
            add(object)
            return
        }
        hasChanges = true
        if members.contains(object) { order!.removeAll { $0 === object } } else { members.insert(object) }
        order!.insert(object, at: Swift.min(index, order!.count))
    }

    /// Removes `object`; returns false if it was not a member.
    @discardableResult
    func remove(_ object: NSManagedObject) -> Bool {
        hasChanges = true
        guard isLoaded else {
            pendingAdded.removeAll { $0 === object }
            pendingRemoved.insert(object)
            return true
        }
        guard members.remove(object) != nil else { return false }
        if order != nil { order!.removeAll { $0 === object } }
        return true
    }

    @discardableResult
    private func appendMember(_ object: NSManagedObject) -> Bool {
        guard members.insert(object).inserted else { return false }
        order?.append(object)
        return true
    }
}
