import Foundation

extension NSPersistentStoreCoordinator {
    /// Moves `store` to `url`: an atomic store (binary, XML, or one of your own) writes its next
    /// save there; an in-memory store or an `NSIncrementalStore` of your own takes the new URL
    /// (a store of your own reads `url` itself). Returns false, and leaves the store where it
    /// was, when `store` is not one of this coordinator's, another of its stores is at `url`, or
    /// the store cannot move.
    ///
    /// ```swift
    /// if coordinator.setURL(savedAs, for: documentStore) {
    ///     try context.save()   // written to savedAs
    /// }
    /// ```
    ///
    /// Differences from Core Data: a SQLite store is not moved while it is open (false): Core Data
    /// reopens its connection on the store already at `url`, but OpenCoreData's readers run beside
    /// the writer and cannot be switched under them. Remove the store and add the one at `url`.
    public func setURL(_ url: URL, for store: NSPersistentStore) -> Bool {
        let stores = persistentStores
        guard stores.contains(where: { $0 === store }),
              !stores.contains(where: { $0 !== store && $0.url?.standardizedFileURL == url.standardizedFileURL }),
              store.seam.movesWithItsURL else { return false }
        // Under the store's lock: a save in progress writes all of its file at one URL.
        store.lock.withLock { store.url = url }
        return true
    }
}
