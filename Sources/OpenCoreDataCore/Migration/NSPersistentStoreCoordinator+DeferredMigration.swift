import Foundation

extension NSPersistentStoreCoordinator {
    /// Runs every cleanup task that deferred lightweight migrations left in the coordinator's
    /// stores (see `NSPersistentStoreDeferredLightweightMigrationOptionKey`): the tables of
    /// removed entities and the columns of removed attributes are dropped. Each task is
    /// committed on its own, with the store's metadata, so that a task cut short leaves the
    /// others waiting; once none waits, the store's metadata no longer holds the key.
    ///
    /// ```swift
    /// let store = coordinator.persistentStores[0]
    /// if coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true {
    ///     try coordinator.finishDeferredLightweightMigration()
    /// }
    /// ```
    ///
    /// Nothing waiting is not an error. Differences from Core Data: see the option key.
    public func finishDeferredLightweightMigration() throws {
        for store in persistentStores {
            _ = try store.seam.finishDeferredMigrationTasks(limit: nil)
        }
    }

    /// Runs one cleanup task that a deferred lightweight migration left (the first store's
    /// with one waiting), so that an app can spread the cleanup over idle moments; see
    /// `finishDeferredLightweightMigration()`.
    ///
    /// ```swift
    /// try coordinator.finishDeferredLightweightMigrationTask()
    /// ```
    public func finishDeferredLightweightMigrationTask() throws {
        for store in persistentStores where try store.seam.finishDeferredMigrationTasks(limit: 1) > 0 {
            return
        }
    }
}
