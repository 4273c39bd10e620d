import Foundation

/// The store seam: how the coordinator reads and writes one store — fetch rows, load one row,
/// load the members of to-manys, write a save in two phases, hand out permanent IDs. This is the
/// role `NSIncrementalStore` plays in Core Data, in the object graph's own value types.
///
/// The built-in stores implement it, and every `NSIncrementalStore` is adapted onto it. It is a
/// protocol rather than overridable methods of `NSPersistentStore`, so that a store in another
/// module of the package (the SQLite store, once the layers are targets) can implement it while
/// nothing outside the package can. Every call synchronises itself.
package protocol StoreSeam: AnyObject {
    /// Opens the store for `model`: reads or creates its schema and metadata.
    func load(model: NSManagedObjectModel, entities: [NSEntityDescription]) throws

    /// Reads the store's contents, once its metadata was found to fit the model (an atomic store
    /// reads its whole graph here).
    func finishLoading() throws

    /// Closes the store.
    func unload()

    /// Runs a fetch.
    func execute(_ fetch: StoreFetch) throws -> StoreFetchResult

    /// Whether `execute` answers `.keys` fetches (integer primary keys in compact arrays, what
    /// `fetchInBatches` pages through). A store whose objects are named by reference objects of
    /// its own (an `NSIncrementalStore`) does not.
    var answersKeyFetches: Bool { get }

    /// The saved state of one object, or nil when it is not (or no longer) in the store.
    /// `context` is the context asking, when there is one (an incremental store hands it on).
    func snapshot(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot?

    /// The saved states of several objects; missing rows are left out.
    func snapshots(for objectIDs: [NSManagedObjectID], context: NSManagedObjectContext?) throws -> [RowSnapshot]

    /// The members of a to-many relationship for each of `sources` (in order, for ordered
    /// relationships), with their saved states so they need no further loading.
    func relatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                          context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [RowSnapshot]]

    /// The first phase of a save over several stores: writes the changes without making them
    /// final, or throws having written nothing. The caller holds the store's lock until it calls
    /// `commitPreparedSave()` or `rollbackPreparedSave()`.
    func prepareSave(_ changes: SaveChanges) throws -> SaveOutcome

    /// Makes the prepared changes final.
    func commitPreparedSave() throws

    /// Throws the prepared changes away.
    func rollbackPreparedSave()

    /// Reserves permanent IDs for new objects, one per element (stores of their own are asked
    /// for the objects; the built-in ones need only their entities).
    func newPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID]

    /// Whether the store compares itself with the model while it loads, and refuses (134100) or
    /// migrates itself when it does not fit (`StoreOpening`); the coordinator compares the version
    /// hashes in the metadata of every other store.
    var comparesItselfWithModel: Bool { get }

    /// Deletes the files of this store, which is not loaded (its load failed), so that a new
    /// store can be made in their place; false when the store type cannot (stores of your own).
    func destroyFiles() throws -> Bool

    /// Holds the store for one save that may be written several times (a merge policy settles
    /// conflicts between the tries): until `releaseWrites(committing:)`, nothing else — another
    /// connection, another process — writes to the store, and each try's `prepareSave` /
    /// `commitPreparedSave` / `rollbackPreparedSave` runs inside the hold, made final only when
    /// the hold ends. A store whose writes are serialised in the process anyway does nothing.
    func holdWrites() throws

    /// Ends `holdWrites()`: makes the tries' committed changes final, or throws them away.
    func releaseWrites(committing: Bool) throws

    /// Lets the holding save's next try write (true), or closes the hold to every write again
    /// (false, between tries). Other writes — another save, a batch request, permanent IDs —
    /// are refused while the store is held: made inside the hold, they would share its fate.
    func openHeldWrites(_ open: Bool)

    /// Begins keeping the store's state as it is now for the reads of a query generation, or
    /// nil when the store cannot (it is then read at its newest state).
    func pinCurrentGeneration() throws -> (any StoreGenerationPin)?

    /// Runs up to `limit` (nil: all) of the cleanup tasks a deferred lightweight migration left
    /// (`NSPersistentStoreDeferredLightweightMigrationOptionKey`), each committed on its own with
    /// the store's metadata; returns how many ran.
    func finishDeferredMigrationTasks(limit: Int?) throws -> Int

    /// Whether the store follows a new `url` (`NSPersistentStoreCoordinator.setURL(_:for:)`):
    /// true for a store that holds no connection (an atomic store writes to its URL when it saves).
    var movesWithItsURL: Bool { get }
}

extension StoreSeam {
    package func finishDeferredMigrationTasks(limit: Int?) throws -> Int { 0 }
    package var movesWithItsURL: Bool { true }
    package func unload() {}
    package func finishLoading() throws {}
    package func destroyFiles() throws -> Bool { false }
    package var comparesItselfWithModel: Bool { false }
    package var answersKeyFetches: Bool { true }
    package func pinCurrentGeneration() throws -> (any StoreGenerationPin)? { nil }
    package func holdWrites() throws {}
    package func releaseWrites(committing: Bool) throws {}
    package func openHeldWrites(_ open: Bool) {}

    package func snapshots(for objectIDs: [NSManagedObjectID], context: NSManagedObjectContext?) throws -> [RowSnapshot] {
        try objectIDs.compactMap { try snapshot(for: $0, context: context) }
    }

    /// The same, asked by no context.
    package func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [RowSnapshot] {
        try snapshots(for: objectIDs, context: nil)
    }

    package func relatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription) throws
        -> [NSManagedObjectID: [RowSnapshot]] {
        try relatedSnapshots(of: sources, through: relationship, context: nil)
    }
}

/// The seam of a store class that implements none (a plain `NSPersistentStore` subclass, which
/// the coordinator refuses to add): every call says so.
final class MissingStoreSeam: StoreSeam, Sendable {
    static let shared = MissingStoreSeam()

    private func refusal() -> CocoaError {
        CoreDataError.make(.persistentStoreInvalidType, "The store class implements no store seam: subclass NSIncrementalStore")
    }

    func load(model: NSManagedObjectModel, entities: [NSEntityDescription]) throws { throw refusal() }
    func execute(_ fetch: StoreFetch) throws -> StoreFetchResult { throw refusal() }
    func snapshot(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot? { throw refusal() }
    func relatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                          context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [RowSnapshot]] { throw refusal() }
    func prepareSave(_ changes: SaveChanges) throws -> SaveOutcome { throw refusal() }
    func commitPreparedSave() throws { throw refusal() }
    func rollbackPreparedSave() {}
    func newPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] { throw refusal() }
}

extension NSPersistentStore {
    /// Writes one save's changes atomically, all of them or none, under the store's lock (batch
    /// requests; a context's save goes through the coordinator's two phases).
    func save(_ changes: SaveChanges) throws -> SaveOutcome {
        try lock.withLock {
            let outcome = try seam.prepareSave(changes)
            do {
                try seam.commitPreparedSave()
            } catch {
                seam.rollbackPreparedSave()
                throw error
            }
            return outcome
        }
    }
}
