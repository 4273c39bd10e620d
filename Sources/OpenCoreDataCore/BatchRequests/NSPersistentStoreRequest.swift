import Foundation

/// The kinds of request a store executes. Raw values as Core Data's.
public enum NSPersistentStoreRequestType: UInt, Sendable {
    case fetchRequestType = 1
    case saveRequestType = 2
    case batchInsertRequestType = 5
    case batchUpdateRequestType = 6
    case batchDeleteRequestType = 7
    /// A `NSPersistentHistoryChangeRequest`. An OpenCoreData addition: Core Data declares no
    /// public case for it.
    case persistentHistoryRequestType = 8
}

/// A request a persistent store executes: a fetch (`NSFetchRequest`), a save
/// (`NSSaveChangesRequest`, which an `NSIncrementalStore` receives), or one of the batch
/// requests (`NSBatchInsertRequest`, `NSBatchUpdateRequest`, `NSBatchDeleteRequest`), run with
/// `NSManagedObjectContext.execute(_:)`.
open class NSPersistentStoreRequest: NSObject {
    /// The stores the request runs against; nil for every store that holds the entity.
    public final var affectedStores: [NSPersistentStore]?

    /// The kind of request.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    public override init() {}

    /// A new request with the same settings (`NSCopying`); `copy()` gives the same. Each kind
    /// of request copies all of its own; the predicates, sort descriptors and objects it names
    /// are shared, as they are in use.
    ///
    /// ```swift
    /// let page = request.copy() as! NSFetchRequest<Item>
    /// page.fetchOffset = 40
    /// ```
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentStoreRequest()
        copy.affectedStores = affectedStores
        return copy
    }
}

extension NSPersistentStoreRequest: NSCopying {}

@available(*, unavailable)
extension NSPersistentStoreRequest: Sendable {}

/// What executing a `NSPersistentStoreRequest` returns.
open class NSPersistentStoreResult: NSObject {
    public override init() {}
}

@available(*, unavailable)
extension NSPersistentStoreResult: Sendable {}
