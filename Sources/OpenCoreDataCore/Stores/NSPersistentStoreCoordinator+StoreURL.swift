import Foundation

extension NSPersistentStoreCoordinator {
    /// Moves `store` to `url`: an atomic store (binary, XML, or one of your own) writes its next
    /// save there; a SQLite store closes its connection and opens the store already at `url`
    /// (Core Data creates none there), with the options it was added with. Returns false, and
    /// leaves the store where it was, when `store` is not one of this coordinator's or the store
    /// at `url` cannot be opened with the model.
    ///
    /// ```swift
    /// try FileManager.default.copyItem(at: current, to: moved)   // a closed store, or a backup
    /// let moved = coordinator.setURL(moved, for: store)
    /// ```
    ///
    /// Differences from Core Data: a SQLite store's query generations pinned before the move end
    /// with it (its readers are closed), and objects registered in contexts are not refreshed —
    /// as with Core Data, the file at `url` is taken to be the same store.
    public func setURL(_ url: URL, for store: NSPersistentStore) -> Bool {
        guard persistentStores.contains(where: { $0 === store }) else { return false }
        let previous = store.url
        store.url = url
        let entities = managedObjectModel.entities(forConfigurationName: store.configurationName) ?? managedObjectModel.entities
        do {
            try store.seam.reconnect(model: managedObjectModel, entities: entities, previous: previous)
            return true
        } catch {
            store.url = previous
            return false
        }
    }
}
