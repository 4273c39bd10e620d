import Foundation

extension NSPersistentStoreCoordinator {
    /// Moves a store to another file and, if asked, another store type ("Save As"): every object
    /// is copied into a new store of `storeType` at `url`, which takes the old store's place in
    /// this coordinator and is returned. The old store is removed from the coordinator and left
    /// on disk as it was.
    ///
    /// ```swift
    /// let binary = try coordinator.migratePersistentStore(sqliteStore, to: backupURL, withType: NSBinaryStoreType)
    /// ```
    /// Objects keep their values, relationships (to-manys in their order) and the application's
    /// metadata keys; they get new object IDs in the new store, so contexts should fetch again.
    /// Any type to any other: SQLite, binary, XML, in-memory, and stores of your own.
    ///
    /// Throws, with the old store still in place and nothing left at `url`: 134080 when `store`
    /// is not one of this coordinator's or a file (or, for a store on a server, a store) already
    /// exists at `url` (it is never overwritten); whatever adding or saving the new store throws.
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
                                       withType storeType: String) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: url, options: options, withType: storeType, progress: nil)
    }

    /// The iOS 15 spelling of `migratePersistentStore(_:to:options:withType:)`.
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
                                       type storeType: NSPersistentStore.StoreType) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: url, options: options, withType: storeType.rawValue)
    }

    /// The same, telling `progress` how many objects were copied of how many.
    package func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]?,
                                        withType storeType: String, progress: ((Int, Int) -> Void)?) throws -> NSPersistentStore {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError.store(.persistentStoreOpen, "The store \(store) is not one of this coordinator's", url: url)
        }
        let inMemory = storeType == NSInMemoryStoreType
        if !inMemory, url.isFileURL, FileManager.default.fileExists(atPath: url.path) {
            throw CoreDataError.store(.persistentStoreOpen, "Can't move the store to \(url.path): a file is already there", url: url)
        }
        // A store on a server (PostgreSQL) is made only where the database holds nothing; what
        // is there is never written to nor destroyed.
        let onServer = !inMemory && !url.isFileURL
        var copyOptions = options
        if onServer { copyOptions = (options ?? [:]).merging([StoreCreationOption.mustBeNew: true]) { _, new in new } }
        // The copy is made on a coordinator of its own, so that this one never holds a half-copied store.
        let staging = NSPersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        let copy: NSPersistentStore
        var made = false
        do {
            copy = try staging.addPersistentStore(ofType: storeType, configurationName: store.configurationName, at: inMemory ? nil : url,
                                                  options: copyOptions)
            made = true
            var metadata = copy.metadata ?? [:]
            for (key, value) in store.metadata ?? [:] where !StoreMetadataKey.modelKeys.contains(key) && !StoreMetadataKey.fileStateKeys.contains(key)
                && key != NSStoreTypeKey && key != NSStoreUUIDKey {
                metadata[key] = value
            }
            copy.metadata = metadata
            try StoreCopy(source: store, destination: copy, progress: progress).run()
            try staging.remove(copy)
        } catch {
            for added in staging.persistentStores { try? staging.remove(added) }
            // Only what this move made goes (a store on a server that refused to be made is not its).
            if !inMemory && (made || !onServer) { try? Self.destroyFiles(at: url, ofType: storeType) }
            throw error
        }
        if inMemory {
            // An in-memory store lives only in its store object: it moves as it is.
            try remove(store)
            adopt(copy)
            return copy
        }
        try remove(store)
        do {
            return try addPersistentStore(ofType: storeType, configurationName: store.configurationName, at: url, options: options)
        } catch {
            // The old store goes back, as it was.
            _ = try? addPersistentStore(ofType: store.type, configurationName: store.configurationName, at: store.url, options: store.options)
            throw error
        }
    }

    /// Deletes a store's files through its class, without adding it.
    private static func destroyFiles(at url: URL, ofType storeType: String) throws {
        guard let storeClass = StoreClassRegistry.openingClass(for: storeType) else { return }
        _ = try storeClass.init(persistentStoreCoordinator: nil, configurationName: nil, at: url, options: nil).seam.destroyFiles()
    }
}
