import Foundation

/// Thrown by a store's load when the store must be migrated through a mapping model that is
/// not performed in place (a custom `.xcmappingmodel` found for its versions): the coordinator
/// then migrates it with an `NSMigrationManager` into a new file and puts that in its place.
package struct MappedMigrationRequest: Error, @unchecked Sendable {
    // @unchecked Sendable: thrown by a store's load and caught by the coordinator's add that
    // called it, on the same thread; the mapping is not touched by anything else meanwhile.
    package let source: NSManagedObjectModel
    package let mapping: NSMappingModel

    package init(source: NSManagedObjectModel, mapping: NSMappingModel) {
        self.source = source
        self.mapping = mapping
    }
}

/// What a store class does to put a migrated store in the place of the old one atomically (the
/// SQLite store: fold the old store's log into it first, refuse when another connection has
/// it open). Store classes without it are replaced by a rename.
package protocol MigratedStoreReplacing {
    static func replaceStore(at url: URL, withMigratedStoreAt migrated: URL) throws
    /// The files of a store at `url` besides `url` itself (logs, support folders).
    static func companionPaths(of url: URL) -> [String]
}

/// Migrates the store at `url` through a mapping model into a new store beside it, then puts
/// the new store in the old one's place: a kill at any moment leaves the old store or the new
/// one, never a mix. A failure leaves the old store as it was and the new one deleted.
package struct MappedStoreMigration {
    let request: MappedMigrationRequest
    let destination: NSManagedObjectModel
    let storeClass: NSPersistentStore.Type
    let storeType: String
    let url: URL
    let options: [AnyHashable: Any]?

    package init(request: MappedMigrationRequest, destination: NSManagedObjectModel, storeClass: NSPersistentStore.Type,
                 storeType: String, url: URL, options: [AnyHashable: Any]?) {
        self.request = request
        self.destination = destination
        self.storeClass = storeClass
        self.storeType = storeType
        self.url = url
        self.options = options
    }

    /// Where the new store is made: a hidden file beside the old one, of the same extension.
    var migratedURL: URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)-migrating")
            .appendingPathExtension(url.pathExtension)
    }

    package func run() throws {
        let migrated = migratedURL
        // What a migration killed before its end left behind.
        try removeStore(at: migrated)
        var destinationOptions = options ?? [:]
        destinationOptions[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        let manager = NSMigrationManager(sourceModel: request.source, destinationModel: destination)
        let progress = options?[OCDMigrationProgressOption] as? Progress
        progress?.totalUnitCount = 100
        do {
            try manager.migrateStore(from: url, sourceType: storeType, options: options, with: request.mapping,
                                     toDestinationURL: migrated, destinationType: storeType, destinationOptions: destinationOptions)
            progress?.completedUnitCount = 99
            if let replacing = storeClass as? any MigratedStoreReplacing.Type {
                try replacing.replaceStore(at: url, withMigratedStoreAt: migrated)
            } else if rename(migrated.path, url.path) != 0 {
                throw CoreDataError.make(.migration, "The migrated store could not be moved to \(url.path): \(String(cString: strerror(errno)))",
                                         [NSURLErrorKey: url])
            }
            progress?.completedUnitCount = 100
        } catch {
            try? removeStore(at: migrated)
            throw CoreDataError.make(.migration, "The store \(url.path) could not be migrated through its mapping model: \(error.localizedDescription)",
                                     [NSURLErrorKey: url, NSUnderlyingErrorKey: error])
        }
    }

    private func removeStore(at migrated: URL) throws {
        let companions = (storeClass as? any MigratedStoreReplacing.Type)?.companionPaths(of: migrated) ?? []
        for path in companions + [migrated.path] where FileManager.default.fileExists(atPath: path) {
            try FileManager.default.removeItem(atPath: path)
        }
    }
}
