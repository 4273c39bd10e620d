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
    /// `NSPersistentStoreInvalidTypeError` (134000) when the file is not a store of that type
    /// (for SQLite: not a SQLite database, not a Core Data store, or metadata that is not a
    /// property list), or `storeType` has no file (`NSInMemoryStoreType`) or is unknown; a
    /// registered type answers through its class's `metadataForPersistentStore(with:)`. Every
    /// message names the file. `options` are
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

    /// The metadata of the store file at `url`, whatever its type: each type with files is
    /// asked in turn — SQLite, binary, XML, then the registered types by name — and the first
    /// that reads the file answers (its `NSStoreType` says which).
    ///
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(with: url)
    /// metadata[NSStoreTypeKey]   // "SQLite"
    /// ```
    /// Deprecated by Apple (macOS 10.5) for `metadataForPersistentStore(ofType:at:options:)`,
    /// which names the type. Throws `CocoaError.fileReadNoSuchFile` (260) when there is no file
    /// at `url`, and `NSPersistentStoreInvalidTypeError` (134000), naming the file and each type
    /// tried, when no type reads it.
    public class func metadataForPersistentStore(with url: URL) throws -> [AnyHashable: Any] {
        guard url.isFileURL, FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError.store(.fileReadNoSuchFile, "There is no persistent store file at \(url.path)", url: url)
        }
        // A SQLite file is read as one, and its own error (busy, unreadable, damaged) is the answer:
        // the other types would read the whole database only to refuse it.
        if isSQLiteFile(url), let sqlite = StoreClassRegistry.openingClass(for: NSSQLiteStoreType) {
            return try sqlite.metadataForPersistentStore(with: url)
        }
        let builtIn = [NSSQLiteStoreType, NSBinaryStoreType, NSXMLStoreType]
        let registered = StoreClassRegistry.allOpeningClasses().keys.filter { !builtIn.contains($0) && $0 != NSInMemoryStoreType }.sorted()
        var tried: [String] = []
        for storeType in builtIn + registered {
            guard let storeClass = StoreClassRegistry.openingClass(for: storeType) else { continue }
            tried.append(storeType)
            if let metadata = try? storeClass.metadataForPersistentStore(with: url) {
                var typed = metadata
                typed[NSStoreTypeKey] = typed[NSStoreTypeKey] ?? storeType
                return typed
            }
        }
        throw CoreDataError.store(.persistentStoreInvalidType,
                                  "The file \(url.path) is not a store of any known type (tried \(tried.joined(separator: ", ")))", url: url)
    }

    /// Whether the file at `url` begins with SQLite's header string.
    private class func isSQLiteFile(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
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
    /// The iOS 15 spelling of `metadataForPersistentStore(ofType:at:options:)`.
    public class func metadataForPersistentStore(type storeType: NSPersistentStore.StoreType, at url: URL,
                                                 options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try metadataForPersistentStore(ofType: storeType.rawValue, at: url, options: options)
    }

    /// The iOS 15 spelling of `setMetadata(_:forPersistentStoreOfType:at:options:)`.
    public class func setMetadata(_ metadata: [String: Any]?, type storeType: NSPersistentStore.StoreType, at url: URL,
                                  options: [AnyHashable: Any]? = nil) throws {
        try setMetadata(metadata, forPersistentStoreOfType: storeType.rawValue, at: url, options: options)
    }
}

extension NSPersistentStoreCoordinator {
    /// Deletes a store kept in one file (the binary and XML stores, and registered types of your
    /// own) at `url`, removed from this coordinator first: the regular file there, and what an
    /// interrupted save of an atomic store left beside it. False when `storeType` is not such a
    /// type (SQLite, in-memory); a missing file is no error; anything but a regular file there is
    /// refused (134000) and left.
    package func destroyFileStore(at url: URL, ofType storeType: String) throws -> Bool {
        guard storeType != NSSQLiteStoreType, storeType != NSInMemoryStoreType,
              let storeClass = StoreClassRegistry.openingClass(for: storeType) else { return false }
        if let store = persistentStore(for: url) { try remove(store) }
        let unloaded = storeClass.init(persistentStoreCoordinator: nil, configurationName: nil, at: url, options: nil)
        guard try unloaded.seam.destroyFiles() else {
            throw CoreDataError.store(.persistentStoreInvalidType,
                                      "The store \(url.path) of type '\(storeType)' is not a regular file at a file URL, and is left as it is", url: url)
        }
        return true
    }

    /// Replaces the store file at `destinationURL` with a copy of the store file at `sourceURL`,
    /// for stores kept in one file; the source must be a store of `storeType` (its metadata is
    /// read first) and is only read. The copy replaces the destination atomically. False when
    /// `storeType` is not such a type.
    package func replaceFileStore(at destinationURL: URL, with sourceURL: URL, ofType storeType: String) throws -> Bool {
        guard storeType != NSSQLiteStoreType, storeType != NSInMemoryStoreType,
              let storeClass = StoreClassRegistry.openingClass(for: storeType) else { return false }
        _ = try storeClass.metadataForPersistentStore(with: sourceURL)
        if let store = persistentStore(for: destinationURL) { try remove(store) }
        let data: Data
        do {
            data = try Data(contentsOf: sourceURL)
        } catch {
            throw CoreDataError.store(.persistentStoreOpen, "Can't read the store \(sourceURL.path): \(error.localizedDescription)",
                                      url: sourceURL, underlying: error)
        }
        try AtomicFileWrite.replace(destinationURL, with: data)
        return true
    }
}
