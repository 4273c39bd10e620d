import Foundation

/// The coordinator's opening sequence for a store of any type: metadata → compatibility →
/// migrate → load.
///
/// 1. An `NSStagedMigrationManager` in the options takes the store through its stages first.
/// 2. The store loads (reads its metadata and, for the built-in stores, its schema).
/// 3. Compatibility. A store that compares itself with the model while it loads (the SQLite store,
///    by its hashes and its tables) reports what differs as 134100, or migrates itself in place
///    as `StoreMigrationPlanner` plans it — in the same transaction as the check, which is why the
///    check is not done twice. For every other store (`NSIncrementalStore`s of your own) the
///    coordinator compares the version hashes the store recorded in its metadata
///    (`NSStoreModelVersionHashes`) with the model's, exactly; a store that records none opens as
///    it is, as the store's own `loadMetadata()` then vouches for it.
/// 4. A store that does not fit is, by `IncompatibleStorePolicy`: migrated as the planner plans it
///    — a mapping that is not performed in place goes through an `NSMigrationManager` into a new
///    file that takes the old one's place (`MappedStoreMigration`) — destroyed and created empty,
///    or refused with 134100 listing what differs. Then the store is loaded again.
/// 5. A store that fits reads its contents (`StoreSeam.finishLoading()`: an atomic store reads its
///    whole graph only now, once its metadata was found to fit).
struct StoreOpening {
    let coordinator: NSPersistentStoreCoordinator
    let storeClass: NSPersistentStore.Type
    let storeType: String
    let configurationName: String?
    let storeURL: URL?
    /// The add's options; after the stages of a staged migration, those for the rest of the way.
    var options: [AnyHashable: Any]?

    private var model: NSManagedObjectModel { coordinator.managedObjectModel }
    private var url: URL { storeURL ?? URL(fileURLWithPath: "/dev/null") }
    private var entities: [NSEntityDescription] {
        model.entities(forConfigurationName: configurationName) ?? model.entities
    }

    /// The store, loaded and fitting the model.
    func open() throws -> NSPersistentStore {
        if storeURL != nil, storeType != NSInMemoryStoreType, coordinator.persistentStore(for: url) != nil {
            throw CoreDataError.store(.persistentStoreOpen, "The store at \(url.path) is already added to this coordinator", url: url)
        }
        let store = makeStore()
        if let manager = options?[NSPersistentStoreStagedMigrationManagerOptionKey] as? NSStagedMigrationManager,
           storeURL != nil, storeType != NSInMemoryStoreType, !store.isReadOnly {
            // The stages first; then the store is added as any other (made with the options for
            // the rest of the way), and migrated the rest of the way if the stages stop short.
            var rest = self
            rest.options = try StagedMigration(manager: manager, destination: model, storeType: storeType,
                                               configuration: configurationName, url: url, options: options).run()
            let opened = try rest.openAfterStages(rest.makeStore())
            // The rest of the way is done, whether or not it had to migrate.
            (rest.options?[OCDMigrationProgressOption] as? StagedMigration.StepProgress)?.finish()
            return opened
        }
        return try openAfterStages(store)
    }

    private func openAfterStages(_ made: NSPersistentStore) throws -> NSPersistentStore {
        var store = made
        do {
            try load(store)
        } catch let request as MappedMigrationRequest {
            try migrate(through: request)
            store = try reloaded()
        } catch let error as CocoaError
                    where error.code == .persistentStoreIncompatibleVersionHash && IncompatibleStorePolicy(options: options) == .destroyAndRecreate {
            store = try recreated(store, refusal: error)
        }
        return store
    }

    private func makeStore() -> NSPersistentStore {
        let store = storeClass.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
        store.addedType = storeType
        return store
    }

    /// Loads `store`, and checks that it fits the model where it does not check itself.
    private func load(_ store: NSPersistentStore) throws {
        try store.seam.load(model: model, entities: entities)
        guard !store.seam.comparesItselfWithModel else { return try store.seam.finishLoading() }
        if StoreOptionFlag.isOn(options?[NSIgnorePersistentStoreVersioningOption]) {
            // Not compared; the store records the model's hashes from now on (with its next save).
            if !store.isReadOnly, let adopted = model.metadata(store.metadata ?? [:], adoptingVersionHashesOf: NSManagedObjectModel.withSubentities(entities)) {
                store.metadata = adopted
            }
            return try store.seam.finishLoading()
        }
        let metadata = store.metadata ?? [:]
        let differences = versionHashDifferences(of: metadata, from: model)
        guard let refusal = StoreDifference.incompatibilityError(differences, url: storeURL) else { return try store.seam.finishLoading() }
        store.seam.unload()
        let planner = StoreMigrationPlanner(destination: model, configuration: configurationName, options: options, url: storeURL)
        guard planner.isMigrationRequested, !store.isReadOnly, storeURL?.isFileURL == true else { throw refusal }
        // Only the hashes are known of a store of your own: a source model fits when they are its.
        let plan = try planner.plan(metadata: metadata, storedModel: { nil },
                                    fits: { versionHashDifferences(of: metadata, from: $0).isEmpty })
        throw MappedMigrationRequest(source: plan.source.model, mapping: plan.mapping, sourceMetadata: metadata)
    }

    /// How the version hashes in `metadata` differ from those of `candidate`'s entities of the
    /// store's configuration; none when the metadata records no hashes. An entity whose hash
    /// OpenCoreData does not know to be Apple's is not compared: the file may have been written
    /// by Core Data, and a guessed hash must never refuse (or destroy) a store Core Data accepts.
    private func versionHashDifferences(of metadata: [String: Any], from candidate: NSManagedObjectModel) -> [StoreDifference] {
        let entities = candidate.versionHashedEntities(forConfigurationName: configurationName) ?? candidate.entities
        return StoreDifference.versionHashDifferences(in: metadata, entities: entities, exactHashesOnly: true)
    }

    /// Migrates the store through a mapping into a new file that takes the old one's place.
    private func migrate(through request: MappedMigrationRequest) throws {
        guard storeURL != nil else { throw CoreDataError.make(.migration, "A store without a URL cannot be migrated") }
        try MappedStoreMigration(request: request, destination: model, storeClass: storeClass, storeType: storeType,
                                 configuration: configurationName, url: url, options: options).run()
    }

    /// The migrated store, opened as any store that fits.
    private func reloaded() throws -> NSPersistentStore {
        let store = makeStore()
        do {
            try load(store)
        } catch is MappedMigrationRequest {
            throw CoreDataError.store(.migration, "The store \(url.path) still needs migrating after its migration through a mapping model", url: url)
        }
        return store
    }

    /// A store that only caches: its files go, and an empty store takes their place. A store
    /// without a file URL has nothing to destroy.
    private func recreated(_ refused: NSPersistentStore, refusal: CocoaError) throws -> NSPersistentStore {
        guard storeURL?.isFileURL == true, !refused.isReadOnly, try refused.seam.destroyFiles() else { throw refusal }
        let store = makeStore()
        try load(store)
        return store
    }
}
