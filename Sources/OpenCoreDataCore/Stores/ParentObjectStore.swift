/// What a context reads its objects from and saves them to: Core Data's parent object store.
/// The coordinator is one; a parent context will be the other, standing where the coordinator
/// stands.
///
/// Every call synchronises itself, so a context takes no store's lock. Every answer is final
/// for everything below the parent: over several stores it is merged, sorted and limited, and a
/// save is written to all of its stores or to none.
protocol ParentObjectStore: AnyObject, Sendable {
    /// The stores a fetch of `entity` reads: those that hold it, narrowed to `affectedStores`
    /// when the request names some.
    func stores(for entity: NSEntityDescription, affectedStores: [NSPersistentStore]?) -> [NSPersistentStore]

    /// Runs a fetch over `stores` (from `stores(for:affectedStores:)`). The fetch's limits are
    /// the answer's. `.keys` results come from one store only.
    func execute(_ fetch: StoreFetch, in stores: [NSPersistentStore]) throws -> StoreFetchResult

    /// The saved state of one object, or nil when it is not (or no longer) saved.
    func snapshot(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot?

    /// The saved states of several objects, of any stores; missing rows are left out.
    func snapshots(for objectIDs: [NSManagedObjectID], context: NSManagedObjectContext?) throws -> [RowSnapshot]

    /// The members of a to-many relationship for each of `sources`, which are all in one store.
    func relatedMembers(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                        context: NSManagedObjectContext?) throws -> RelatedMembers

    /// Writes a save: to every store it touches or to none. Throws `ParentSaveFailure`.
    func save(_ plan: SavePlan) throws -> [SaveOutcome]

    /// Permanent IDs for new objects, one per element, from the stores they will be saved to.
    func newPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID]
}

/// The members of to-many relationships as a parent hands them to a context.
enum RelatedMembers {
    /// With their saved states, so that the members need no further loading (built-in stores).
    case snapshots([NSManagedObjectID: [RowSnapshot]])
    /// As IDs only: the members become faults (an incremental store names them, as in Core Data).
    case objectIDs([NSManagedObjectID: [NSManagedObjectID]])

    /// The rows of a `.snapshots` answer (nil for IDs), leaving the answer empty, so that the
    /// caller holds the only reference to them and can move them out without copying.
    mutating func takeSnapshots() -> [NSManagedObjectID: [RowSnapshot]]? {
        guard case .snapshots(let rows) = self else { return nil }
        self = .snapshots([:])
        return rows
    }
}

/// Why a parent could not write a save, in the store's own terms (conflicts as data, a SQLite
/// error): the context turns it into Core Data's error with its own objects.
struct ParentSaveFailure: Error {
    /// The store that failed.
    let store: NSPersistentStore
    let underlying: Error
    /// Set when other stores had already made the save final, so that the save is incomplete
    /// (134040): what to say, and the stores that do not have it.
    var incomplete: (message: String, storesWithoutTheSave: [NSPersistentStore])?

    /// Whether the store refused the save for conflicts a merge policy may settle: rows changed
    /// since they were read, or values a uniqueness constraint holds elsewhere.
    var isConflict: Bool {
        underlying is OptimisticLockingFailure || underlying is OptimisticLockingFailures || underlying is UniquenessConflicts
    }
}
