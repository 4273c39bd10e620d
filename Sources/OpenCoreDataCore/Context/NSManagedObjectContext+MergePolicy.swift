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
}
