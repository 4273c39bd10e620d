import Foundation

/// Runs an `NSStagedMigrationManager`'s stages on a store about to be added (see the manager's
/// documentation for what happens and in which order).
package struct StagedMigration {
    /// One step of the chain: a migration from one model version to the next, by lightweight
    /// migration, inside a custom stage (whose handlers run around it) or not.
    struct Step {
        let from: NSManagedObjectModel
        let to: NSManagedObjectModel
        let stage: NSMigrationStage
        let custom: NSCustomMigrationStage?
    }

    let manager: NSStagedMigrationManager
    let destination: NSManagedObjectModel
    let storeType: String
    let configuration: String?
    let url: URL
    let options: [AnyHashable: Any]?

    package init(manager: NSStagedMigrationManager, destination: NSManagedObjectModel, storeType: String,
                 configuration: String?, url: URL, options: [AnyHashable: Any]?) {
        self.manager = manager
        self.destination = destination
        self.storeType = storeType
        self.configuration = configuration
        self.url = url
        self.options = options
    }

    /// Takes the store through the steps from the version it is at to the coordinator's
    /// model (or to the end of the stages). A store that fits the model already, that is not
    /// a store whose metadata can be read, or whose version no stage names, is left alone.
    package func run() throws {
        guard FileManager.default.fileExists(atPath: url.path),
              let metadata = try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: storeType, at: url) else { return }
        let fits = destination.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata)
        if fits && metadata[Self.pendingHandlerKey] == nil { return }
        let steps = try chain()
        let models = [steps.first?.from].compactMap { $0 } + steps.map(\.to)
        guard let start = models.firstIndex(where: { $0.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) })
        else { return }
        if let end = models.firstIndex(where: { sameVersion($0, destination) }), end < start {
            throw CoreDataError.make(.stagedMigrationBackwardMigration,
                                     "The store \(url.path) was written with a later version of the model (checksum \(models[start].versionChecksum)) than the coordinator's (checksum \(destination.versionChecksum)): a staged migration does not go back",
                                     [NSURLErrorKey: url])
        }
        // A stage migrated before a kill or a failure of its `didMigrateHandler`: the handler
        // runs again first.
        if let pending = metadata[Self.pendingHandlerKey] as? String, pending == models[start].versionChecksum, start > 0,
           let custom = steps[start - 1].custom, let handler = custom.didMigrateHandler {
            try withContainer(on: models[start], for: custom, handler: "didMigrateHandler") { try handler(manager, custom) }
            try markPendingHandler(nil)
        }
        if fits { return }
        for step in steps[start...] {
            try perform(step)
            if sameVersion(step.to, destination) { return }
        }
    }

    /// The store's metadata key naming the version (by checksum) whose custom stage's
    /// `didMigrateHandler` has not completed yet: set before the stage migrates, cleared when
    /// the handler returns. An OpenCoreData key.
    static let pendingHandlerKey = "OCDStagedMigrationPendingDidMigrateHandler"

    /// Sets or clears `pendingHandlerKey` in the store's metadata.
    private func markPendingHandler(_ checksum: String?) throws {
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: storeType, at: url)
        guard (metadata[Self.pendingHandlerKey] as? String) != checksum else { return }
        metadata[Self.pendingHandlerKey] = checksum
        try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: storeType, at: url)
    }

    /// Every step the stages describe, in order, with the models resolved.
    func chain() throws -> [Step] {
        var steps: [Step] = []
        var last: NSManagedObjectModel?
        let known = try knownModels()
        for stage in manager.stages {
            var models: [NSManagedObjectModel]
            switch stage {
            case let custom as NSCustomMigrationStage:
                models = [try custom.currentModel.resolve(), try custom.nextModel.resolve()]
            case let lightweight as NSLightweightMigrationStage:
                models = try lightweight.versionChecksums.map { try model(withChecksum: $0, among: known, in: stage) }
            default:
                throw CoreDataError.make(.migration, "\(stage) is neither a lightweight nor a custom migration stage")
            }
            // Two stages that do not meet at one version are joined by a lightweight step.
            if let last, let first = models.first, !sameVersion(last, first) {
                steps.append(Step(from: last, to: first, stage: stage, custom: nil))
            }
            for (from, to) in zip(models, models.dropFirst()) {
                steps.append(Step(from: from, to: to, stage: stage, custom: stage as? NSCustomMigrationStage))
            }
            last = models.last ?? last
        }
        return steps
    }

    /// The models a lightweight stage's checksums can name: the custom stages' models, the
    /// coordinator's model and every version of the file it was loaded from.
    private func knownModels() throws -> [NSManagedObjectModel] {
        var models: [NSManagedObjectModel] = [destination]
        for case let custom as NSCustomMigrationStage in manager.stages {
            models += [try custom.currentModel.resolve(), try custom.nextModel.resolve()]
        }
        if let file = destination.fileURL {
            for version in ModelVersionCandidates.everyVersion(of: file) {
                if let model = try? ModelVersionCandidates.load(version) { models.append(model) }
            }
        }
        return models
    }

    private func model(withChecksum checksum: String, among models: [NSManagedObjectModel],
                       in stage: NSMigrationStage) throws -> NSManagedObjectModel {
        if let model = models.first(where: { $0.versionChecksum == checksum }) { return model }
        throw CoreDataError.make(.managedObjectModelReferenceNotFound,
                                 "No model with the version checksum \(checksum), which \(stage) names, was found among the \(models.count) models known (the coordinator's model, the versions of its model file and the models of the custom stages)")
    }

    /// Two models of the same version: the same entities with the same version hashes.
    private func sameVersion(_ a: NSManagedObjectModel, _ b: NSManagedObjectModel) -> Bool {
        a === b || a.entityVersionHashesByName == b.entityVersionHashesByName
    }

    /// One step: the custom stage's first handler, the migration, its second handler.
    private func perform(_ step: Step) throws {
        if let custom = step.custom, let handler = custom.willMigrateHandler {
            try withContainer(on: step.from, for: custom, handler: "willMigrateHandler") { try handler(manager, custom) }
        }
        let runsAfter = step.custom?.didMigrateHandler != nil
        // Recorded in the store before it migrates, so that the migration carries it over: a
        // kill before the handler is done leaves it for the next add to run the handler again.
        if runsAfter { try markPendingHandler(step.to.versionChecksum) }
        try migrate(from: step.from, to: step.to, in: step.stage)
        if let custom = step.custom, let handler = custom.didMigrateHandler {
            try withContainer(on: step.to, for: custom, handler: "didMigrateHandler") { try handler(manager, custom) }
        }
        if runsAfter { try markPendingHandler(nil) }
    }

    /// Migrates the store by lightweight migration, `from` given as the source model: the store
    /// is added to a coordinator of `to` and removed again.
    private func migrate(from source: NSManagedObjectModel, to model: NSManagedObjectModel, in stage: NSMigrationStage) throws {
        var stepOptions = options ?? [:]
        stepOptions[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        stepOptions[NSMigratePersistentStoresAutomaticallyOption] = true
        stepOptions[NSInferMappingModelAutomaticallyOption] = true
        stepOptions[OCDIncompatibleStorePolicyOption] = nil
        stepOptions[OCDMigrationSourceModelsOption] = [source]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        do {
            let store = try coordinator.addPersistentStore(ofType: storeType, configurationName: configuration, at: url, options: stepOptions)
            try coordinator.remove(store)
        } catch let error as CocoaError {
            var info = error.userInfo
            info[NSLocalizedDescriptionKey] = "In \(step(describing: stage)), from checksum \(source.versionChecksum) to \(model.versionChecksum): \(error.localizedDescription)"
            throw CocoaError(error.code, userInfo: info)
        }
    }

    /// Runs `body` with the store open on `model` in the manager's `container`.
    private func withContainer(on model: NSManagedObjectModel, for stage: NSCustomMigrationStage, handler: String,
                               _ body: () throws -> Void) throws {
        let container = NSPersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.type = storeType
        description.configuration = configuration
        description.shouldMigrateStoreAutomatically = false
        container.persistentStoreDescriptions = [description]
        let coordinator = container.persistentStoreCoordinator
        let store = try coordinator.addPersistentStore(ofType: storeType, configurationName: configuration, at: url,
                                                       options: description.storeOptions)
        manager.container = container
        defer {
            manager.container = nil
            try? coordinator.remove(store)
        }
        do {
            try body()
        } catch {
            throw CoreDataError.make(.migration, "The \(handler) of \(step(describing: stage)) failed for the store \(url.path): \(error)",
                                     [NSURLErrorKey: url, NSUnderlyingErrorKey: error])
        }
    }

    private func step(describing stage: NSMigrationStage) -> String {
        let index = manager.stages.firstIndex { $0 === stage }.map { " (stage \($0 + 1) of \(manager.stages.count))" } ?? ""
        return "\(stage)\(index)"
    }
}
