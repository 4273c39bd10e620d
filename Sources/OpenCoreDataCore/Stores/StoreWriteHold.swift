/// The stores a context's save holds (`StoreSeam.holdWrites()`) once a try of it met conflicts,
/// so that between the merge policy's reading of the rows and the next try no other process
/// commits: the next try then meets only the conflicts the policy itself makes. Released —
/// committed or thrown away — when the save ends.
struct StoreWriteHold {
    private var stores: [NSPersistentStore] = []

    var isHolding: Bool { !stores.isEmpty }

    /// Holds `stores`, in the coordinator's order (the order its saves lock them in).
    mutating func hold(_ stores: [NSPersistentStore]) throws {
        for store in stores where !self.stores.contains(where: { $0 === store }) {
            try store.seam.holdWrites()
            self.stores.append(store)
        }
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
