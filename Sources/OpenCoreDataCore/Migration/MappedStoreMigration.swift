import Foundation

/// Thrown by a store's load when the store must be migrated through a mapping model that is
/// not performed in place (a custom `.xcmappingmodel` found for its versions): the coordinator
/// then migrates it with an `NSMigrationManager` into a new file and puts that in its place.
package struct MappedMigrationRequest: Error, @unchecked Sendable {
    // @unchecked Sendable: thrown by a store's load and caught by the coordinator's add that
    // called it, on the same thread; the mapping is not touched by anything else meanwhile.
    package let source: NSManagedObjectModel
    package let mapping: NSMappingModel
    /// The metadata the store had when it was loaded: the UUID and the application's keys
    /// carried over to the migrated store.
    package let sourceMetadata: [String: Any]

    package init(source: NSManagedObjectModel, mapping: NSMappingModel, sourceMetadata: [String: Any]) {
        self.source = source
        self.mapping = mapping
        self.sourceMetadata = sourceMetadata
    }
}

/// How a store class puts a migrated store in the place of the old one atomically (the SQLite
/// store: SQLite's online backup into the old file, refused when the old store was written
/// while it was migrated). Store classes without it are replaced by a rename.
package protocol MigratedStoreReplacing {
    /// Starts watching the store at `url`, before it is migrated into another file.
    static func watchForReplacement(of url: URL) throws -> any StoreReplacement
}

/// A store being migrated into another file, watched until the copy replaces it.
package protocol StoreReplacement {
    /// Puts the store at `migrated` in place of the watched one, atomically.
    func replace(with migrated: URL) throws
}

