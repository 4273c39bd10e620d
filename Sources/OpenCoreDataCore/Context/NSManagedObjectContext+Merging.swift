import Foundation

extension NSManagedObjectContext {
    /// Brings this context up to date with a save of another context: `notification` is that
    /// context's `NSManagedObjectContextDidSave` (or its object-ID variant). Call it on this
    /// context's queue.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: background,
    ///                                        queue: nil) { note in
    ///     viewContext.performAndWait { viewContext.mergeChanges(fromContextDidSave: note) }
    /// }
    /// ```
    /// (`automaticallyMergesChangesFromParent` does this for every other context of the
    /// coordinator.)
    /// Updated objects are refreshed, keeping this context's unsaved changes on top; deleted
    /// objects leave the context (objects whose loaded relationships point to them are
    /// refreshed); inserted objects are found by the next fetch.
    ///
    /// Difference from Core Data: a merged deletion is not turned into a pending `delete(_:)` of
    /// this context; the object simply leaves it, as the row is already gone from the store.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        mergeRemoteChanges(notification.userInfo ?? [:])
    }

    /// Starts or stops merging the saves of the coordinator's other contexts.
    func observeSiblingSaves(_ on: Bool) {
        if let siblingSaveObserver {
            NotificationCenter.default.removeObserver(siblingSaveObserver)
            self.siblingSaveObserver = nil
        }
        guard on else { return }
        // The object-ID variant: IDs can cross to this context's queue, objects cannot.
        siblingSaveObserver = NotificationCenter.default.addObserver(
            forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: nil, queue: nil
        ) { [weak self] notification in
            guard let self, let saver = notification.object as? NSManagedObjectContext, saver !== self,
                  let coordinator = saver.persistentStoreCoordinator else { return }
            let changes = SavedObjectIDs(notification.userInfo ?? [:])
            let saverCoordinator = ObjectIdentifier(coordinator)
            self.perform {
                guard let own = self.persistentStoreCoordinator, ObjectIdentifier(own) == saverCoordinator,
                      self.automaticallyMergesChangesFromParent else { return }
                self.mergeRemoteChanges(changes.userInfo)
            }
        }
    }
}

/// The object IDs of a save, in a form that can be handed to another queue.
private struct SavedObjectIDs: Sendable {
    let inserted: Set<NSManagedObjectID>
    let updated: Set<NSManagedObjectID>
    let deleted: Set<NSManagedObjectID>

    init(_ userInfo: [AnyHashable: Any]) {
        inserted = userInfo[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID> ?? []
        updated = userInfo[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID> ?? []
        deleted = userInfo[NSDeletedObjectIDsKey] as? Set<NSManagedObjectID> ?? []
    }

    var userInfo: [AnyHashable: Any] {
        [NSInsertedObjectIDsKey: Array(inserted), NSUpdatedObjectIDsKey: Array(updated), NSDeletedObjectIDsKey: Array(deleted)]
    }
}
