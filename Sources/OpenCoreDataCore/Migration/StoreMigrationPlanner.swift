import Foundation

/// Decides what becomes of a store that no longer fits the model it is added with: the
/// compatibility → migrate part of the opening sequence, the same for every store type.
///
/// The store's options ask for a migration (`NSMigratePersistentStoresAutomaticallyOption`, and
/// an `IncompatibleStorePolicy` of `.migrate`); the source model is found (`SourceModelSearch`);
/// a mapping model of the application's own for the two versions is used if there is one, and
/// otherwise one is inferred, if `NSInferMappingModelAutomaticallyOption` allows it (Core Data's
/// inference needs both options; `NSPersistentStoreDescription` sets both by default). Who
/// performs the plan depends on the store: the SQLite store performs an inferred mapping in
/// place, in SQL, while it loads; every other migration goes through an `NSMigrationManager`
/// into a new file that then takes the old one's place (`MappedStoreMigration`).
package struct StoreMigrationPlanner {
    /// What to migrate the store through.
    package enum Plan {
        /// A mapping inferred from the two versions.
        case inferred(SourceModelSearch.Found, NSMappingModel)
        /// A mapping model of the application's own (an `.xcmappingmodel` found for the versions).
        case mapped(SourceModelSearch.Found, NSMappingModel)

        package var source: SourceModelSearch.Found {
            switch self {
            case .inferred(let found, _), .mapped(let found, _): found
            }
        }

        package var mapping: NSMappingModel {
            switch self {
            case .inferred(_, let mapping), .mapped(_, let mapping): mapping
            }
        }
    }

    let destination: NSManagedObjectModel
    let configuration: String
    let options: [AnyHashable: Any]?
    let url: URL?
    /// The source model's versions, searched while the store is compared with the model
    /// (nil: when needed).
    package var prefetch: MigrationPrefetch?

    package init(destination: NSManagedObjectModel, configuration: String?, options: [AnyHashable: Any]?, url: URL?) {
        self.destination = destination
        self.configuration = configuration ?? "PF_DEFAULT_CONFIGURATION_NAME"
        self.options = options
        self.url = url
    }

    /// Whether the options ask for a store that no longer fits to be migrated at all: through a
    /// mapping model of the application's own, or an inferred one if `allowsInference`.
    package var isMigrationRequested: Bool {
        StoreOptionFlag.isOn(options?[NSMigratePersistentStoresAutomaticallyOption]) && IncompatibleStorePolicy(options: options) == .migrate
    }

    /// Whether the options let the mapping be inferred (`NSInferMappingModelAutomaticallyOption`).
    package var allowsInference: Bool { StoreOptionFlag.isOn(options?[NSInferMappingModelAutomaticallyOption]) }

    /// The plan for a store whose metadata is `metadata`, once it is known not to fit and
    /// `isMigrationRequested`. `storedModel` reads the copy of its model the store keeps (nil
    /// when it keeps none); `fits` says whether the store fits a candidate source model.
    /// Throws 134130 when no source model is found, 134140 when there is no mapping model and
    /// none may or can be inferred.
    package func plan(metadata: [String: Any], storedModel: () throws -> NSManagedObjectModel?,
                      fits: (NSManagedObjectModel) throws -> Bool) throws -> Plan {
        // With a prefetch searching the versions, the mapping model folders are listed meanwhile.
        let files = prefetch.map { _ in NSMappingModel.mappingModelFiles(for: destination, in: nil) }
        let found = try sourceModelSearch(metadata: metadata)
            .find(storedModel: storedModel, fits: fits, url: url, versions: { prefetch?.versionSearch() })
        if let mapping = NSMappingModel.mappingModel(in: nil, from: found.model, to: destination, files: files) {
            return .mapped(found, mapping)
        }
        guard allowsInference else {
            var info: [String: Any] = [:]
            if let url { info[NSURLErrorKey] = url }
            throw CoreDataError.make(.migrationMissingMappingModel,
                                     "Can't find a mapping model to migrate \(storeName) from \(found.origin) to the current model, and NSInferMappingModelAutomaticallyOption does not allow one to be inferred",
                                     info)
        }
        return .inferred(found, try inferredMapping(from: found))
    }

    /// The search for the model that wrote a store whose metadata is `metadata`; a prefetch
    /// made with it must be made with the metadata `plan` is given.
    package func sourceModelSearch(metadata: [String: Any]) -> SourceModelSearch {
        SourceModelSearch(destination: destination, configuration: configuration, metadata: metadata, options: options)
    }

    /// The mapping inferred from the source model found; as Core Data's, a mapping that cannot
    /// be inferred fails with 134140, the inference's 134190 underneath.
    package func inferredMapping(from found: SourceModelSearch.Found) throws -> NSMappingModel {
        do {
            return try NSMappingModel.inferredMappingModel(forSourceModel: found.model, destinationModel: destination)
        } catch let error as CocoaError {
            var info = error.userInfo
            info[NSUnderlyingErrorKey] = error
            if let url { info[NSURLErrorKey] = url }
            throw CoreDataError.make(.migrationMissingMappingModel,
                                     "Can't find or automatically infer a mapping model to migrate \(storeName) from \(found.origin): \((error.userInfo[NSLocalizedDescriptionKey] as? String) ?? "\(error)")",
                                     info)
        }
    }

    private var storeName: String { url?.path ?? "the store" }
}
