import Foundation

/// The changes of one save, as an `NSIncrementalStore` receives them in `execute(_:with:)`:
/// the inserted, updated and deleted objects (inserted ones already have the permanent IDs the
/// store gave in `obtainPermanentIDs(for:)`). The store writes them all or throws.
///
/// ```swift
/// case .saveRequestType:
///     let save = request as! NSSaveChangesRequest
///     for object in save.insertedObjects ?? [] { rows[key(object)] = values(of: object) }
///     return [Any]()
/// ```
open class NSSaveChangesRequest: NSPersistentStoreRequest {
    /// The objects the save inserts.
    open private(set) var insertedObjects: Set<NSManagedObject>?
    /// The objects whose values changed.
    open private(set) var updatedObjects: Set<NSManagedObject>?
    /// The objects the save deletes.
    open private(set) var deletedObjects: Set<NSManagedObject>?
    /// Objects whose versions the store should check without writing them; OpenCoreData's
    /// contexts pass none (they have no `NSMergePolicy` locking yet).
    open private(set) var lockedObjects: Set<NSManagedObject>?

    public init(inserted insertedObjects: Set<NSManagedObject>?, updated updatedObjects: Set<NSManagedObject>?,
                deleted deletedObjects: Set<NSManagedObject>?, locked lockedObjects: Set<NSManagedObject>?) {
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
        self.lockedObjects = lockedObjects
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .saveRequestType }

    /// A new request for the same objects and stores.
    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSSaveChangesRequest(inserted: insertedObjects, updated: updatedObjects, deleted: deletedObjects, locked: lockedObjects)
        copy.affectedStores = affectedStores
        return copy
    }
}

