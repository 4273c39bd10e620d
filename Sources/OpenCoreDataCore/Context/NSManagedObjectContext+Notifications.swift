import Foundation

extension Notification.Name {
    /// Posted by `processPendingChanges()` when registered objects changed; `object` is the context.
    public static let NSManagedObjectContextObjectsDidChange = Notification.Name("NSManagedObjectContextObjectsDidChangeNotification")
    /// Posted at the start of a save, before validation; no userInfo.
    public static let NSManagedObjectContextWillSave = Notification.Name("NSManagedObjectContextWillSaveNotification")
    /// Posted after a successful save, with the saved objects under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey`.
    public static let NSManagedObjectContextDidSave = Notification.Name("NSManagedObjectContextDidSaveNotification")
}

extension NSManagedObjectContext {
    /// Posted after a successful save with the object IDs of the saved objects (safe to pass
    /// between threads) under `NSInsertedObjectIDsKey`, `NSUpdatedObjectIDsKey`, `NSDeletedObjectIDsKey`.
    public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
}

public let NSInsertedObjectsKey = "inserted"
public let NSUpdatedObjectsKey = "updated"
public let NSDeletedObjectsKey = "deleted"
public let NSRefreshedObjectsKey = "refreshed"
public let NSInvalidatedObjectsKey = "invalidated"
public let NSInvalidatedAllObjectsKey = "invalidatedAll"
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
public let NSDeletedObjectIDsKey = "deleted_objectIDs"

extension NSManagedObjectContext {
    func postObjectsDidChange() {
        guard !eventInserted.isEmpty || !eventUpdated.isEmpty || !eventDeleted.isEmpty || !eventRefreshed.isEmpty else { return }
        var posted = PostedChangeSets()
        if !eventInserted.isEmpty { posted.inserted = (eventInserted, Self.set(of: eventInserted) { $0.context === self }) }
        if !eventUpdated.isEmpty { posted.updated = (eventUpdated, Self.set(of: eventUpdated) { !$0.isDeleted }) }
        if !eventDeleted.isEmpty { posted.deleted = (eventDeleted, Set(eventDeleted)) }
        var info: [AnyHashable: Any] = [:]
        info[NSInsertedObjectsKey] = posted.inserted?.set
        info[NSUpdatedObjectsKey] = posted.updated?.set
        info[NSDeletedObjectsKey] = posted.deleted?.set
        if !eventRefreshed.isEmpty { info[NSRefreshedObjectsKey] = Self.set(of: eventRefreshed) { $0.context === self } }
        let event = changeObservers.isEmpty ? nil
            : ContextChangeEvent(inserted: eventInserted, updated: eventUpdated + eventRefreshed, deleted: eventDeleted)
        clearEvent()
        if keepsPostedChanges { postedChanges = posted }
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: info)
        if let event { notifyChangeObservers(of: event) }
    }

    /// Posts ObjectsDidChange for a merge of another context's save: the objects it inserted
    /// (faults here), those it refreshed, and those it removed.
    func postObjectsDidChange(merged: MergedChanges) {
        guard !merged.inserted.isEmpty || !merged.refreshed.isEmpty || !merged.deleted.isEmpty else { return }
        var info: [AnyHashable: Any] = [:]
        if !merged.inserted.isEmpty { info[NSInsertedObjectsKey] = Set(merged.inserted) }
        if !merged.refreshed.isEmpty { info[NSRefreshedObjectsKey] = Set(merged.refreshed) }
        if !merged.deleted.isEmpty { info[NSDeletedObjectsKey] = Set(merged.deleted) }
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: info)
        if !changeObservers.isEmpty {
            notifyChangeObservers(of: ContextChangeEvent(inserted: merged.inserted, updated: merged.refreshed, deleted: merged.deleted))
        }
    }

    /// Posts DidSave and the object-ID variant. A set the save's ObjectsDidChange already built
    /// from the same objects (`posted`) is reused rather than hashed again.
    /// `ids` are the objects' IDs, listed by the caller from the save's rows: a large save's
    /// objects are no longer in the processor's caches.
    func postDidSave(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject],
                     reusing posted: PostedChangeSets? = nil, ids: SaveResultIDs) {
        NotificationCenter.default.post(name: .NSManagedObjectContextDidSave, object: self, userInfo: [
            NSInsertedObjectsKey: posted?.inserted.reusableSet(for: inserted) ?? Set(inserted),
            NSUpdatedObjectsKey: posted?.updated.reusableSet(for: updated) ?? Set(updated),
            NSDeletedObjectsKey: posted?.deleted.reusableSet(for: deleted) ?? Set(deleted),
        ])
        NotificationCenter.default.post(name: NSManagedObjectContext.didSaveObjectIDsNotification, object: self, userInfo: [
            NSInsertedObjectIDsKey: Set(ids.inserted), NSUpdatedObjectIDsKey: Set(ids.updated),
            NSDeletedObjectIDsKey: Set(ids.deleted),
        ])
        if !changeObservers.isEmpty { notifyChangeObserversOfSave() }
    }

    // Sets built in one pass, sized once: saves of many objects spend a good part of their time
    // on these notifications.

    private static func set(of objects: [NSManagedObject], where belongs: (NSManagedObject) -> Bool) -> Set<NSManagedObject> {
        var result = Set<NSManagedObject>(minimumCapacity: objects.count)
        for object in objects where belongs(object) { result.insert(object) }
        return result
    }
}

/// What a merge of another context's save changed in this one.
struct MergedChanges {
    let inserted: [NSManagedObject]
    let refreshed: [NSManagedObject]
    let deleted: [NSManagedObject]
}

/// The sets an ObjectsDidChange notification carried, each with the list it was built from.
struct PostedChangeSets {
    typealias Posted = (source: [NSManagedObject], set: Set<NSManagedObject>)
    var inserted: Posted?
    var updated: Posted?
    var deleted: Posted?
}

extension Optional where Wrapped == PostedChangeSets.Posted {
    /// The posted set, when it holds exactly `objects`: they are its source list, object for
    /// object, and the set left none of them out. The lists are compared as the bytes of their
    /// references: no hashing, and no object touched.
    func reusableSet(for objects: [NSManagedObject]) -> Set<NSManagedObject>? {
        guard let posted = self, !objects.isEmpty, posted.set.count == objects.count,
              posted.source.count == objects.count else { return nil }
        let sameObjects = posted.source.withUnsafeBytes { source in
            objects.withUnsafeBytes { memcmp(source.baseAddress!, $0.baseAddress!, source.count) == 0 }
        }
        return sameObjects ? posted.set : nil
    }
}
