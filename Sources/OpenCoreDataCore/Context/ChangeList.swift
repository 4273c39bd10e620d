/// The objects of one kind of pending change (inserted, updated or deleted) in a context.
///
/// Membership follows from each object's state flags (`isInserted`, `isDeleted`, …); the list
/// only remembers which objects may be members, with a flag bit in each object so that an
/// object is listed once. Adding is an append — no hashing on the hot path of creating,
/// changing or deleting an object — and objects that left the category are skipped when the
/// list is read, and dropped when it is cleared after a save.
struct ChangeList {
    enum Kind {
        case inserted, updated, deleted

        var listedFlag: ObjectState {
            switch self {
            case .inserted: .listedInserted
            case .updated: .listedUpdated
            case .deleted: .listedDeleted
            }
        }

        /// Whether an object with `state` belongs to this kind of change.
        func includes(_ state: ObjectState) -> Bool {
            switch self {
            case .inserted: state.contains(.inserted) && !state.contains(.deleted)
            case .updated: state.contains(.updated) && !state.contains(.inserted) && !state.contains(.deleted)
            case .deleted: state.contains(.deleted) && !state.contains(.inserted)
            }
        }
    }

    let kind: Kind
    private var candidates: [NSManagedObject] = []

    init(_ kind: Kind) { self.kind = kind }

    /// Remembers `object` as a possible member (its state must already say so).
    mutating func add(_ object: NSManagedObject) {
        let flag = kind.listedFlag
        guard !object.contents.state.contains(flag) else { return }
        object.contents.state.insert(flag)
        candidates.append(object)
    }

    /// The members, in the order they were added.
    var members: [NSManagedObject] { candidates.filter { kind.includes($0.contents.state) } }

    /// Calls `body` with each member, in the order they were added. Objects that become
    /// members during the calls are not visited. Reads the list in place rather than building
    /// `members`, which costs an array and a retain and release of every object.
    func forEachMember(_ body: (NSManagedObject) -> Void) {
        let list = candidates  // shares the buffer: `body` may add candidates
        for index in list.indices where kind.includes(list[index].contents.state) { body(list[index]) }
    }

    var isEmpty: Bool { !candidates.contains { kind.includes($0.contents.state) } }

    /// Whether some member satisfies `predicate`.
    func containsMember(where predicate: (NSManagedObject) -> Bool) -> Bool {
        candidates.contains { kind.includes($0.contents.state) && predicate($0) }
    }

    /// Forgets every candidate (after a save, a rollback or a reset).
    mutating func removeAll() {
        let flag = kind.listedFlag
        for object in candidates { object.contents.state.remove(flag) }
        candidates = []
    }

    /// Every object ever listed since the last `removeAll`, members or not.
    /// Empties the list after the caller cleared the state of `count` of its members (every
    /// saved object's, at the end of a save). When they were all the candidates, no object needs
    /// touching again; otherwise the others' listing flags are cleared one by one.
    mutating func removeAll(clearedMembers count: Int) {
        if candidates.count == count { candidates = [] } else { removeAll() }
    }

    var allCandidates: [NSManagedObject] { candidates }

    /// Forgets the candidates `leaves` picks (objects leaving the context), clearing their flag.
    mutating func remove(where leaves: (NSManagedObject) -> Bool) {
        let flag = kind.listedFlag
        candidates.removeAll { object in
            guard leaves(object) else { return false }
            object.contents.state.remove(flag)
            return true
        }
    }
}
