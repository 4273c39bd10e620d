import Foundation

/// A store of your own, over any storage (a file format, a web service, another database),
/// with Core Data's API: subclass it, register the class for a store type, and add stores of
/// that type. Contexts then fetch, fault, unique, keep relationships and save through it exactly
/// as through the built-in stores.
///
/// ```swift
/// final class NotesStore: NSIncrementalStore {
///     static let type = "Notes"
///     override func loadMetadata() throws {
///         metadata = [NSStoreTypeKey: Self.type, NSStoreUUIDKey: "9F2C…"]   // a UUID kept with the data
///     }
///     override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
///         if let fetch = request as? NSFetchRequest<NSFetchRequestResult> {
///             let ids = rows.keys.map { newObjectID(for: fetch.entity!, referenceObject: $0) }
///             return ids.map { context!.object(with: $0) }        // faults; values come from newValuesForObject
///         }
///         let save = request as! NSSaveChangesRequest                // write every change, or throw
///         …
///         return [Any]()
///     }
///     override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws
///         -> NSIncrementalStoreNode {
///         let key = referenceObject(for: objectID) as! String
///         return NSIncrementalStoreNode(objectID: objectID, withValues: rows[key]!, version: 1)
///     }
/// }
/// NSPersistentStoreCoordinator.registerStoreClass(NotesStore.self, forStoreType: NotesStore.type)
/// try coordinator.addPersistentStore(ofType: NotesStore.type, configurationName: nil, at: url)
/// ```
///
/// What the store is asked, and what it answers:
/// - `loadMetadata()` when the store is added: set `metadata`, with `NSStoreTypeKey` and
///   `NSStoreUUIDKey` (the UUID that object ID URIs carry).
/// - `execute(_:with:)` with an `NSFetchRequest<NSFetchRequestResult>` (its entity set): for
///   `.managedObjectResultType` an array of objects made with `context.object(with:)`; for
///   `.managedObjectIDResultType` an array of `NSManagedObjectID`s (either kind of array is
///   accepted for both); for `.countResultType` an array holding one number. The store applies
///   the request's predicate, sort descriptors, offset and limit; the context adds its unsaved
///   changes on top, as it does for every store.
/// - `execute(_:with:)` with an `NSSaveChangesRequest`: write every inserted, updated and
///   deleted object, or throw and write nothing; return an empty array.
/// - `newValuesForObject(with:with:)` when a fault fires: the object's attributes and to-ones.
///   Throwing `CocoaError(.managedObjectReferentialIntegrity)` (133000) says the row is gone:
///   the object then reads as deleted.
/// - `newValue(forRelationship:forObjectWith:with:)` when a to-many is first used (its
///   destinations' IDs: an array, a set or an ordered set; they become faults), and for a to-one
///   a node leaves out (an ID, or `NSNull` for none).
/// - `obtainPermanentIDs(for:)` before a save, for its new objects.
/// - `managedObjectContextDidRegisterObjects(with:)` and `…DidUnregisterObjects(with:)`, in
///   pairs, as contexts take up and let go of the store's objects.
///
/// Every call is made under the store's `lock`, one at a time. Cast a fetch to
/// `NSFetchRequest<NSFetchRequestResult>` (or switch on `request.requestType`): Swift's
/// generics are not erased as Objective-C's are, so `request as? NSFetchRequest<NSManagedObject>`
/// does not match. The request is a copy of the application's, with its result type,
/// `propertiesToFetch`, prefetching and batch size; its offset and limit are 0 when the context
/// applies them itself (it has unsaved changes of the entity, or several stores hold it).
///
/// Object IDs: `newObjectID(for:referenceObject:)` makes the ID of the row your store knows by
/// `referenceObject` (a string, a number, any hashable value), and `referenceObject(for:)` gives
/// it back. Their URIs are `x-coredata://<store UUID>/<Entity>/p<reference>`, and
/// `managedObjectID(forURIRepresentation:)` reads them back for string and integer references.
///
/// Differences from Core Data: dictionary fetches (`.dictionaryResultType`), `fetchInBatches`
/// and the batch requests are not passed to an incremental store yet (they throw 134091). A
/// save across several stores writes to incremental stores last, after every other store has
/// prepared; a failure after one has written is reported as 134040 (its `execute` cannot be
/// undone). A reference object that is a string of decimal digits, which the store has not used
/// as a string, comes back from a URI as a number. Answers are checked: objects of another
/// store or entity, or values of the wrong type, are an error naming the store type.
open class NSIncrementalStore: NSPersistentStore, StoreSeam, @unchecked Sendable {
    // @unchecked Sendable: the reference table guards itself; the store's own methods are called
    // under `lock`, one at a time.

