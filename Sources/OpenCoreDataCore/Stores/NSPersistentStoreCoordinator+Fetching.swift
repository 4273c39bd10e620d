import Foundation

/// The coordinator as its contexts' parent store: reads routed to the stores that hold the
/// objects, and fetches over several stores merged into one answer.
extension NSPersistentStoreCoordinator: ParentObjectStore {
    func stores(for entity: NSEntityDescription, affectedStores: [NSPersistentStore]?) -> [NSPersistentStore] {
        let stores = stores(for: entity)
        guard let affectedStores else { return stores }
        return stores.filter { store in affectedStores.contains { $0 === store } }
    }

    func execute(_ fetch: StoreFetch, in stores: [NSPersistentStore]) throws -> StoreFetchResult {
        // One store's answer is already final: its limits are the answer's.
        if stores.count == 1 { return try stores[0].seam.execute(fetch) }
        return try MergedFetch(fetch: fetch, stores: stores).run()
    }

    func snapshot(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot? {
        guard let store = objectID.persistentStore else { return nil }
        return try store.seam.snapshot(for: objectID, context: context)
    }

    func snapshots(for objectIDs: [NSManagedObjectID], context: NSManagedObjectContext?) throws -> [RowSnapshot] {
        guard let first = objectIDs.first?.persistentStore else {
            return try objectIDs.isEmpty ? [] : snapshotsByStore(for: objectIDs, context: context)
        }
        // Almost always the IDs of one store (one fetch's, one relationship's).
        if objectIDs.allSatisfy({ $0.persistentStore === first }) { return try first.seam.snapshots(for: objectIDs, context: context) }
        return try snapshotsByStore(for: objectIDs, context: context)
    }

    private func snapshotsByStore(for objectIDs: [NSManagedObjectID], context: NSManagedObjectContext?) throws -> [RowSnapshot] {
        var groups: [(store: NSPersistentStore, ids: [NSManagedObjectID])] = []
        for id in objectIDs {
            guard let store = id.persistentStore else { continue }
            if let index = groups.firstIndex(where: { $0.store === store }) {
                groups[index].ids.append(id)
            } else {
                groups.append((store, [id]))
            }
        }
        return try groups.flatMap { try $0.store.seam.snapshots(for: $0.ids, context: context) }
    }

    func relatedMembers(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                        context: NSManagedObjectContext?) throws -> RelatedMembers {
        guard let store = sources.first?.persistentStore else { return .snapshots([:]) }
        // A store of your own names the members, which become faults (as in Core Data); the
        // built-in stores bring their rows along.
        if let incremental = store as? NSIncrementalStore {
            return .objectIDs(try incremental.relatedObjectIDs(of: sources, through: relationship, context: context))
        }
        return .snapshots(try store.seam.relatedSnapshots(of: sources, through: relationship, context: context))
    }
}
