import Foundation

extension NSManagedObject {
    // MARK: Reading

    /// The state slot of `relationship`, creating the relationship array on first use.
    private func relationState(_ relationship: NSRelationshipDescription) -> RelationshipState {
        let slot = relationship.relationshipSlot
        if contents.relations.isEmpty { return .unresolved }
        return contents.relations[slot]
    }

    private func setRelationState(_ newState: RelationshipState, for relationship: NSRelationshipDescription) {
        let slot = relationship.relationshipSlot
        guard !contents.relations.isEmpty else {
            contents.relations = Self.relationStates(count: entity.layout.relationships.count, setting: newState, at: slot)
            return
        }
        contents.relations[slot] = newState
    }

    /// A new relationship array: `state` at `slot`, every other slot unresolved. Built locally and
    /// stored once; reserveCapacity + append is specialized for RelationshipState, where the
    /// count-taking array initializers go through the standard library's unspecialized allocation.
    private static func relationStates(count: Int, setting state: RelationshipState, at slot: Int) -> [RelationshipState] {
        var states: [RelationshipState] = []
        states.reserveCapacity(count)
        for index in 0..<count { states.append(index == slot ? state : .unresolved) }
        return states
    }

    /// The inverse of one of this object's relationships.
    @inline(__always)
    func inverse(of relationship: NSRelationshipDescription) -> NSRelationshipDescription? {
        entity.layout.inverses[relationship.relationshipSlot]
    }

    /// The destination of a to-one relationship, resolved through the context.
    func toOneDestination(_ relationship: NSRelationshipDescription) -> NSManagedObject? {
        willAccess()
        switch relationState(relationship) {
        case .toOne(let object): return object
        case .toMany: return nil
        case .unresolved:
            guard let id = contents.snapshot?.toOne[relationship.relationshipSlot], let context else { return nil }
            let object = context.object(with: id)
            setRelationState(.toOne(object), for: relationship)
            return object
        }
    }

    /// The object ID of a to-one destination without firing the destination.
    func toOneDestinationID(_ relationship: NSRelationshipDescription) -> NSManagedObjectID? {
        willAccess()
        switch relationState(relationship) {
        case .toOne(let object): return object?.objectID
        case .toMany: return nil
        case .unresolved: return contents.snapshot?.toOne[relationship.relationshipSlot] ?? nil
        }
    }

    /// The storage of a to-many relationship, loaded or still a fault.
    func toManyStorage(_ relationship: NSRelationshipDescription) -> ToManyStorage {
        willAccess()
        if case .toMany(let storage) = relationState(relationship) { return storage }
        // A never-saved object has no stored members: its relationship starts loaded and empty.
        let storage = ToManyStorage(loaded: !hasSnapshot, ordered: relationship.isOrdered)
        setRelationState(.toMany(storage), for: relationship)
        return storage
    }

    /// The loaded members of a to-many relationship (loading them from the store if needed).
    func toManyMembers(_ relationship: NSRelationshipDescription) -> ToManyStorage {
        let storage = toManyStorage(relationship)
        if !storage.isLoaded, let context {
            context.loadToMany(relationship, of: [self])
        }
        return storage
    }

