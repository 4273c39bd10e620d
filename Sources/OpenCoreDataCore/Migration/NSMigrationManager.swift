import Foundation
import Synchronization

/// Migrates the objects of a store written with one model into a new store of another, through
/// a mapping model: entity by entity, with `NSEntityMigrationPolicy` objects doing the work.
///
/// ```swift
/// let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
/// try manager.migrateStore(from: oldURL, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
///                          toDestinationURL: newURL, destinationType: NSSQLiteStoreType, destinationOptions: nil)
/// ```
/// The source store is only read. The objects are copied in batches — each batch of source
/// instances is read, migrated and saved to the destination, and both contexts are reset — so
/// a large store is never held in memory; what the manager keeps between batches is which
/// destination object IDs came from which source object IDs. Relationships are set once every
/// mapping has created its instances; every destination instance is validated once all
/// relationships are set (the saves before that do not validate, since the relationships a
/// model requires do not exist yet), and what `performCustomValidation` and `end` change is
/// validated as it is saved. The destination must not exist yet. If anything fails, the
/// destination store is deleted and the error thrown: `NSEntityMigrationPolicyError` (134170) from a policy,
/// `NSMigrationManagerSourceStoreError` (134150) when the source store cannot be opened with
/// the source model, `NSMigrationManagerDestinationStoreError` (134160) for the destination,
/// `NSMigrationMissingMappingModelError` (134140) for a mapping model made for other versions,
/// and the error given to `cancelMigrationWithError(_:)`.
///
/// Differences from Apple: `mappings` may be nil, for the mapping inferred from the two models;
/// the contexts are reset after each batch, so a policy must not keep objects from one batch to
/// the next (keep object IDs); `usesStoreSpecificMigrationManager` has no effect (SQLite stores
/// migrated automatically are migrated in place, see `NSMappingModel`).
open class NSMigrationManager: NSObject, @unchecked Sendable {
    // @unchecked Sendable: a migration runs on the thread that called `migrateStore`, and its
    // state is touched only there; `cancelMigrationWithError` and `migrationProgress` may be
    // used from other threads and take locks.

    /// The model of the store migrated from.
    public let sourceModel: NSManagedObjectModel
    /// The model of the store migrated to.
    public let destinationModel: NSManagedObjectModel
    /// The mapping of the migration running (or last run).
    public private(set) var mappingModel: NSMappingModel!
    /// The context the source instances are read in, while a migration runs.
    public private(set) var sourceContext: NSManagedObjectContext!
    /// The context the destination instances are made in, while a migration runs.
    public private(set) var destinationContext: NSManagedObjectContext!
    /// The entity mapping being performed.
    public private(set) var currentEntityMapping: NSEntityMapping!
    /// The fraction of the migration done, from 0 to 1; safe to read from any thread.
    public var migrationProgress: Float { progress.withLock { $0 } }
    private let progress = Mutex<Float>(0)
    /// Anything the application wants to keep with the migration.
    public var userInfo: [AnyHashable: Any]?
    /// Kept for Apple's API; no effect here.
    public var usesStoreSpecificMigrationManager = false
    /// How many source instances are migrated per batch.
    package var batchSize = 500
    /// The configuration of the two stores (nil: every entity).
    package var configurationName: String?
    /// The progress of the store opening this migration runs for (`OCDMigrationProgressOption`):
    /// cancelling it stops the migration at the next batch with 134120, and it follows the
    /// migration (up to 98 of its 100 units) with the entity being migrated.
    package var openingProgress: Progress?
    private var reportedEntityName: String?

    private var associations = MigrationAssociations()
    /// Every destination instance saved so far, to be validated once relationships are set.
    private var created: [NSManagedObjectID] = []
    private var policies: [ObjectIdentifier: NSEntityMigrationPolicy] = [:]
    private var evaluationFailure: Error?
    private let cancelLock = NSLock()
    private var cancellation: Error?
    private var stepsDone = 0
    private var stepsTotal = 1

