/// The stores a context's save holds (`StoreSeam.holdWrites()`) once a try of it met conflicts,
/// so that between the merge policy's reading of the rows and the next try no other process
/// commits: the next try then meets only the conflicts the policy itself makes. Released —
/// committed or thrown away — when the save ends.
struct StoreWriteHold {
    private var stores: [NSPersistentStore] = []

    var isHolding: Bool { !stores.isEmpty }

    /// Holds `stores` (those not held yet), in the coordinator's order (the order its saves
    /// lock them in). Throws `ParentSaveFailure` when a store cannot be held (another process
    /// kept it busy past the timeout).
    mutating func hold(_ stores: [NSPersistentStore]) throws {
        for store in stores where !self.stores.contains(where: { $0 === store }) {
            do {
                try store.seam.holdWrites()
            } catch {
                throw ParentSaveFailure(store: store, underlying: error)
            }
            self.stores.append(store)
        }
    }

    /// Runs one try of the holding save: only its writes are let into the held stores.
    func tryWriting<T>(_ body: () throws -> T) rethrows -> T {
        for store in stores { store.seam.openHeldWrites(true) }
        defer { for store in stores { store.seam.openHeldWrites(false) } }
        return try body()
    }

    /// Makes what the tries wrote final in every held store. Throws `ParentSaveFailure` when a
    /// store could not commit (incomplete when an earlier one did).
    mutating func commit() throws {
        let held = stores
        stores = []
        for (index, store) in held.enumerated() {
            do {
                try store.seam.releaseWrites(committing: true)
            } catch {
                for rest in held[(index + 1)...] { try? rest.seam.releaseWrites(committing: false) }
                var failure = ParentSaveFailure(store: store, underlying: error)
                if index > 0 {
                    failure.incomplete = ("The save was written to \(index) of \(held.count) stores; committing to \(store.url?.path ?? "a store") failed",
                                          Array(held[index...]))
                }
                throw failure
            }
        }
    }

    /// Throws away what the tries wrote (the save failed).
    mutating func abandon() {
        for store in stores.reversed() { try? store.seam.releaseWrites(committing: false) }
        stores = []
    }
}
