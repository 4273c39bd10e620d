import Foundation

/// The in-memory store (`NSInMemoryStoreType`): the same behaviour as the SQLite store, kept in
/// memory and gone when the store is removed. Predicates and sorts are evaluated in memory.
final class InMemoryStore: NSPersistentStore, StoreSeam, @unchecked Sendable {
    // @unchecked Sendable: all state is guarded by `lock` (the coordinator and contexts call in
    // under it).

    override var type: String { NSInMemoryStoreType }

    private lazy var rows = MemoryRows(store: self)

    /// The store is made from the model each time it is added: it always fits.
    var comparesItselfWithModel: Bool { true }

    func load(model: NSManagedObjectModel, entities: [NSEntityDescription]) throws {
        var metadata = model.versionMetadata(for: NSManagedObjectModel.withSubentities(entities))
        metadata[NSStoreTypeKey] = NSInMemoryStoreType
        metadata[NSStoreUUIDKey] = identifier
        storedMetadata = metadata
    }

    func execute(_ fetch: StoreFetch) throws -> StoreFetchResult {
        try lock.withLock { try rows.execute(fetch) }
    }

    func snapshot(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot? {
        lock.withLock { rows.row(for: objectID) }
    }

    func relatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                          context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [RowSnapshot]] {
        lock.withLock { rows.relatedSnapshots(of: sources, through: relationship) }
    }

    func newPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        lock.withLock { objects.map { rows.allocateID(for: $0.entity) } }
    }

    func prepareSave(_ changes: SaveChanges) throws -> SaveOutcome {
        try lock.withLock { try rows.prepare(changes) }
    }

    func commitPreparedSave() throws {
        lock.withLock { rows.commitPrepared() }
    }

    func rollbackPreparedSave() {
        lock.withLock { rows.rollbackPrepared() }
    }
}
