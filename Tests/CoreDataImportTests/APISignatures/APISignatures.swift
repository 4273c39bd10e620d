/// Compile-time checks of Apple's Swift signatures, one per symbol that `Docs/API` lists as
/// provided (or provided with a documented difference).
///
/// Each check is a closure that is never run: it compiles only when OpenCoreData declares the
/// symbol with Apple's labels, types, defaults, `throws`/`async`, and no `@Sendable` where
/// Apple's SDK has none. `APIListTests` compares the symbols checked here with the list.
enum APISignatures {
    /// Collects the symbols of the checks it is handed.
    struct Checks {
        private(set) var symbols: [String] = []

        mutating func callAsFunction(_ symbol: String, _ check: () async throws -> Void) {
            symbols.append(symbol)
        }
    }

    /// Every group of checks, one per file of `Docs/API`.
    static let groups: [@Sendable (inout Checks) -> Void] = [
        nsManagedObjectContext, nsManagedObject, nsManagedObjectID, nsMergePolicy, nsQueryGenerationToken, coreDataErrors,
        coreDataDefines, nsManagedObjectModel, nsEntityDescription, nsPropertyDescription, nsAttributeDescription,
        nsRelationshipDescription, nsFetchedPropertyDescription, nsDerivedAttributeDescription,
        nsCompositeAttributeDescription, nsExpressionDescription, nsFetchIndexDescription,
        nsFetchIndexElementDescription, nsManagedObjectModelReference,
        nsAtomicStore, nsAtomicStoreCacheNode, nsBatchDeleteRequest, nsBatchInsertRequest, nsBatchUpdateRequest,
        nsCustomMigrationStage, nsEntityMapping, nsEntityMigrationPolicy, nsFetchRequest,
        nsFetchRequestExpression, nsFetchedResultsController, nsIncrementalStore, nsIncrementalStoreNode,
        nsLightweightMigrationStage, nsMappingModel, nsMigrationManager, nsMigrationStage,
        nsPersistentContainer, nsPersistentHistoryChange, nsPersistentHistoryChangeRequest,
        nsPersistentHistoryToken, nsPersistentHistoryTransaction, nsPersistentStore,
        nsPersistentStoreCoordinator, nsPersistentStoreDescription, nsPersistentStoreRequest,
        nsPersistentStoreResult, nsPropertyMapping, nsSaveChangesRequest, nsStagedMigrationManager,
        nsPersistentCloudKitContainer, nsPersistentCloudKitContainerOptions, nsPersistentCloudKitContainerEvent,
        nsPersistentCloudKitContainerEventRequest,
    ]

    /// The symbols checked, in the order written.
    static var checkedSymbols: [String] {
        var checks = Checks()
        for group in groups { group(&checks) }
        return checks.symbols
    }
}