    /// `required` in OpenCoreData (not in Apple's SDK): the coordinator makes the manager of a
    /// store type's `migrationManagerClass()` from the class.
    public required init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        sourceModel.freeze()
        destinationModel.freeze()
    }

    // MARK: Running a migration

    /// Migrates the store at `sourceURL` into a new store at `dURL`.
    open func migrateStore(from sourceURL: URL, sourceType sStoreType: String, options sOptions: [AnyHashable: Any]? = nil,
                           with mappings: NSMappingModel?, toDestinationURL dURL: URL, destinationType dStoreType: String,
                           destinationOptions dOptions: [AnyHashable: Any]? = nil) throws {
        let mapping = try mappings ?? NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel)
        try check(mapping)
        // A migration writes its batches as it goes: into a store of its own, which a failure deletes.
        if FileManager.default.fileExists(atPath: dURL.path) {
            throw CoreDataError.make(.migrationManagerDestinationStore,
                                     "There is already a file at \(dURL.path): a migration makes a new destination store",
                                     [NSURLErrorKey: dURL])
        }
        reset()
        mappingModel = mapping
        defer {
            cancelLock.withLock { cancellation = nil }
            sourceContext = nil
            destinationContext = nil
        }
        let source = try openSource(at: sourceURL, type: sStoreType, options: sOptions)
        defer { try? source.coordinator.remove(source.store) }
        var destination: OpenStore?
        do {
            destination = try openDestination(at: dURL, type: dStoreType, options: dOptions)
            try migrate(with: mapping)
            try destination?.coordinator.remove(destination!.store)
        } catch {
            if let destination { try? destination.coordinator.remove(destination.store) }
            Self.removeFiles(of: dURL)
            throw error
        }
        progress.withLock { $0 = 1 }
    }

    /// Deletes a destination store the migration made, with its companions.
    private static func removeFiles(of url: URL) {
        for path in [url.path + "-wal", url.path + "-shm", url.path + "-journal", url.path] where FileManager.default.fileExists(atPath: path) {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// The iOS 15 spelling of `migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)`.
    public func migrateStore(from sourceURL: URL, type sourceType: NSPersistentStore.StoreType, options sourceOptions: [AnyHashable: Any]? = nil,
                             mapping mappingModel: NSMappingModel, to destinationURL: URL, type destinationType: NSPersistentStore.StoreType,
                             options destinationOptions: [AnyHashable: Any]? = nil) throws {
        try migrateStore(from: sourceURL, sourceType: sourceType.rawValue, options: sourceOptions, with: mappingModel,
                         toDestinationURL: destinationURL, destinationType: destinationType.rawValue, destinationOptions: destinationOptions)
    }

    /// Stops the migration running, which then throws `error`; the destination store it
    /// created is deleted. Safe to call from any thread.
    public func cancelMigrationWithError(_ error: Error) {
        cancelLock.withLock { cancellation = error }
    }

    /// Forgets the associations and contexts of the last migration.
    open func reset() {
        reportedEntityName = nil
        associations = MigrationAssociations()
        created = []
        policies = [:]
        evaluationFailure = nil
        currentEntityMapping = nil
        progress.withLock { $0 = 0 }
        stepsDone = 0
    }

    // MARK: Entities and instances

    /// The source model's entity `mEntity` maps from.
    public func sourceEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// The destination model's entity `mEntity` maps to.
    public func destinationEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    /// Records that `destinationInstance` was made from `sourceInstance` by `entityMapping`.
    public func associate(sourceInstance: NSManagedObject, withDestinationInstance destinationInstance: NSManagedObject,
                          for entityMapping: NSEntityMapping) {
        associations.associate(source: sourceInstance.objectID, destination: destinationInstance, mapping: entityMapping.name ?? "")
    }

    /// The destination instances the mapping named `mappingName` made from `sourceInstances`
    /// (from every source instance it migrated so far when nil).
    public func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?) -> [NSManagedObject] {
        guard let context = destinationContext else { return [] }
        guard let sourceInstances else {
            return (associations.destinationsInOrder[mappingName] ?? []).map { context.object(with: $0) }
        }
        return sourceInstances.flatMap { associations.destinations(of: $0.objectID, mapping: mappingName, in: context) }
    }

    /// The source instances the mapping named `mappingName` made `destinationInstances` from.
    public func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?) -> [NSManagedObject] {
        guard let context = sourceContext else { return [] }
        guard let destinationInstances else {
            return (associations.destinationsInOrder[mappingName] ?? []).compactMap {
                associations.source(of: destinationContext.object(with: $0), mapping: mappingName, in: context)
            }
        }
        return destinationInstances.compactMap { associations.source(of: $0, mapping: mappingName, in: context) }
    }

    // MARK: The passes

    private struct OpenStore {
        let coordinator: NSPersistentStoreCoordinator
        let store: NSPersistentStore
    }

    /// Every entity mapping's hashes are those of the models (when it records them).
    private func check(_ mapping: NSMappingModel) throws {
        for entityMapping in mapping.entityMappings ?? [] {
            for (name, hash, model, side) in [(entityMapping.sourceEntityName, entityMapping.sourceEntityVersionHash, sourceModel, "source"),
                                              (entityMapping.destinationEntityName, entityMapping.destinationEntityVersionHash, destinationModel, "destination")] {
                guard let name, let hash, let entity = model.entitiesByName[name], entity.hasExactVersionHash else { continue }
                if entity.versionHash != hash {
                    throw CoreDataError.make(.migrationMissingMappingModel,
                                             "The entity mapping \(entityMapping.name ?? "?") was made for another version of the \(side) entity \(name): its version hash is not the \(side) model's")
                }
            }
            if entityMapping.mappingType != .addEntityMappingType, let name = entityMapping.sourceEntityName, sourceModel.entitiesByName[name] == nil {
                throw CoreDataError.make(.migrationMissingMappingModel, "The entity mapping \(entityMapping.name ?? "?") maps from an entity \(name) the source model does not have")
            }
        }
    }

    private func openSource(at url: URL, type: String, options: [AnyHashable: Any]?) throws -> OpenStore {
        var sourceOptions = options ?? [:]
        sourceOptions[NSReadOnlyPersistentStoreOption] = true
        sourceOptions[NSMigratePersistentStoresAutomaticallyOption] = false
        sourceOptions[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: sourceModel)
        do {
            let store = try coordinator.addPersistentStore(ofType: type, configurationName: configurationName, at: url, options: sourceOptions)
            sourceContext = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            sourceContext.persistentStoreCoordinator = coordinator
            return OpenStore(coordinator: coordinator, store: store)
        } catch {
            throw CoreDataError.make(.migrationManagerSourceStore, "The source store \(url.path) could not be opened with the source model: \(error.localizedDescription)",
                                     [NSURLErrorKey: url, NSUnderlyingErrorKey: error])
        }
    }

    private func openDestination(at url: URL, type: String, options: [AnyHashable: Any]?) throws -> OpenStore {
        var destinationOptions = options ?? [:]
        destinationOptions[NSMigratePersistentStoresAutomaticallyOption] = false
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destinationModel)
        do {
            let store = try coordinator.addPersistentStore(ofType: type, configurationName: configurationName, at: url, options: destinationOptions)
            destinationContext = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            destinationContext.persistentStoreCoordinator = coordinator
            destinationContext.validatesChangesOnSave = false
            return OpenStore(coordinator: coordinator, store: store)
        } catch {
            throw CoreDataError.make(.migrationManagerDestinationStore, "The destination store \(url.path) could not be opened with the destination model: \(error.localizedDescription)",
                                     [NSURLErrorKey: url, NSUnderlyingErrorKey: error])
        }
    }

    /// The three passes: instances, relationships, validation.
    private func migrate(with mapping: NSMappingModel) throws {
        let mappings = (mapping.entityMappings ?? []).filter { $0.mappingType != .removeEntityMappingType }
        var sources: [ObjectIdentifier: [NSManagedObjectID]] = [:]
        for entityMapping in mappings { sources[ObjectIdentifier(entityMapping)] = try sourceInstanceIDs(of: entityMapping) }
        stepsTotal = max(1, sources.values.reduce(0) { $0 + 2 * $1.count } + mappings.count)

        for entityMapping in mappings {
            let policy = try self.policy(for: entityMapping)
            currentEntityMapping = entityMapping
            try call("begin", of: policy, in: entityMapping) { try policy.begin(entityMapping, with: self) }
            for batch in batches(of: sources[ObjectIdentifier(entityMapping)] ?? []) {
                for source in try fetchSourceBatch(batch, of: entityMapping) {
                    try checkCancellation()
                    try call("createDestinationInstances", of: policy, for: source, in: entityMapping) {
                        try policy.createDestinationInstances(forSource: source, in: entityMapping, manager: self)
                    }
                    advance()
                }
                try saveBatch()
            }
            try call("endInstanceCreation", of: policy, in: entityMapping) { try policy.endInstanceCreation(forMapping: entityMapping, manager: self) }
        }
        for entityMapping in mappings {
            let policy = try self.policy(for: entityMapping)
            currentEntityMapping = entityMapping
            for batch in batches(of: associations.destinationsInOrder[entityMapping.name ?? ""] ?? []) {
                for destination in try fetchBatch(batch, in: destinationContext) {
                    try checkCancellation()
                    try call("createRelationships", of: policy, for: destination, in: entityMapping) {
                        try policy.createRelationships(forDestination: destination, in: entityMapping, manager: self)
                    }
                    advance()
                }
                try saveBatch()
            }
            try call("endRelationshipCreation", of: policy, in: entityMapping) { try policy.endRelationshipCreation(forMapping: entityMapping, manager: self) }
        }
        try validateCreatedInstances()
        // From here on, what the policies change is validated as it is saved.
        destinationContext.validatesChangesOnSave = true
        for entityMapping in mappings {
            let policy = try self.policy(for: entityMapping)
            currentEntityMapping = entityMapping
            try call("performCustomValidation", of: policy, in: entityMapping) { try policy.performCustomValidation(forMapping: entityMapping, manager: self) }
            try call("end", of: policy, in: entityMapping) { try policy.end(entityMapping, manager: self) }
            try saveBatch()
            advance()
        }
    }

    /// The IDs of the instances `mapping` migrates: its source expression's, or every instance
    /// of its source entity (not of its sub-entities, which have mappings of their own).
    private func sourceInstanceIDs(of mapping: NSEntityMapping) throws -> [NSManagedObjectID] {
        guard let entity = sourceEntity(for: mapping) else { return [] }
        var request = NSFetchRequest<NSManagedObjectID>(entityName: entity.name ?? "")
        request.entity = entity
        request.includesSubentities = false
        if let expression = mapping.sourceExpression {
            if let parts = expression.fetchParts {
                if parts.countOnly {
                    throw CoreDataError.make(.migration, "The source expression of the entity mapping \(mapping.name ?? "?") counts its instances instead of fetching them: \(expression)")
                }
                return try fetchedInstanceIDs(parts.request, in: parts.context, of: mapping, entity: entity)
            }
            switch try evaluate(expression, source: nil, destination: nil, mapping: mapping, propertyMapping: nil, policy: nil) {
            case let fetch as NSFetchRequest<NSFetchRequestResult>:
                request = fetch.copy(as: NSManagedObjectID.self)
                request.entity = fetch.entity ?? entity
            case let value?:
                return ValueComparison.elements(of: value).compactMap { ($0 as? NSManagedObject)?.objectID }
            case nil:
                throw CoreDataError.make(.migration, "The source expression of the entity mapping \(mapping.name ?? "?") gives no instances: \(expression)")
            }
        }
        request.resultType = NSFetchRequestResultType.managedObjectIDResultType
        request.sortDescriptors = []
        return try sourceContext.fetch(request)
    }

    /// The IDs a FETCH source expression chooses, fetched as IDs rather than objects; a failing
    /// fetch fails the migration with its own error.
    private func fetchedInstanceIDs(_ requestExpression: NSExpression, in contextExpression: NSExpression,
                                    of mapping: NSEntityMapping, entity: NSEntityDescription) throws -> [NSManagedObjectID] {
        let name = mapping.name ?? "?"
        guard let request = try evaluate(requestExpression, source: nil, destination: nil, mapping: mapping,
                                         propertyMapping: nil, policy: nil) as? TypeErasedFetchRequest else {
            throw CoreDataError.make(.migration, "The FETCH of the entity mapping \(name) has no fetch request: \(requestExpression)")
        }
        guard let context = try evaluate(contextExpression, source: nil, destination: nil, mapping: mapping,
                                         propertyMapping: nil, policy: nil) as? NSManagedObjectContext else {
            throw CoreDataError.make(.migration, "The FETCH of the entity mapping \(name) has no managed object context: \(contextExpression)")
        }
        guard context.persistentStoreCoordinator === sourceContext.persistentStoreCoordinator else {
            throw CoreDataError.make(.migration, "The FETCH of the entity mapping \(name) names a context that does not read the source store: \(contextExpression)")
        }
        let ids = request.objectIDRequest()
        if ids.entity == nil && ids.entityName == nil { ids.entity = entity }
        do {
            return try context.fetch(ids)
        } catch {
            throw CoreDataError.make(.migration, "The FETCH of the entity mapping \(name) failed: \((error as NSError).localizedDescription)",
                                     [NSUnderlyingErrorKey: error])
        }
    }

    /// The source instances of one batch, their values read in one fetch.
    private func fetchSourceBatch(_ ids: ArraySlice<NSManagedObjectID>, of mapping: NSEntityMapping) throws -> [NSManagedObject] {
        try fetchBatch(ids, in: sourceContext)
    }

    /// The objects of `ids` in `context`, in that order, their values read in one fetch per
    /// entity rather than one per object.
    private func fetchBatch(_ ids: ArraySlice<NSManagedObjectID>, in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        var byID: [NSManagedObjectID: NSManagedObject] = [:]
        for members in Dictionary(grouping: ids, by: { ObjectIdentifier($0.entity) }).values {
            let request = NSFetchRequest<NSManagedObject>(entity: members[0].entity)
            request.predicate = NSComparisonPredicate(leftExpression: .expressionForEvaluatedObject(),
                                                      rightExpression: NSExpression(forConstantValue: Array(members)),
                                                      modifier: .direct, type: .in)
            request.includesSubentities = false
            request.returnsObjectsAsFaults = false
            for object in try context.fetch(request) { byID[object.objectID] = object }
        }
        return ids.map { byID[$0] ?? context.object(with: $0) }
    }

    /// Validates every destination instance the migration made, once all of them have their
    /// relationships (inverses set from either side included), in batches.
    private func validateCreatedInstances() throws {
        for batch in batches(of: created) {
            var failures: [Error] = []
            for destination in try fetchBatch(batch, in: destinationContext) {
                do { try destination.validateForInsert() } catch { failures += CoreDataError.individualErrors(in: error) }
            }
            if let failure = CoreDataError.combine(failures) { throw failure }
            destinationContext.reset()
        }
    }

    /// Saves what the batch made and forgets the objects, keeping their IDs.
    private func saveBatch() throws {
        let inserted = Array(destinationContext.insertedObjects)
        do {
            try destinationContext.save()
        } catch {
            throw CoreDataError.make(.migrationManagerDestinationStore,
                                     "The migrated objects could not be saved to the destination store: \(error.localizedDescription)",
                                     [NSUnderlyingErrorKey: error])
        }
        associations.settle()
        created += inserted.map(\.objectID)
        destinationContext.reset()
        sourceContext.reset()
    }

    private func batches(of ids: [NSManagedObjectID]) -> [ArraySlice<NSManagedObjectID>] {
        stride(from: 0, to: ids.count, by: batchSize).map { ids[$0..<min($0 + batchSize, ids.count)] }
    }

    private func advance() {
        stepsDone += 1
        let fraction = min(1, Float(stepsDone) / Float(stepsTotal))
        progress.withLock { $0 = fraction }
        // Only when something shows: a unit more, or another entity.
        if let openingProgress {
            let units = Int64(fraction * 98)
            if units > openingProgress.completedUnitCount { openingProgress.completedUnitCount = units }
            let entity = currentEntityMapping?.destinationEntityName
            if entity != reportedEntityName {
                reportedEntityName = entity
                openingProgress.setUserInfoObject(entity, forKey: .migrationEntityName)
            }
        }
    }

    private func checkCancellation() throws {
        if let error = cancelLock.withLock({ cancellation }) { throw error }
        if openingProgress?.isCancelled == true {
            throw CoreDataError.make(.migrationCancelled, "The migration through the mapping model was cancelled; the store is as it was")
        }
    }

    /// Runs a policy method; an error from an expression it evaluated counts as its own. A
    /// failure is `NSEntityMigrationPolicyError` (134170) naming the method, the mapping and the
    /// object, with the policy's error under `NSUnderlyingErrorKey`; a cancellation's error is
    /// thrown as given.
    private func call(_ method: String, of policy: NSEntityMigrationPolicy, for object: NSManagedObject? = nil,
                      in mapping: NSEntityMapping, _ body: () throws -> Void) throws {
        do {
            try body()
            if let failure = evaluationFailure {
                evaluationFailure = nil
                throw failure
            }
        } catch {
            if let cancelled = cancelLock.withLock({ cancellation }) { throw cancelled }
            let entities = "\(mapping.sourceEntityName ?? "nothing") → \(mapping.destinationEntityName ?? "nothing")"
            let subject = object.map { " for \($0.objectID.uriRepresentation().absoluteString)" } ?? ""
            var info: [String: Any] = [NSUnderlyingErrorKey: error]
            if let object { info[NSValidationObjectErrorKey] = object }
            throw CoreDataError.make(.entityMigrationPolicy,
                                     "\(type(of: policy)).\(method)\(subject) failed in the entity mapping \(mapping.name ?? "?") (\(entities)): \(error.localizedDescription)",
                                     info)
        }
    }

    /// The policy of `mapping`: its class's, or the default policy; one per mapping.
    private func policy(for mapping: NSEntityMapping) throws -> NSEntityMigrationPolicy {
        if let policy = policies[ObjectIdentifier(mapping)] { return policy }
        var policyClass: NSEntityMigrationPolicy.Type = NSEntityMigrationPolicy.self
        if let name = mapping.entityMigrationPolicyClassName, !name.isEmpty, name != "NSEntityMigrationPolicy" {
            guard let found = PolicyClassRegistry.policyClass(named: name) else {
                throw CoreDataError.make(.entityMigrationPolicy,
                                         "The entity mapping \(mapping.name ?? "?") names the migration policy class \(name), which is not an NSEntityMigrationPolicy subclass in this program (name it module-qualified, or register it with NSEntityMigrationPolicy.register(_:))")
            }
            policyClass = found
        }
        let policy = policyClass.init()
        policy.runningManager = self
        policies[ObjectIdentifier(mapping)] = policy
        return policy
    }

    // MARK: Expressions

    /// The value of a mapping's expression, with Core Data's variables bound.
    package func evaluate(_ expression: NSExpression, source: NSManagedObject?, destination: NSManagedObject?, mapping: NSEntityMapping,
                          propertyMapping: NSPropertyMapping?, policy: NSEntityMigrationPolicy?) throws -> Any? {
        var variables: [String: Any] = [NSMigrationManagerKey: self, NSMigrationEntityMappingKey: mapping]
        if let source { variables[NSMigrationSourceObjectKey] = source }
        if let destination { variables[NSMigrationDestinationObjectKey] = destination }
        if let propertyMapping { variables[NSMigrationPropertyMappingKey] = propertyMapping }
        if let policy { variables[NSMigrationEntityPolicyKey] = policy }
        evaluating.append(propertyMapping)
        defer { evaluating.removeLast() }
        let value = expression.value(for: source, variables: variables)
        if let failure = evaluationFailure {
            evaluationFailure = nil
            throw failure
        }
        return value
    }

    /// The property mappings whose expressions are being evaluated (innermost last).
    private var evaluating: [NSPropertyMapping?] = []

    /// Records why a function an expression called could not be answered; the evaluation then
    /// throws it.
    func recordEvaluationFailure(_ error: Error) {
        if evaluationFailure == nil { evaluationFailure = error }
    }

    /// An expression's value as the relationship `key` of `destination` takes it: a to-one's
    /// single object, a to-many's set, an ordered one's ordered set.
    package func relationshipValue(_ value: Any?, for key: String, of destination: NSManagedObject) -> Any? {
        let objects = Self.managedObjects(in: value)
        guard let relationship = destination.entity.relationshipsByName[key] else { return value }
        if !relationship.isToMany { return objects.first }
        return relationship.isOrdered ? NSOrderedSet(array: objects) : Set(objects) as Any
    }
}