    /// The identifier a new store at `storeURL` should have (for its `NSStoreUUIDKey`): a new
    /// UUID string.
    open class func identifierForNewStore(at storeURL: URL) -> Any {
        UUID().uuidString
    }

    /// Runs a fetch or a save (see the type's documentation for what to return).
    open func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                 "The store of type '\(type)' does not implement execute(_:with:)")
    }

    /// The values of the object `objectID` names, to fire its fault.
    open func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws
        -> NSIncrementalStoreNode {
        throw CoreDataError.make(.persistentStoreOperation,
                                 "The store of type '\(type)' does not implement newValuesForObject(with:with:)")
    }

    /// The destination of `relationship` for the object `objectID` names: for a to-many, the
    /// IDs of its objects (an array, a set or an ordered set); for a to-one, an ID or `NSNull`.
    open func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
                       with context: NSManagedObjectContext?) throws -> Any {
        throw CoreDataError.make(.persistentStoreOperation,
                                 "The store of type '\(type)' does not implement newValue(forRelationship:forObjectWith:with:)")
    }

    /// Permanent IDs for new objects, one per object, in order; called before they are saved.
    /// The default gives each a new UUID string as its reference object.
    open func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        array.map { newObjectID(for: $0.entity, referenceObject: UUID().uuidString) }
    }

    /// Called when contexts register objects of this store (as faults or with values).
    open func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// Called when contexts let go of objects of this store.
    open func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// The ID of the object of `entity` that this store knows by `data` (a string, a number or
    /// any other hashable value). The same reference always gives an equal ID.
    public func newObjectID(for entity: NSEntityDescription, referenceObject data: Any) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, store: self, primaryKey: references.key(for: data, entity: entity))
    }

    /// The reference object `objectID` was made with by `newObjectID(for:referenceObject:)`.
    /// Stops the program for an ID of another store or a temporary ID, as Core Data raises.
    public func referenceObject(for objectID: NSManagedObjectID) -> Any {
        guard objectID.persistentStore === self, let key = objectID.primaryKey, let reference = references.reference(for: key) else {
            preconditionFailure("referenceObject(for:) was given \(objectID), which is not an object ID of this store")
        }
        return reference
    }

    public required init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?,
                         at url: URL, options: [AnyHashable: Any]? = nil) {
        super.init(persistentStoreCoordinator: root, configurationName: name, at: url, options: options)
        IncrementalStores.inUse.store(true, ordering: .relaxed)
    }

    // MARK: The store seam (NSIncrementalStore+Seam.swift)

    /// Reference objects by key, and keys by reference.
    let references = ReferenceTable()

    package func load(model: NSManagedObjectModel, entities: [NSEntityDescription]) throws { try loadThroughMetadata() }
    package func execute(_ fetch: StoreFetch) throws -> StoreFetchResult { try fetchThroughRequest(fetch) }
    package var answersKeyFetches: Bool { false }
    /// The regular file at the store's URL, which is what a store of your own keeps its data in
    /// as far as the coordinator knows; a folder or anything else there is not deleted (false).
    package func destroyFiles() throws -> Bool {
        guard let url, url.isFileURL else { return false }
        return try AtomicFileWrite.destroy(url)
    }
    package func snapshot(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot? {
        try snapshotThroughNode(for: objectID, context: context)
    }
    package func relatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                                  context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [RowSnapshot]] {
        try relatedSnapshotsThroughValues(of: sources, through: relationship, context: context)
    }
    package func newPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] { try checkedPermanentIDs(for: objects) }
    package func prepareSave(_ changes: SaveChanges) throws -> SaveOutcome { try saveThroughRequest(changes) }
    // The store's `execute` wrote everything already: there is no second phase to commit or undo.
    package func commitPreparedSave() throws {}
    package func rollbackPreparedSave() {}
}
