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
        guard !eventInserted.isEmpty || !eventUpdated.isEmpty || !eventDeleted.isEmpty else { return }
        var info: [AnyHashable: Any] = [:]
        if !eventInserted.isEmpty { info[NSInsertedObjectsKey] = Self.set(of: eventInserted) { $0.context === self } }
        if !eventUpdated.isEmpty { info[NSUpdatedObjectsKey] = Self.set(of: eventUpdated) { !$0.isDeleted } }
        if !eventDeleted.isEmpty { info[NSDeletedObjectsKey] = Set(eventDeleted) }
        clearEvent()
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: info)
    }

    func postDidSave(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) {
        NotificationCenter.default.post(name: .NSManagedObjectContextDidSave, object: self, userInfo: [
            NSInsertedObjectsKey: Set(inserted), NSUpdatedObjectsKey: Set(updated), NSDeletedObjectsKey: Set(deleted),
        ])
        NotificationCenter.default.post(name: NSManagedObjectContext.didSaveObjectIDsNotification, object: self, userInfo: [
            NSInsertedObjectIDsKey: Self.objectIDs(of: inserted), NSUpdatedObjectIDsKey: Self.objectIDs(of: updated),
            NSDeletedObjectIDsKey: Self.objectIDs(of: deleted),
        ])
    }

    // Sets built in one pass, sized once: saves of many objects spend a good part of their time
    // on these notifications.

    private static func set(of objects: [NSManagedObject], where belongs: (NSManagedObject) -> Bool) -> Set<NSManagedObject> {
        var result = Set<NSManagedObject>(minimumCapacity: objects.count)
        for object in objects where belongs(object) { result.insert(object) }
        return result
    }

    private static func objectIDs(of objects: [NSManagedObject]) -> Set<NSManagedObjectID> {
        var result = Set<NSManagedObjectID>(minimumCapacity: objects.count)
        for object in objects {
            if let id = object.storedObjectID { result.insert(id) }
        }
        return result
    }
}