extension NSMigrationManager {
    /// The objects a value holds: itself for one object, the members of a collection.
    static func managedObjects(in value: Any?) -> [NSManagedObject] {
        if let object = value as? NSManagedObject { return [object] }
        return ValueComparison.elements(of: value).compactMap { $0 as? NSManagedObject }
    }
}

extension NSMigrationManager: ExpressionFunctionReceiver {
    package func answerFunction(_ selector: String, arguments: [Any?]) -> Any? {
        let first = arguments.first ?? nil
        let instances = arguments.count > 1 ? Self.managedObjects(in: arguments[1]) : []
        switch (selector, arguments.count) {
        case ("destinationInstancesForEntityMappingNamed:sourceInstances:", 2):
            guard let name = first as? String else { break }
            return destinationInstances(forEntityMappingName: name, sourceInstances: instances)
        case ("sourceInstancesForEntityMappingNamed:destinationInstances:", 2):
            guard let name = first as? String else { break }
            return sourceInstances(forEntityMappingName: name, destinationInstances: instances)
        case ("destinationInstancesForSourceRelationshipNamed:sourceInstances:", 2):
            return destinationInstances(ofRelatedSources: instances)
        case ("fetchRequestForSourceEntityNamed:predicateString:", 2):
            guard let name = first as? String, let entity = sourceModel.entitiesByName[name] else { break }
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: name)
            request.entity = entity
            request.includesSubentities = false
            if let format = arguments[1] as? String, format != "TRUEPREDICATE" {
                do { request.predicate = try NSPredicate(validatingFormat: format) } catch {
                    recordEvaluationFailure(error)
                    return nil
                }
            }
            return request
        default:
            break
        }
        recordEvaluationFailure(CoreDataError.make(.migration,
                                                   "The migration manager does not answer the function \"\(selector)\" with \(arguments.count) arguments that a mapping expression calls"))
        return nil
    }

    /// What an inferred relationship mapping asks for: the destination instances made from
    /// each related source instance, by whichever mapping made them, that fit the destination
    /// relationship being set.
    private func destinationInstances(ofRelatedSources sources: [NSManagedObject]) -> [NSManagedObject] {
        guard let context = destinationContext else { return [] }
        let target: NSEntityDescription? = {
            guard let name = evaluating.last??.name, let entity = destinationEntity(for: currentEntityMapping) else { return nil }
            return entity.relationshipsByName[name]?.destinationEntity
        }()
        return sources.flatMap { source in
            associations.destinations(of: source.objectID, mapping: nil, in: context)
                .filter { target == nil || $0.entity.isKindOf(entity: target!) }
        }
    }
}

