extension NSManagedObjectContext {
    /// Chooses the store a new object is saved to, when several of the coordinator's stores hold
    /// its entity (otherwise it goes to the first writable store that holds it).
    ///
    /// ```swift
    /// let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
    /// context.assign(note, to: archiveStore)
    /// try context.save()   // the note is written to archiveStore
    /// ```
    /// The choice holds until the object is saved or the context rolls back or resets. A store
    /// that does not hold the object's entity, or is read-only, makes the save fail naming it.
    /// Differences from Core Data: an object that is not a new object of this context is ignored
    /// (Core Data raises an exception).
    public func assign(_ object: Any, to store: NSPersistentStore) {
        checkQueue()
        guard let object = object as? NSManagedObject, object.context === self, object.objectID.isTemporaryID else { return }
        storeAssignments[ObjectIdentifier(object)] = StoreAssignment(object: object, store: store)
    }

    /// The store `object` was assigned to with `assign(_:to:)`, if any.
    func assignedStore(of object: NSManagedObject) -> NSPersistentStore? {
        guard !storeAssignments.isEmpty, let assignment = storeAssignments[ObjectIdentifier(object)],
              assignment.object === object else { return nil }
        return assignment.store
    }
}

/// A new object's chosen store. Weak: an object that leaves the context unsaved must not be
/// mistaken for a later object at the same address.
struct StoreAssignment {
    weak var object: NSManagedObject?
    let store: NSPersistentStore
}
