import Synchronization

/// Whether an `NSIncrementalStore` was ever made in this process. Registration callbacks are
/// looked for only then, so that the built-in stores' paths (every fetched object's `deinit`
/// among them) pay one relaxed load and no type check.
enum IncrementalStores {
    static let inUse = Atomic<Bool>(false)

    @inline(__always)
    static var mayBeInUse: Bool { inUse.load(ordering: .relaxed) }
}

extension NSManagedObjectContext {
    /// Tells the incremental stores among `ids`' stores that this context registered them.
    /// Callers check `IncrementalStores.mayBeInUse` first, so that nothing is built otherwise.
    func noteRegistered(_ ids: [NSManagedObjectID]) { notifyStores(of: ids, registered: true) }

    /// Tells the incremental stores among `ids`' stores that this context let go of them.
    func noteUnregistered(_ ids: [NSManagedObjectID]) { notifyStores(of: ids, registered: false) }

    /// Tells `object`'s store, if it is an incremental store, that this context let go of it.
    /// Out of line: the check that leads here runs in every object's `deinit`.
    @inline(never)
    func noteUnregistered(_ object: NSManagedObject) {
        noteUnregistered([object.objectID])
    }

    /// The IDs of the registered objects that belong to incremental stores.
    func registeredIncrementalStoreIDs(among objects: [NSManagedObject]) -> [NSManagedObjectID] {
        objects.compactMap { object in
            guard object.rowLocation != nil, object.objectID.persistentStore is NSIncrementalStore else { return nil }
            return object.objectID
        }
    }

    private func notifyStores(of ids: [NSManagedObjectID], registered: Bool) {
        var byStore: [ObjectIdentifier: (store: NSIncrementalStore, ids: [NSManagedObjectID])] = [:]
        for id in ids {
            guard let store = id.persistentStore as? NSIncrementalStore else { continue }
            byStore[ObjectIdentifier(store), default: (store, [])].ids.append(id)
        }
        for (store, ids) in byStore.values { store.noteObjects(ids, registered: registered) }
    }
}
