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
    /// (`automaticallyMergesChangesFromParent` does this for the saves of the context's parent
    /// and siblings.)
    /// Updated objects are refreshed, keeping this context's unsaved changes on top; deleted
    /// objects leave the context (objects whose loaded relationships point to them are
    /// refreshed); inserted objects are faulted in. The merge then posts
    /// `NSManagedObjectContextObjectsDidChange` with the inserted, refreshed and removed objects,
    /// which fetched results controllers follow.
    ///
    /// Difference from Core Data: a merged deletion is not turned into a pending `delete(_:)` of
    /// this context; the object simply leaves it, as the row is already gone from the store.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        mergeRemoteChanges(notification.userInfo ?? [:])
    }

    /// Starts or stops merging the saves this context follows: its parent context's, and its
    /// siblings' (contexts saving to the same parent context, or, without one, to the same
    /// coordinator).
    func observeSiblingSaves(_ on: Bool) {
        if let siblingSaveObserver {
            NotificationCenter.default.removeObserver(siblingSaveObserver)
            self.siblingSaveObserver = nil
        }
        if let remoteSaveObserver {
            NotificationCenter.default.removeObserver(remoteSaveObserver)
            self.remoteSaveObserver = nil
        }
        guard on else { return }
        // Saves of other processes and machines that a store announces with the objects they
        // changed (the PostgreSQL store does): merged by the contexts of the store's coordinator
        // that have no parent, as another context's save on that coordinator is.
        remoteSaveObserver = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: nil, queue: nil
        ) { [weak self] notification in
            guard let self, let coordinator = notification.object as? NSPersistentStoreCoordinator, let info = notification.userInfo,
                  info[NSInsertedObjectIDsKey] != nil || info[NSUpdatedObjectIDsKey] != nil || info[NSDeletedObjectIDsKey] != nil else { return }
            let save = ArrivedSave(changes: SavedObjectIDs(info), saver: ObjectIdentifier(coordinator), saverParent: nil,
                                   saverCoordinator: ObjectIdentifier(coordinator))
            self.arrivedSaves.append(save)
            self.perform { self.mergeArrivedSaves(onUse: false) }
        }
        // The object-ID variant: IDs can cross to this context's queue, objects cannot.
        siblingSaveObserver = NotificationCenter.default.addObserver(
            forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: nil, queue: nil
        ) { [weak self] notification in
            // Posted on the saver's queue, where its parent and coordinator may be read.
            guard let self, let saver = notification.object as? NSManagedObjectContext, saver !== self else { return }
            let save = ArrivedSave(changes: SavedObjectIDs(notification.userInfo ?? [:]), saver: ObjectIdentifier(saver),
                                   saverParent: saver.parent.map(ObjectIdentifier.init),
                                   saverCoordinator: saver.persistentStoreCoordinator.map(ObjectIdentifier.init))
            self.arrivedSaves.append(save)
            // Merged by this block where the context's queue is serviced, or else the next time
            // the context is used (see `mergeArrivedSaves()`).
            self.perform { self.mergeArrivedSaves(onUse: false) }
        }
    }

    /// Merges the saves that arrived since the last call, those this context follows: its
    /// parent's, and its siblings'. Runs as its own block on the context's queue; and, for a
    /// main-queue context, also `onUse`: at the start of a fetch, a count, a save and
    /// `processPendingChanges()`, so that a context whose queue nothing services (a program that
    /// keeps its main thread busy) still merges before it answers. Never in the middle of a
    /// save or of another merge.
    func mergeArrivedSaves(onUse: Bool = true) {
        if onUse && concurrencyType != .mainQueueConcurrencyType { return }
        guard !isSaving, !isMergingArrivedSaves else { return }
        let saves = arrivedSaves.takeAll()
        guard !saves.isEmpty, automaticallyMergesChangesFromParent else { return }
        isMergingArrivedSaves = true
        defer { isMergingArrivedSaves = false }
        let ownParent = parent.map(ObjectIdentifier.init)
        let ownCoordinator = persistentStoreCoordinator.map(ObjectIdentifier.init)
        for save in saves where save.saver == ownParent || (save.saverParent == ownParent && (ownParent != nil || save.saverCoordinator == ownCoordinator)) {
            mergeRemoteChanges(save.changes.userInfo)
        }
    }
}

/// The saves that arrived for a context from other queues, waiting to be merged on its own.
///
/// A class with a lock rather than a `Mutex` and an `Atomic` in the context: reflection (a
/// debugger, a test framework printing an object) copies stored fields, which those types
/// cannot survive.
final class ArrivedSaves: @unchecked Sendable {
    // @unchecked Sendable: `saves` is only touched under `lock`.
    private let lock = NSLock()
    private var saves: [ArrivedSave] = []

    func append(_ save: ArrivedSave) {
        lock.withLock { saves.append(save) }
    }

    /// The waiting saves, taken out (none, usually: a fetch of a main-queue context asks).
    func takeAll() -> [ArrivedSave] {
        lock.withLock {
            defer { saves = [] }
            return saves
        }
    }
}

/// A save another context made, as it reaches a context that may follow it.
struct ArrivedSave: Sendable {
    let changes: SavedObjectIDs
    let saver: ObjectIdentifier
    let saverParent: ObjectIdentifier?
    let saverCoordinator: ObjectIdentifier?
}

/// The object IDs of a save, in a form that can be handed to another queue.
struct SavedObjectIDs: Sendable {
    let inserted: Set<NSManagedObjectID>
    let updated: Set<NSManagedObjectID>
    let deleted: Set<NSManagedObjectID>

    init(_ userInfo: [AnyHashable: Any]) {
        inserted = userInfo[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID> ?? []
        updated = userInfo[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID> ?? []
        deleted = userInfo[NSDeletedObjectIDsKey] as? Set<NSManagedObjectID> ?? []
    }

    var userInfo: [AnyHashable: Any] {
        [NSInsertedObjectIDsKey: inserted, NSUpdatedObjectIDsKey: updated, NSDeletedObjectIDsKey: deleted]
    }
}
