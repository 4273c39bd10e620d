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
    ///
    /// The options' `Progress` (`OCDMigrationProgressOption`) gets one unit per step, and one
    /// for the rest of the way when the stages stop short of the model; each step's migration
    /// reports to a child of it (its entity names reach the parent too). Cancelling it stops the
    /// migration before the next step, or inside the current one, with 134120: the store is left
    /// whole at the version the last finished step reached, and the next add goes on from there.
    /// Returns the options for the rest of the add (their progress the child for the rest).
    package func run() throws -> [AnyHashable: Any]? {
        guard FileManager.default.fileExists(atPath: url.path),
              let metadata = try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: storeType, at: url) else { return options }
        let fits = destination.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata)
        if fits && metadata[Self.pendingHandlerKey] == nil { return options }
        let steps = try chain()
        let models = [steps.first?.from].compactMap { $0 } + steps.map(\.to)
        guard let start = models.firstIndex(where: { $0.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) })
        else { return options }
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
        if fits { return options }
        var remaining = Array(steps[start...])
        if let last = remaining.firstIndex(where: { sameVersion($0.to, destination) }) { remaining = Array(remaining[...last]) }
        let reachesModel = remaining.last.map { sameVersion($0.to, destination) } ?? false
        let progress = options?[OCDMigrationProgressOption] as? Progress
        progress?.totalUnitCount = Int64(remaining.count + (reachesModel ? 0 : 1))
        for step in remaining {
            if progress?.isCancelled == true { throw cancellationError(before: step) }
            let stepProgress = StepProgress(reportingTo: progress)
            try perform(step, progress: stepProgress)
            stepProgress?.finish()
        }
        guard !reachesModel, let progress else { return options }
        var rest = options ?? [:]
        rest[OCDMigrationProgressOption] = StepProgress(reportingTo: progress)
        return rest
    }

    private func cancellationError(before step: Step) -> CocoaError {
        CoreDataError.make(.migrationCancelled,
                           "The staged migration of \(url.path) was cancelled before \(self.step(describing: step.stage)); the store is whole at the version with checksum \(step.from.versionChecksum)",
                           [NSURLErrorKey: url])
    }

    /// The store's metadata key naming the version (by checksum) whose custom stage's
    /// `didMigrateHandler` has not completed yet: set before the stage migrates, cleared when
    /// the handler returns. An OpenCoreData key.
    package static let pendingHandlerKey = "OCDStagedMigrationPendingDidMigrateHandler"

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
    private func perform(_ step: Step, progress: Progress?) throws {
        if let custom = step.custom, let handler = custom.willMigrateHandler {
            try withContainer(on: step.from, for: custom, handler: "willMigrateHandler") { try handler(manager, custom) }
        }
        let runsAfter = step.custom?.didMigrateHandler != nil
        // Recorded in the store before it migrates, so that the migration carries it over: a
        // kill before the handler is done leaves it for the next add to run the handler again.
        if runsAfter { try markPendingHandler(step.to.versionChecksum) }
        try migrate(from: step.from, to: step.to, in: step.stage, progress: progress)
        if let custom = step.custom, let handler = custom.didMigrateHandler {
            try withContainer(on: step.to, for: custom, handler: "didMigrateHandler") { try handler(manager, custom) }
        }
        if runsAfter { try markPendingHandler(nil) }
    }

    /// Migrates the store by lightweight migration, `from` given as the source model: the store
    /// is added to a coordinator of `to` and removed again.
    private func migrate(from source: NSManagedObjectModel, to model: NSManagedObjectModel, in stage: NSMigrationStage,
                         progress: Progress?) throws {
        var stepOptions = options ?? [:]
        stepOptions[OCDMigrationProgressOption] = progress
        stepOptions[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        // The file is tidied once, when the migrated store is added, not at every step.
        stepOptions[NSSQLiteManualVacuumOption] = nil
        stepOptions[NSSQLiteAnalyzeOption] = nil
        stepOptions[NSMigratePersistentStoresAutomaticallyOption] = true
        stepOptions[NSInferMappingModelAutomaticallyOption] = true
        stepOptions[OCDIncompatibleStorePolicyOption] = nil
        // A stage migrates: it compares the hashes whatever the add asked for.
        stepOptions[NSIgnorePersistentStoreVersioningOption] = nil
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
        // A store that records history stays writable for the handlers (without the key it
        // would open read-only), and records what they save.
        if let tracking = options?[NSPersistentHistoryTrackingKey] { description.setOption(tracking as? NSObject, forKey: NSPersistentHistoryTrackingKey) }
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

extension StagedMigration {
    /// The progress of one step: a child of the staged migration's progress, to which it also
    /// passes the name of the entity being migrated (a parent's `userInfo` is its own).
    // @unchecked Sendable: Progress guards its own state; `parent` is set before it is shared.
    final class StepProgress: Progress, @unchecked Sendable {
        private weak var parentProgress: Progress?

        /// A child of `parent` worth one of its units; nil without a parent.
        init?(reportingTo parent: Progress?) {
            guard let parent else { return nil }
            parentProgress = parent
            super.init(parent: nil, userInfo: nil)
            parent.addChild(self, withPendingUnitCount: 1)
        }

        override func setUserInfoObject(_ objectOrNil: Any?, forKey key: ProgressUserInfoKey) {
            super.setUserInfoObject(objectOrNil, forKey: key)
            if key == .migrationEntityName { parentProgress?.setUserInfoObject(objectOrNil, forKey: key) }
        }

        /// Marks the step done, whatever its migration counted (nothing, for a store that
        /// reports no progress).
        func finish() {
            if totalUnitCount <= 0 { totalUnitCount = 1 }
            completedUnitCount = totalUnitCount
        }
    }
}