    /// Whether a to-many relationship has not been loaded yet.
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        guard let relationship = entity.layout.propertiesByName[key] as? NSRelationshipDescription else { return false }
        if isFault { return true }
        guard relationship.isToMany else {
            if case .toOne = relationState(relationship) { return false }
            return contents.snapshot?.toOne[relationship.relationshipSlot] != nil
        }
        if case .toMany(let storage) = relationState(relationship) { return !storage.isLoaded }
        return contents.snapshot != nil
    }

    /// The IDs of a relationship's destinations, loading them from the store if needed.
    public func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] {
        guard let relationship = entity.layout.propertiesByName[key] as? NSRelationshipDescription else { return [] }
        if relationship.isToMany { return toManyMembers(relationship).orderedMembers.map(\.objectID) }
        return toOneDestinationID(relationship).map { [$0] } ?? []
    }

    // MARK: Writing, with inverse maintenance

    /// Sets a to-one relationship and keeps the inverse side in step.
    func setToOne(_ relationship: NSRelationshipDescription, to destination: NSManagedObject?) {
        let old = toOneDestination(relationship)
        guard old !== destination else { return }
        setToOneRaw(relationship, destination)
        guard let inverse = inverse(of: relationship), !contents.state.contains(.trackingSuspended) else { return }
        if let old { old.detachInverse(inverse, from: self, relationship: relationship) }
        if let destination { destination.attachInverse(inverse, to: self, relationship: relationship) }
    }

    /// Adds `object` to a to-many relationship and keeps the inverse side in step.
    func addToMany(_ relationship: NSRelationshipDescription, _ object: NSManagedObject) {
        let storage = toManyStorage(relationship)
        if storage.isLoaded && storage.contains(object) { return }
        addToManyRaw(relationship, object, in: storage)
        guard let inverse = inverse(of: relationship), !contents.state.contains(.trackingSuspended) else { return }
        object.attachInverse(inverse, to: self, relationship: relationship)
    }

    /// Inserts `object` at `index` of an ordered to-many relationship.
    func insertToMany(_ relationship: NSRelationshipDescription, _ object: NSManagedObject, at index: Int) {
        let storage = toManyMembers(relationship)
        let wasMember = storage.contains(object)
        insertToManyRaw(relationship, object, at: index, in: storage)
        guard !wasMember, let inverse = inverse(of: relationship), !contents.state.contains(.trackingSuspended) else { return }
        object.attachInverse(inverse, to: self, relationship: relationship)
    }

    /// Removes `object` from a to-many relationship and keeps the inverse side in step.
    func removeFromToMany(_ relationship: NSRelationshipDescription, _ object: NSManagedObject) {
        let storage = toManyStorage(relationship)
        if storage.isLoaded && !storage.contains(object) { return }
        removeFromToManyRaw(relationship, object, in: storage)
        guard let inverse = inverse(of: relationship), !contents.state.contains(.trackingSuspended) else { return }
        object.detachInverse(inverse, from: self, relationship: relationship)
    }

    /// Replaces the whole membership of a to-many relationship.
    func replaceToMany(_ relationship: NSRelationshipDescription, with objects: [NSManagedObject]) {
        let current = toManyMembers(relationship).orderedMembers
        let incoming = Set(objects)
        for object in current where !incoming.contains(object) { removeFromToMany(relationship, object) }
        if relationship.isOrdered {
            for (index, object) in objects.enumerated() { insertToMany(relationship, object, at: index) }
        } else {
            for object in objects { addToMany(relationship, object) }
        }
    }

    /// `self` is the destination of `partner.relationship`; make `self.inverse` point back.
    private func attachInverse(_ inverse: NSRelationshipDescription, to partner: NSManagedObject,
                               relationship: NSRelationshipDescription) {
        if inverse.isToMany {
            addToManyRaw(inverse, partner)
        } else {
            // One-to-one or many-to-one: self leaves its previous partner first.
            let previous = toOneDestination(inverse)
            guard previous !== partner else { return }
            if let previous {
                if relationship.isToMany {
                    previous.removeFromToManyRaw(relationship, self)
                } else {
                    previous.setToOneRaw(relationship, nil)
                }
            }
            setToOneRaw(inverse, partner)
        }
    }

    /// `self` stops being a destination of `partner.relationship`; drop `self.inverse`'s link.
    func detachInverse(_ inverse: NSRelationshipDescription, from partner: NSManagedObject,
                       relationship: NSRelationshipDescription) {
        if inverse.isToMany {
            removeFromToManyRaw(inverse, partner)
        } else if toOneDestination(inverse) === partner {
            setToOneRaw(inverse, nil)
        }
    }

    /// Sets a to-one slot without touching the inverse.
    func setToOneRaw(_ relationship: NSRelationshipDescription, _ destination: NSManagedObject?) {
        willAccess()
        if let context, context.undoManager != nil, context.recordsUndo(of: self, attribute: false) {
            let old = toOneDestination(relationship)
            context.recordUndo { undoing in
                guard self.context === undoing else { return }
                self.setToOneRaw(relationship, old)
                undoing.pendingSnapshotEvents.note(.undoUpdate, for: self)
            }
        }
        markUpdated()
        setRelationState(.toOne(destination), for: relationship)
    }

    // MARK: Changing one side, recorded for undo

    // The changes every to-many mutation comes down to, inverse maintenance included: each
    // records the change that reverts it, so that undoing them all, last first, restores both
    // sides of every relationship (and redoing them, the same way back).

    /// Adds `object` to one side only (`storage`: the relationship's, when the caller has it).
    func addToManyRaw(_ relationship: NSRelationshipDescription, _ object: NSManagedObject, in storage: ToManyStorage? = nil) {
        let storage = storage ?? toManyStorage(relationship)
        if let context, context.undoManager != nil, context.recordsUndo(of: self, attribute: false) {
            // Loaded first: whether the object is a member already decides what reverts this.
            loadForUndo(storage, relationship, in: context)
            if !storage.contains(object) { recordToManyUndo(in: context) { $0.removeFromToManyRaw(relationship, object) } }
        }
        markUpdated()
        storage.add(object)
    }

    /// Removes `object` from one side only (`storage`: the relationship's, when the caller has it).
    func removeFromToManyRaw(_ relationship: NSRelationshipDescription, _ object: NSManagedObject, in storage: ToManyStorage? = nil) {
        let storage = storage ?? toManyStorage(relationship)
        if let context, context.undoManager != nil, context.recordsUndo(of: self, attribute: false) {
            loadForUndo(storage, relationship, in: context)
            if let index = storage.order?.firstIndex(where: { $0 === object }) {
                recordToManyUndo(in: context) { $0.insertToManyRaw(relationship, object, at: index) }
            } else if storage.contains(object) {
                recordToManyUndo(in: context) { $0.addToManyRaw(relationship, object) }
            }
        }
        markUpdated()
        storage.remove(object)
    }

    /// Inserts (or moves) `object` at `index` of an ordered relationship, one side only
    /// (`storage`: the relationship's loaded members, when the caller has them).
    func insertToManyRaw(_ relationship: NSRelationshipDescription, _ object: NSManagedObject, at index: Int,
                         in storage: ToManyStorage? = nil) {
        let storage = storage ?? toManyMembers(relationship)
        if let context, context.undoManager != nil, context.recordsUndo(of: self, attribute: false) {
            if let previous = storage.order?.firstIndex(where: { $0 === object }) {
                recordToManyUndo(in: context) { $0.insertToManyRaw(relationship, object, at: previous) }
            } else if !storage.contains(object) {
                recordToManyUndo(in: context) { $0.removeFromToManyRaw(relationship, object) }
            }
        }
        markUpdated()
        storage.insert(object, at: index)
    }

    /// Loads a to-many that is still a fault before a change to it is recorded (only while
    /// recording undo).
    private func loadForUndo(_ storage: ToManyStorage, _ relationship: NSRelationshipDescription, in context: NSManagedObjectContext) {
        if !storage.isLoaded { context.loadToMany(relationship, of: [self]) }
    }

    /// Registers `revert` for this object, skipped should it have left the context by then.
    private func recordToManyUndo(in context: NSManagedObjectContext, _ revert: @escaping (NSManagedObject) -> Void) {
        context.recordUndo { undoing in
            guard self.context === undoing else { return }
            revert(self)
            undoing.pendingSnapshotEvents.note(.undoUpdate, for: self)
        }
    }

    /// Installs loaded to-many members (from a fault firing or a prefetch).
    func installToMany(_ relationship: NSRelationshipDescription, members: [NSManagedObject]) {
        let storage = toManyStorage(relationship)
        storage.load(members)
    }
}

extension NSManagedObject {
    /// The slots of the to-many relationships whose members changed since the last save, for
    /// persistent history's updated properties (a store row of the object does not show them).
    package var changedToManyRelationshipSlots: [Int] {
        guard !contents.relations.isEmpty else { return [] }
        return entity.layout.relationships.compactMap { relationship in
            guard !relationship.isTransient, case .toMany(let storage) = contents.relations[relationship.relationshipSlot],
                  storage.hasChanges else { return nil }
            return relationship.relationshipSlot
        }
    }
}
