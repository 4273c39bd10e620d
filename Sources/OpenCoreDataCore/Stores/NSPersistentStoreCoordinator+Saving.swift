import Foundation

/// The coordinator's side of a save: the two-phase write over the stores a save touches, and the
/// permanent IDs new objects get from their stores.
extension NSPersistentStoreCoordinator {
    /// Writes the plan to its stores in two phases, so that a save touching several stores is
    /// written to all of them or to none: each store prepares its changes (and the first failure
    /// rolls back those already prepared), then all commit.
    ///
    /// The stores are locked in the coordinator's order (the plan's), so that saves of several
    /// contexts at once cannot deadlock, and held until every store committed or rolled back.
    ///
    /// A commit can still fail after an earlier store committed (an I/O error at COMMIT): the
    /// failure then says the save is incomplete (134040), and the context should be reset.
    /// An `NSIncrementalStore` writes in one step, which cannot be undone: such stores are
    /// prepared last, once every other store has prepared, so that a failure before them writes
    /// nothing anywhere.
    func save(_ plan: SavePlan) throws -> [SaveOutcome] {
        let stores = plan.changesByStore.map(\.store)
        for store in stores { store.lock.lock() }
        defer { for store in stores.reversed() { store.lock.unlock() } }
        var outcomes = [SaveOutcome](repeating: SaveOutcome(), count: stores.count)
        let order = stores.indices.filter { !(stores[$0] is NSIncrementalStore) } + stores.indices.filter { stores[$0] is NSIncrementalStore }
        var oneStepWritten = false
        for (position, index) in order.enumerated() {
            do {
                outcomes[index] = try stores[index].seam.prepareSave(plan.changesByStore[index].changes)
                if stores[index] is NSIncrementalStore { oneStepWritten = true }
            } catch {
                for prepared in order[..<position].reversed() { stores[prepared].seam.rollbackPreparedSave() }
                var failure = ParentSaveFailure(store: stores[index], underlying: error)
                if oneStepWritten {
                    // The incremental stores prepared so far have the save; none of the others do.
                    let written = Set(order[..<position].filter { stores[$0] is NSIncrementalStore })
                    failure.incomplete = ("The save was written to an incremental store that cannot undo it; \(stores[index].url?.path ?? "another store") failed",
                                          stores.indices.filter { !written.contains($0) }.map { stores[$0] })
                }
                throw failure
            }
        }
        for (index, store) in stores.enumerated() {
            do {
                try store.seam.commitPreparedSave()
            } catch {
                for pending in stores[(index + 1)...] { pending.seam.rollbackPreparedSave() }
                store.seam.rollbackPreparedSave()
                var failure = ParentSaveFailure(store: store, underlying: error)
                if index > 0 || oneStepWritten {
                    // Stores committed before this one, and every incremental store, have the save.
                    let without = stores[index...].filter { !($0 is NSIncrementalStore) }
                    failure.incomplete = ("The save was written to \(stores.count - without.count) of \(stores.count) stores; committing to \(store.url?.path ?? "a store") failed",
                                          Array(without))
                }
                throw failure
            }
        }
        return outcomes
    }

    /// Runs a context's save, its writes and the settling of their conflicts, while no other
    /// context's save on this coordinator runs its own. Recursive, so that a merge policy of
    /// your own that saves another root context of this coordinator on the same thread goes on;
    /// code run under it (a policy, validation, delete rules) must not wait for another
    /// thread's save.
    func withSavesSerialized<T>(_ body: () throws -> T) rethrows -> T {
        saveSerialization.lock()
        defer { saveSerialization.unlock() }
        return try body()
    }

    func newPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        guard let first = objects.first else { return [] }
        let firstStore = try store(forNew: first)
        if try objects.allSatisfy({ try store(forNew: $0) === firstStore }) {
            return try firstStore.seam.newPermanentIDs(for: objects)
        }
        var ids = [NSManagedObjectID?](repeating: nil, count: objects.count)
        var groups: [(store: NSPersistentStore, indices: [Int])] = []
        for (index, object) in objects.enumerated() {
            let store = try store(forNew: object)
            if let group = groups.firstIndex(where: { $0.store === store }) {
                groups[group].indices.append(index)
            } else {
                groups.append((store, [index]))
            }
        }
        for (store, indices) in groups {
            for (index, id) in zip(indices, try store.seam.newPermanentIDs(for: indices.map { objects[$0] })) { ids[index] = id }
        }
        let assigned = ids.compactMap { $0 }
        guard assigned.count == objects.count else {
            throw CoreDataError.make(.persistentStoreOperation, "The stores gave \(assigned.count) permanent IDs for \(objects.count) objects")
        }
        return assigned
    }
}