/// The policy classes `NSEntityMigrationPolicy.register(_:)` registered, by name.
enum PolicyClassRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var classes: [String: NSEntityMigrationPolicy.Type] = [:]
    // nonisolated(unsafe): `classes` is read and written only under `lock`.

    static func register(_ policyClass: NSEntityMigrationPolicy.Type) {
        let qualified = String(reflecting: policyClass)
        lock.withLock {
            classes[qualified] = policyClass
            classes[String(qualified.split(separator: ".").last ?? "")] = policyClass
        }
    }

    static func policyClass(named name: String) -> NSEntityMigrationPolicy.Type? {
        if let registered = lock.withLock({ classes[name] }) { return registered }
        return NSClassFromString(name) as? NSEntityMigrationPolicy.Type
    }
}

/// `$manager.sourceContext` and the manager's other properties in mapping expressions, as
/// key-value coding reads them on Apple's platforms.
extension NSMigrationManager: KeyValueReadable {
    func value(forKey key: String) -> Any? {
        switch key {
        case "sourceContext": sourceContext
        case "destinationContext": destinationContext
        case "sourceModel": sourceModel
        case "destinationModel": destinationModel
        case "mappingModel": mappingModel
        case "currentEntityMapping": currentEntityMapping
        case "userInfo": userInfo
        case "migrationProgress": NSNumber(value: migrationProgress)
        default: nil
        }
    }

    var rowObjectID: NSManagedObjectID? { nil }
}
