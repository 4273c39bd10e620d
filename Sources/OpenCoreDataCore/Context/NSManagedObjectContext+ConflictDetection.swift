extension NSManagedObjectContext {
    /// Marks `object` for conflict detection: the next `save()` also checks that the object was
    /// not changed or deleted in its store since this context read it, even if the context did
    /// not change it — optimistic locking for an object the save depends on without writing it.
    /// A conflict is handled as for a changed object: the merge policy settles it, or the save
    /// fails with `NSManagedObjectMergeError` (133020) listing it. Changed and deleted objects
    /// are always checked; the marks last until the next successful save or `reset()`.
    ///
    /// ```swift
    /// let account = try context.existingObject(with: accountID) as! Account
    /// context.detectConflicts(for: account)        // the transfer was computed from its balance
    /// let entry = Entry(context: context); entry.amount = account.balance / 10
    /// try context.save()                          // fails if another writer changed the account
    /// ```
    ///
    /// A merge policy other than the error policy settles such a conflict by giving the object
    /// the store's version (the context has no change of its own to keep or write).
    ///
    /// Differences from Core Data: a save with nothing changed does nothing, marks included (as
    /// Core Data's, as far as its documentation says). Not checked: the marks of a child context
    /// (its save reaches only its parent, which keeps no store versions of its own: mark the
    /// object in the context that saves to the store), and those of objects of read-only stores
    /// or of stores removed since (which the save does not write).
    public func detectConflicts(for object: NSManagedObject) {
        checkQueue()
        guard object.context === self else { return }
        conflictDetectionMarks[ObjectIdentifier(object)] = object
    }

    /// The marked objects a save to the stores checks without writing them: saved ones that the
    /// save does not insert, change or delete (those are checked anyway), of writable stores
    /// still added to the coordinator (a read-only store takes no part in a save).
    func objectsLockedBySave() -> [NSManagedObject] {
        guard parent == nil, !conflictDetectionMarks.isEmpty else { return [] }
        let stores = Set((persistentStoreCoordinator?.persistentStores ?? []).filter { !$0.isReadOnly }.map(ObjectIdentifier.init))
        return conflictDetectionMarks.values.filter { object in
            guard object.context === self, !object.objectID.isTemporaryID, !object.hasChanges, let store = object.objectID.persistentStore else { return false }
            return stores.contains(ObjectIdentifier(store))
        }
    }
}