/// Migrates the store at `url` through a mapping model into a new store beside it, then puts
/// the new store in the old one's place: a kill at any moment leaves the old store or the new
/// one, never a mix. A failure leaves the old store as it was and the new one deleted. The new
/// store keeps the old one's UUID and the metadata the application put there.
package struct MappedStoreMigration {
    let request: MappedMigrationRequest
    let destination: NSManagedObjectModel
    let storeClass: NSPersistentStore.Type
    let storeType: String
    let configuration: String?
    let url: URL
    let options: [AnyHashable: Any]?

    package init(request: MappedMigrationRequest, destination: NSManagedObjectModel, storeClass: NSPersistentStore.Type,
                 storeType: String, configuration: String?, url: URL, options: [AnyHashable: Any]?) {
        self.request = request
        self.destination = destination
        self.storeClass = storeClass
        self.storeType = storeType
        self.configuration = configuration
        self.url = url
        self.options = options
    }

    /// Where the new store is made: a hidden file beside the old one, of the same extension.
    var migratedURL: URL { sibling("-migrating").appendingPathExtension(url.pathExtension) }

    /// The lock file that keeps two processes from migrating the store at once.
    var lockURL: URL { sibling("-migrating.lock") }

    private func sibling(_ suffix: String) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)\(suffix)")
    }

    package func run() throws {
        let lock = try MigrationLock(at: lockURL, store: url)
        defer { lock.release() }
        let migrated = migratedURL
        // What a migration killed before its end left behind (the lock says none is running).
        try removeStore(at: migrated)
        var destinationOptions = options ?? [:]
        destinationOptions[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        // The file is tidied once, when the migrated store is added, not at every step.
        destinationOptions[NSSQLiteManualVacuumOption] = nil
        destinationOptions[NSSQLiteAnalyzeOption] = nil
        // The store type's manager class (a subclass of the application's own, say), as Core Data does.
        let managerClass = storeClass.migrationManagerClass() as? NSMigrationManager.Type ?? NSMigrationManager.self
        let manager = managerClass.init(sourceModel: request.source, destinationModel: destination)
        manager.configurationName = configuration
        let progress = options?[OCDMigrationProgressOption] as? Progress
        progress?.totalUnitCount = 100
        manager.openingProgress = progress
        do {
            let sourceMetadata = try currentSourceMetadata()
            let replacement = try (storeClass as? any MigratedStoreReplacing.Type)?.watchForReplacement(of: url)
            try manager.migrateStore(from: url, sourceType: storeType, options: options, with: request.mapping,
                                     toDestinationURL: migrated, destinationType: storeType, destinationOptions: destinationOptions)
            if !FileManager.default.fileExists(atPath: migrated.path) {
                // A store of your own that writes its file only when it saves, migrated with
                // nothing to save: the zero-length file Core Data's stores of your own must take
                // for a new store.
                guard FileManager.default.createFile(atPath: migrated.path, contents: nil) else {
                    throw CoreDataError.make(.migration, "The empty migrated store could not be created at \(migrated.path)", [NSURLErrorKey: url])
                }
            }
            try carryOver(sourceMetadata, to: migrated)
            progress?.completedUnitCount = 99
            if let replacement {
                try replacement.replace(with: migrated)
                try removeStore(at: migrated)
            } else if rename(migrated.path, url.path) != 0 {
                throw CoreDataError.make(.migration, "The migrated store could not be moved to \(url.path): \(String(cString: strerror(errno)))",
                                         [NSURLErrorKey: url])
            }
            progress?.completedUnitCount = 100
        } catch {
            try? removeStore(at: migrated)
            if (error as NSError).domain == NSCocoaErrorDomain && (error as NSError).code == CocoaError.Code.migrationCancelled.rawValue {
                throw CoreDataError.make(.migrationCancelled, "The migration of \(url.path) was cancelled; the store is as it was",
                                         [NSURLErrorKey: url, NSUnderlyingErrorKey: error])
            }
            throw CoreDataError.make(.migration, "The store \(url.path) could not be migrated through its mapping model: \(error.localizedDescription)",
                                     [NSURLErrorKey: url, NSUnderlyingErrorKey: error])
        }
    }

    /// The store's metadata as it is now, read under the migration's lock; for a store class of
    /// your own that cannot read a file's metadata without adding it, the metadata it was loaded with.
    private func currentSourceMetadata() throws -> [String: Any] {
        try unlessUnaddedMetadataIsUnsupported {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: storeType, at: url)
        } ?? request.sourceMetadata
    }

    /// The old store's UUID (which its objects' URIs name) and the application's metadata, in
    /// the migrated store, whose model keys are the new model's. A store class of your own that
    /// cannot read or write a file's metadata without adding it keeps the migrated store's own.
    private func carryOver(_ sourceMetadata: [String: Any], to migrated: URL) throws {
        guard var metadata = try unlessUnaddedMetadataIsUnsupported({
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: storeType, at: migrated)
        }) else { return }
        for (key, value) in sourceMetadata where !StoreMetadataKey.modelKeys.contains(key) && !StoreMetadataKey.fileStateKeys.contains(key) && key != NSStoreTypeKey {
            metadata[key] = value
        }
        try unlessUnaddedMetadataIsUnsupported {
            try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: storeType, at: migrated)
        }
    }

    /// What `body` answers; nil when it reads or writes the metadata of a file of a store class
    /// of your own that cannot do so without adding the store (the defaults of
    /// `metadataForPersistentStore(with:)` and `setMetadata(_:forPersistentStoreAt:)` throw 134000).
    @discardableResult
    private func unlessUnaddedMetadataIsUnsupported<Answer>(_ body: () throws -> Answer) throws -> Answer? {
        do {
            return try body()
        } catch let error as CocoaError where error.code == .persistentStoreInvalidType && !StoreClassRegistry.isBuiltIn(storeType) {
            return nil
        }
    }

    private func removeStore(at migrated: URL) throws {
        // With the companions a SQLite store keeps beside it: its logs, and the folder of its
        // external binary data (whose files a SQLite store's replacement has taken over).
        let support = migrated.deletingLastPathComponent()
            .appendingPathComponent(".\(migrated.deletingPathExtension().lastPathComponent)_SUPPORT").path
        for path in [migrated.path + "-wal", migrated.path + "-shm", migrated.path + "-journal", support, migrated.path]
        where FileManager.default.fileExists(atPath: path) {
            try FileManager.default.removeItem(atPath: path)
        }
    }
}

/// An advisory lock (`flock`) on a file beside a store, held while the store is migrated into
/// another file; the system releases it when the process ends, however it ends.
private struct MigrationLock {
    let descriptor: Int32

    init(at url: URL, store: URL) throws {
        descriptor = open(url.path, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0 else {
            throw CoreDataError.make(.migration, "Can't create the lock file \(url.path) to migrate \(store.path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw CoreDataError.make(.migration, "The store \(store.path) is being migrated by another process; add it again once that migration is done",
                                     [NSURLErrorKey: store])
        }
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
