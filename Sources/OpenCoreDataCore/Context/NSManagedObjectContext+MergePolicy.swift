import Foundation

extension NSManagedObjectContext {
    /// Settles one row changed or deleted in the store since this context read it, as a merge
    /// policy of `type` does; the object is then read at the row's new version, holding the
    /// values the policy chose, with the changes still to save marked as changes.
    func settle(_ conflict: NSMergeConflict, by type: NSMergePolicyType) {
        let object = conflict.sourceObject
        guard object.context === self, type != .errorMergePolicyType else { return }
        guard let latest = loadSnapshot(for: object.objectID) else {
            // The row is gone: no policy brings it back. The context's change to it is dropped.
            refresh(object, mergeChanges: false)
            return
        }
        if object.isDeleted {
            // A delete is not a property: it stands under every policy but rollback, now
            // against the row's new version.
            if type == .rollbackMergePolicyType {
                refresh(object, mergeChanges: false)
            } else {
                object.snapshot = latest
            }
            return
        }
        let kept: [String: Any]
        switch type {
        case .rollbackMergePolicyType, .errorMergePolicyType:
            refresh(object, mergeChanges: false)
            return
        case .overwriteMergePolicyType:
            // The whole object as the context has it; the save writes what differs from the row.
            kept = NSMergeConflict.values(of: object).merging(object.changedValues()) { _, changed in changed }
        case .mergeByPropertyObjectTrumpMergePolicyType:
            kept = object.changedValues()
        case .mergeByPropertyStoreTrumpMergePolicyType:
            let changedInStore = Self.keysThatDiffer(conflict.cachedSnapshot ?? [:], conflict.persistedSnapshot ?? [:])
            kept = object.changedValues().filter { !changedInStore.contains($0.key) }
        }
        object.turnIntoFault(snapshot: latest)
        object.fulfillFault()
        for (key, value) in kept {
            // Snapshots name to-one destinations by their IDs.
            let resolved = (value as? NSManagedObjectID).map { self.object(with: $0) as Any } ?? value
            object.setValue(resolved is NSNull ? nil : resolved, forKey: key)
        }
    }

    /// The keys whose values differ between two snapshots (a key missing on one side differs).
    private static func keysThatDiffer(_ a: [String: Any], _ b: [String: Any]) -> Set<String> {
        var keys: Set<String> = []
        for key in Set(a.keys).union(b.keys) where (a[key] as? AnyHashable) != (b[key] as? AnyHashable) {
            keys.insert(key)
        }
        return keys
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
        propagateDeletions()
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
