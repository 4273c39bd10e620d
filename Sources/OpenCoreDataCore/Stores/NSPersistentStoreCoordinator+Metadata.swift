import Foundation

extension NSPersistentStoreCoordinator {
    /// The metadata of the store file at `url`, read without adding the store to a coordinator.
    ///
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    /// if !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
    ///     // the store was written with another version of the model
    /// }
    /// ```
    /// The result is the store's `Z_METADATA` property list (`NSStoreModelVersionHashes`,
    /// `NSStoreModelVersionIdentifiers`, whatever the application stored…) with `NSStoreUUID`
    /// and `NSStoreType` added. The file is opened read-only: it is never created or changed.
    ///
    /// Throws `CocoaError.fileReadNoSuchFile` (260) when there is no file at `url`, and
    /// `NSPersistentStoreInvalidTypeError` (134000) when the file is not a SQLite database, is
    /// not a Core Data store, its metadata is not a property list, or `storeType` is neither
    /// `NSSQLiteStoreType` nor a registered type (whose class's `metadataForPersistentStore(with:)`
    /// answers). Every message names the file. `options` are
    /// accepted for compatibility and not used.
    public class func metadataForPersistentStore(ofType storeType: String, at url: URL,
                                                 options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try fileStoreClass(for: storeType, url: url).metadataForPersistentStore(with: url)
    }

    /// Replaces the metadata of the store file at `url`, without adding the store to a
    /// coordinator.
    ///
    /// ```swift
    /// var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    /// metadata["lastImport"] = Date()
    /// try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: url)
    /// ```
    /// The whole property list is replaced (nil stores an empty one), except Core Data's own
    /// keys (the version hashes and identifiers), which are kept when `metadata` leaves them out.
    /// A `NSStoreUUID` in `metadata` becomes the store's UUID; without one, the UUID is kept. Written in one transaction; a store of the same file
    /// that is open elsewhere keeps the metadata it read until it is opened again.
    ///
    /// Throws as `metadataForPersistentStore(ofType:at:options:)`, and
    /// `NSPersistentStoreSaveError` (134030) when a value cannot be put in a property list.
    public class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreOfType storeType: String, at url: URL,
                                  options: [AnyHashable: Any]? = nil) throws {
        try fileStoreClass(for: storeType, url: url).setMetadata(metadata, forPersistentStoreAt: url)
    }

    /// The class that reads and writes the metadata of files of `storeType`.
    private class func fileStoreClass(for storeType: String, url: URL) throws -> NSPersistentStore.Type {
        if storeType != NSInMemoryStoreType, let storeClass = StoreClassRegistry.openingClass(for: storeType) { return storeClass }
        let reason = storeType == NSInMemoryStoreType ? "in-memory stores have no file" : "the store type is unknown"
        throw CoreDataError.store(.persistentStoreInvalidType,
                                  "Can't read or write the metadata of \(url.path) as a store of type '\(storeType)': \(reason)", url: url)
    }
}

extension NSPersistentStoreCoordinator {
    /// Deletes the store of a registered type of your own at `url` (removed from this
    /// coordinator first): the regular file there, as the coordinator destroys such a store under
    /// `.destroyAndRecreate`. False when `storeType` is not a registered type of your own; a
    /// missing file is no error; anything but a regular file there is refused (134000) and left.
    package func destroyStoreOfRegisteredType(at url: URL, ofType storeType: String) throws -> Bool {
        guard !StoreClassRegistry.isBuiltIn(storeType), let storeClass = StoreClassRegistry.storeClass(for: storeType) else { return false }
        if let store = persistentStore(for: url) { try remove(store) }
        let unloaded = storeClass.init(persistentStoreCoordinator: nil, configurationName: nil, at: url, options: nil)
        guard try unloaded.seam.destroyFiles() else {
            throw CoreDataError.store(.persistentStoreInvalidType,
                                      "The store \(url.path) of type '\(storeType)' is not a regular file at a file URL, and is left as it is", url: url)
        }
        return true
    }
}
