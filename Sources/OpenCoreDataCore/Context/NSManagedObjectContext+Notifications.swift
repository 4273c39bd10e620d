import Foundation

extension Notification.Name {
    /// Posted by `processPendingChanges()` when registered objects changed; `object` is the context.
    public static let NSManagedObjectContextObjectsDidChange = Notification.Name("NSManagedObjectContextObjectsDidChangeNotification")
    /// Posted at the start of a save, before validation; no userInfo.
    public static let NSManagedObjectContextWillSave = Notification.Name("NSManagedObjectContextWillSaveNotification")
    /// Posted after a successful save, with the saved objects under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey`.
    public static let NSManagedObjectContextDidSave = Notification.Name("NSManagedObjectContextDidSaveNotification")
    /// `NSManagedObjectContext.didSaveObjectIDsNotification` under its Objective-C name.
    public static let NSManagedObjectContextDidSaveObjectIDs = NSManagedObjectContext.didSaveObjectIDsNotification
    /// `NSManagedObjectContext.didMergeChangesObjectIDsNotification` under its Objective-C name.
    public static let NSManagedObjectContextDidMergeChangesObjectIDs = NSManagedObjectContext.didMergeChangesObjectIDsNotification
}

extension NSManagedObjectContext {
    /// Posted after a successful save with the object IDs of the saved objects (safe to pass
    /// between threads) under `NSInsertedObjectIDsKey`, `NSUpdatedObjectIDsKey`, `NSDeletedObjectIDsKey`.
    public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Posted after the context merged another context's save (`mergeChanges(fromContextDidSave:)`,
    /// `automaticallyMergesChangesFromParent`), with the object IDs merged under
    /// `NSInsertedObjectIDsKey` (the objects the merge brought in), `NSUpdatedObjectIDsKey` and
    /// `NSDeletedObjectIDsKey` (those the save named).
    public static let didMergeChangesObjectIDsNotification = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")
    /// `NSManagedObjectContextWillSave` under Apple's Swift name.
    public static let willSaveObjectsNotification = Notification.Name.NSManagedObjectContextWillSave
    /// `NSManagedObjectContextDidSave` under Apple's Swift name.
    public static let didSaveObjectsNotification = Notification.Name.NSManagedObjectContextDidSave
    /// `NSManagedObjectContextObjectsDidChange` under Apple's Swift name.
    public static let didChangeObjectsNotification = Notification.Name.NSManagedObjectContextObjectsDidChange

    /// The keys of the contexts' notifications' `userInfo`, as Apple's Swift overlay names them;
    /// each raw value is the key itself.
    ///
    /// ```swift
    /// let inserted = note.userInfo?[NSManagedObjectContext.NotificationKey.insertedObjects.rawValue] as? Set<NSManagedObject>
    /// ```
    public enum NotificationKey: String, Sendable {
        case queryGeneration = "managedObjectContextQueryGeneration"
        case invalidatedAllObjects = "invalidatedAll"
        case insertedObjects = "inserted"
        case updatedObjects = "updated"
        case deletedObjects = "deleted"
        case refreshedObjects = "refreshed"
        case invalidatedObjects = "invalidated"
        case insertedObjectIDs = "inserted_objectIDs"
        case updatedObjectIDs = "updated_objectIDs"
        case deletedObjectIDs = "deleted_objectIDs"
        case refreshedObjectIDs = "refreshed_objectIDs"
        case invalidatedObjectIDs = "invalidated_objectIDs"
    }
}

public let NSInsertedObjectsKey = NSManagedObjectContext.NotificationKey.insertedObjects.rawValue
public let NSUpdatedObjectsKey = NSManagedObjectContext.NotificationKey.updatedObjects.rawValue
public let NSDeletedObjectsKey = NSManagedObjectContext.NotificationKey.deletedObjects.rawValue
public let NSRefreshedObjectsKey = NSManagedObjectContext.NotificationKey.refreshedObjects.rawValue
public let NSInvalidatedObjectsKey = NSManagedObjectContext.NotificationKey.invalidatedObjects.rawValue
public let NSInvalidatedAllObjectsKey = NSManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue
public let NSInsertedObjectIDsKey = NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue
public let NSUpdatedObjectIDsKey = NSManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue
public let NSDeletedObjectIDsKey = NSManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue
public let NSRefreshedObjectIDsKey = NSManagedObjectContext.NotificationKey.refreshedObjectIDs.rawValue
public let NSInvalidatedObjectIDsKey = NSManagedObjectContext.NotificationKey.invalidatedObjectIDs.rawValue
public let NSManagedObjectContextQueryGenerationKey = NSManagedObjectContext.NotificationKey.queryGeneration.rawValue

extension NSManagedObjectContext {
    func postObjectsDidChange() {
        guard !eventInserted.isEmpty || !eventUpdated.isEmpty || !eventDeleted.isEmpty || !eventRefreshed.isEmpty else {
            // An event of changes to deleted objects only: nothing to tell, nothing to keep.
            if !eventBases.isEmpty { eventBases = [:] }
            return
        }
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
        // The observers' `changedValuesForCurrentEvent()` is about the event they are told of.
        let bases = eventBases
        clearEvent()
        if keepsPostedChanges { postedChanges = posted }
        // For the fetched results controllers too; restored afterwards, for a post within a post.
        let outer = postingEvent
        postingEvent = (posted, bases)
        defer { postingEvent = outer }
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

    /// Posts DidMergeChangesObjectIDs after a merge: the IDs the save named as deleted or
    /// updated, and those of the objects the merge brought in.
    func postDidMergeChanges(_ merged: MergedChanges) {
        NotificationCenter.default.post(name: NSManagedObjectContext.didMergeChangesObjectIDsNotification, object: self, userInfo: [
            NSInsertedObjectIDsKey: Set(merged.inserted.map(\.objectID)), NSUpdatedObjectIDsKey: merged.updatedIDs,
            NSDeletedObjectIDsKey: merged.deletedIDs,
        ])
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
    /// The IDs a merged save named as deleted and updated (registered here or not).
    var deletedIDs: Set<NSManagedObjectID> = []
    var updatedIDs: Set<NSManagedObjectID> = []
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
