import Foundation

extension NSManagedObjectContext {
    /// Settles one row changed or deleted in the store since this context read it, as a merge
    /// policy of `type` does; the object is then read at the row's new version, holding the
    /// values the policy chose, with the changes still to save marked as changes. Throws when the
    /// row cannot be read.
    ///
    /// Attributes and to-ones are decided one by one against the snapshot the context last read:
    /// object trump keeps what the context changed, store trump what the store changed, overwrite
    /// the context's values. To-one changes go through `setValue`, so that inverses follow.
    /// To-many memberships stay as the context has them (one-to-many ones follow their members'
    /// to-ones). Rollback refreshes the object whole.
    func settle(_ conflict: NSMergeConflict, by type: NSMergePolicyType) throws {
        let object = conflict.sourceObject
        guard object.context === self, type != .errorMergePolicyType else { return }
        // A conflict of an object the context only marked (`detectConflicts(for:)`): nothing of
        // the context's is there to keep or write, under any policy; it takes the store's version.
        if type == .rollbackMergePolicyType || !object.hasChanges {
            refresh(object, mergeChanges: false)
            return
        }
        guard let latest = try fetchSnapshot(for: object.objectID) else {
            // The row is gone: no policy brings it back. The context's change to it is dropped.
            refresh(object, mergeChanges: false)
            return
        }
        if object.isDeleted {
            // A delete is not a property: it stands, but its delete rules run again on the row
            // as it is now (members added elsewhere), and it is validated again (deny).
            refresh(object, mergeChanges: false)
            delete(object)
            return
        }
        merge(object, with: latest, by: type)
        object.awake(fromSnapshotEvents: .mergePolicy)
    }

    /// Settles `object`'s attributes and to-ones against `latest` (see `settle`).
    private func merge(_ object: NSManagedObject, with latest: RowSnapshot, by type: NSMergePolicyType) {
        if object.isFault { object.fulfillFault() }
        let cached = object.contents.snapshot
        func choose<Value: Equatable>(mine: Value, old: Value?, theirs: Value) -> Value {
            switch type {
            case .mergeByPropertyObjectTrumpMergePolicyType: mine != old ? mine : theirs
            case .mergeByPropertyStoreTrumpMergePolicyType: theirs != old ? theirs : mine
            default: mine
            }
        }
        let layout = object.entity.layout
        var toOnes: [(NSRelationshipDescription, NSManagedObjectID?)] = []
        for relationship in layout.relationships where !relationship.isToMany && !relationship.isTransient {
            let slot = relationship.relationshipSlot
            let mine = object.toOneDestinationID(relationship)
            let chosen = choose(mine: mine, old: cached.map { $0.toOne[slot] }, theirs: latest.toOne[slot])
            if chosen != mine { toOnes.append((relationship, chosen)) }
        }
        var values = object.contents.values
        for attribute in layout.attributes where !attribute.isTransient {
            let slot = attribute.attributeSlot
            values[slot] = choose(mine: values[slot], old: cached?.values[slot], theirs: latest.values[slot])
        }
        // The row's new version is what the save now expects; any attribute may differ from it.
        object.contents.rebase(on: latest, values: values)
        for (relationship, id) in toOnes {
            let destination = id.map { self.object(with: $0) }
            // A one-to-many's membership lives in its members' keys: the store already pairs the
            // row with the destination it holds, so the owners on either side follow without
            // becoming changes of their own (which, saved at versions read long ago, would be
            // new conflicts of the retried save).
            let inverse = relationship.inverseRelationship.flatMap { $0.isToMany && !$0.needsOwnStorage ? $0 : nil }
            let owners = inverse == nil ? [] : [object.toOneDestination(relationship), destination].compactMap { $0 }
                .filter { $0 !== object && !$0.contents.state.contains(.trackingSuspended) && !$0.contents.state.contains(.updated) }
            for owner in owners { owner.contents.state.insert(.trackingSuspended) }
            object.setValue(destination, forKey: relationship.name)
            for owner in owners {
                owner.contents.state.remove(.trackingSuspended)
                if let inverse { owner.toManyStorage(inverse).hasChanges = false }
            }
        }
        object.markUpdated()
    }

    /// Settles one uniqueness clash as `resolve(constraintConflicts:)` describes; false when it
    /// cannot (an object of the clash is not a new object of this context).
    func settle(_ conflict: NSConstraintConflict, by type: NSMergePolicyType) -> Bool {
        let objects = conflict.conflictingObjects
        guard !objects.isEmpty, objects.allSatisfy({ $0.context === self && $0.isInserted && !$0.isDeleted }) else { return false }
        let survivor = conflict.databaseObject ?? objects[0]
        guard survivor.context === self, !survivor.isDeleted else { return false }
        let newValuesWin = type == .mergeByPropertyObjectTrumpMergePolicyType || type == .overwriteMergePolicyType
        for loser in objects where loser !== survivor {
            if newValuesWin { Self.copyAttributes(of: loser, onto: survivor) }
            Self.moveRelationships(of: loser, onto: survivor, replacing: newValuesWin)
            delete(loser)
        }
        survivor.awake(fromSnapshotEvents: .mergePolicy)
        // The save runs the losers' delete rules before it tries again.
        return true
    }

    /// The persistent attributes of `source` that `destination`'s entity has too, set on it.
    private static func copyAttributes(of source: NSManagedObject, onto destination: NSManagedObject) {
        let names = destination.entity.attributesByName
        for attribute in source.entity.layout.attributes where !attribute.isTransient && names[attribute.name] != nil {
            let value = source.value(forKey: attribute.name)
            if let current = destination.value(forKey: attribute.name) as? AnyHashable, current == value as? AnyHashable { continue }
            destination.setValue(value, forKey: attribute.name)
        }
    }

    /// `source`'s related objects, moved onto `destination`: its to-many members join
    /// `destination`'s, and its to-one destinations become `destination`'s where it has none
    /// (or, when `replacing`, always). `source` is left with none, so that its delete rules
    /// touch nothing it had.
    private static func moveRelationships(of source: NSManagedObject, onto destination: NSManagedObject, replacing: Bool) {
        let names = destination.entity.relationshipsByName
        for relationship in source.entity.layout.relationships where !relationship.isTransient {
            guard let target = names[relationship.name], target.isToMany == relationship.isToMany else { continue }
            if relationship.isToMany {
                let members: [NSManagedObject]
                if relationship.isOrdered {
                    members = source.mutableOrderedSetValue(forKey: relationship.name).array
                    source.mutableOrderedSetValue(forKey: relationship.name).removeAllObjects()
                } else {
                    members = Array(source.mutableSetValue(forKey: relationship.name))
                    source.mutableSetValue(forKey: relationship.name).removeAllObjects()
                }
                if target.isOrdered { destination.mutableOrderedSetValue(forKey: relationship.name).addObjects(from: members) }
                else { destination.mutableSetValue(forKey: relationship.name).addObjects(from: members) }
            } else if let related = source.value(forKey: relationship.name) as? NSManagedObject {
                source.setValue(nil, forKey: relationship.name)
                if replacing || destination.value(forKey: relationship.name) == nil { destination.setValue(related, forKey: relationship.name) }
            }
        }
    }
}
