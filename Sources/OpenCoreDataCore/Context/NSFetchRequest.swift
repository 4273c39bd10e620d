import Foundation

/// What kind of results a fetch returns. Raw values as Core Data's.
public struct NSFetchRequestResultType: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let managedObjectResultType = NSFetchRequestResultType([])
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1 << 0)
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 1 << 1)
    public static let countResultType = NSFetchRequestResultType(rawValue: 1 << 2)
}

/// A description of what to fetch: an entity, a predicate, an order, limits.
///
/// ```swift
/// let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
/// request.predicate = NSComparisonPredicate(key: "age", .greaterThan, 30)
/// request.sortDescriptors = [NSSortDescriptor(key: "time", ascending: false)]
/// request.fetchLimit = 20
/// let entries = try context.fetch(request)
/// ```
///
/// Difference from Core Data: `ResultType` is not constrained to `NSFetchRequestResult` here.
/// In Core Data that protocol is an Objective-C protocol, whose existential conforms to itself,
/// so `NSFetchRequest<NSFetchRequestResult>` is legal; a Swift protocol's existential does not,
/// and dropping the constraint keeps that common spelling compiling.
/// As in Core Data, a fetch request is a `NSPersistentStoreRequest` (`requestType`
/// `.fetchRequestType`), which is how an `NSIncrementalStore` receives it.
public final class NSFetchRequest<ResultType>: NSPersistentStoreRequest {
    /// The name of the entity to fetch.
    public var entityName: String?
    /// The entity to fetch; found from `entityName` through the context's model when nil.
    public var entity: NSEntityDescription?
    /// Which objects to fetch; nil for all.
    public var predicate: NSPredicate?
    /// The order of the results; unordered when nil or empty.
    public var sortDescriptors: [NSSortDescriptor]?
    /// At most this many results; 0 for no limit.
    public var fetchLimit = 0
    /// Skip this many results first.
    public var fetchOffset = 0
    /// Load objects' values in batches of this size as they are used; 0 loads all at once.
    /// The fetch returns faults; the first object of a batch to be used loads the values of the
    /// whole batch with one query (see the note on memory in Docs/Differences.md).
    public var fetchBatchSize = 0
    /// Objects, object IDs, dictionaries or a count.
    public var resultType: NSFetchRequestResultType = .managedObjectResultType
    // `affectedStores` (inherited): the stores to search; nil (the default) for every store that
    // holds the entity. Unsaved objects are matched whatever store they will be saved to.
    /// Whether instances of sub-entities are included (default true).
    public var includesSubentities = true
    /// Whether unsaved changes of the context are taken into account (default true): unsaved
    /// matching inserts are included, deleted objects left out, changed objects matched on
    /// their current values.
    public var includesPendingChanges = true
    /// Whether objects come back as faults whose values load on first use (default true; the
    /// values are fetched along anyway, so firing costs no I/O).
    public var returnsObjectsAsFaults = true
    /// Whether the fetch brings the objects' values along (default true).
    public var includesPropertyValues = true
    /// For dictionary results: the properties to return, as names or descriptions.
    public var propertiesToFetch: [Any]?
    /// For dictionary results: whether to drop duplicate dictionaries.
    public var returnsDistinctResults = false
    /// For dictionary results: the properties (names or descriptions) rows are grouped by; each
    /// dictionary then stands for one group, and `NSExpressionDescription` aggregates in
    /// `propertiesToFetch` are computed per group.
    public var propertiesToGroupBy: [Any]?
    /// For grouped dictionary results: which groups to keep, evaluated on each result
    /// dictionary (so it names the fetched properties and expression descriptions by name, for
    /// example `total > 100`).
    public var havingPredicate: NSPredicate?
    /// Relationships (key paths) whose destinations are loaded along with the results.
    public var relationshipKeyPathsForPrefetching: [String]?
    /// Whether refetched objects that are already registered take the store's newest values.
    public var shouldRefreshRefetchedObjects = false

    /// A request with no entity yet.
    public override init() {}

    /// A request for objects of the entity named `entityName`.
    ///
    /// A request typed with a managed object class (`NSFetchRequest<Item>`) makes that class
    /// findable by the class name the model gives (see `NSEntityDescription.managedObjectClass`).
    public init(entityName: String) {
        self.entityName = entityName
        super.init()
        if let objectClass = ResultType.self as? NSManagedObject.Type { ManagedObjectClassFinder.announce(objectClass) }
    }

    /// A new request with the same settings, as `Any` like every `NSObject`'s `copy()`:
    /// `request.copy() as! NSFetchRequest<Item>`. The predicate and sort descriptors are
    /// shared, as they are immutable in use.
    public override func copy(with zone: NSZone? = nil) -> Any { copy(as: ResultType.self) }

    /// The same settings in a request of another result type.
    func copy<Other>(as _: Other.Type) -> NSFetchRequest<Other> {
        let copy = NSFetchRequest<Other>()
        copy.entityName = entityName
        copy.entity = entity
        copy.predicate = predicate
        copy.sortDescriptors = sortDescriptors
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.resultType = resultType
        copy.includesSubentities = includesSubentities
        copy.affectedStores = affectedStores
        copy.includesPendingChanges = includesPendingChanges
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.includesPropertyValues = includesPropertyValues
        copy.propertiesToFetch = propertiesToFetch
        copy.returnsDistinctResults = returnsDistinctResults
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        return copy
    }
}

extension NSFetchRequest where ResultType: NSManagedObject {
    /// A request for objects of the entity `ResultType` is registered for.
    public convenience init(entity: NSEntityDescription) {
        self.init()
        self.entity = entity
        self.entityName = entity.name
    }
}

// Not Sendable, as NSPersistentStoreRequest is not.

/// A fetch request of any result type, as a store of your own receives it: a copy typed
/// `NSFetchRequest<NSFetchRequestResult>`, the spelling Core Data's stores cast to.
protocol AnyFetchRequest: AnyObject {
    func copyForStore() -> NSFetchRequest<NSFetchRequestResult>
}

extension NSFetchRequest: AnyFetchRequest {
    func copyForStore() -> NSFetchRequest<NSFetchRequestResult> { copy(as: NSFetchRequestResult.self) }
}
