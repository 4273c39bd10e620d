import Foundation

extension NSManagedObjectContext {
    /// Executes a batch request (`NSBatchInsertRequest`, `NSBatchUpdateRequest`,
    /// `NSBatchDeleteRequest`) in the stores, and returns its result.
    ///
    /// ```swift
    /// let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Entry"))
    /// delete.resultType = .resultTypeCount
    /// let count = (try context.execute(delete) as? NSBatchDeleteResult)?.result as? Int
    /// ```
    /// The request runs in each store that holds its entity (or in `affectedStores`), one store
    /// at a time; in each, it writes everything or nothing. As in Core Data, this context's
    /// objects are left as they were; `executeAndMergeChanges(_:into:)` also brings them up to date.
    @discardableResult
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        try executeBatch(request).result
    }

    /// Executes a batch request, then merges what it changed into this context and `contexts`:
    /// objects it deleted leave them (relationships pointing to them are refreshed), objects it
    /// updated are refreshed, keeping their unsaved changes.
    ///
    /// ```swift
    /// try context.executeAndMergeChanges(NSBatchDeleteRequest(fetchRequest: stale))
    /// // context.registeredObjects no longer holds the deleted objects
    /// ```
    /// An OpenCoreData extension: with Core Data this takes a `resultType` of object IDs and a
    /// call to `mergeChanges(fromRemoteContextSave:into:)`; here it is one call, whatever
    /// `resultType` the request has.
    @discardableResult
    public func executeAndMergeChanges(_ request: NSPersistentStoreRequest, into contexts: [NSManagedObjectContext] = [])
        throws -> NSPersistentStoreResult {
        let (result, outcome) = try executeBatch(request)
        let changes: [AnyHashable: Any] = [
            NSInsertedObjectsKey: outcome.inserted,
            NSUpdatedObjectsKey: outcome.updated + outcome.nullified,
            NSDeletedObjectsKey: outcome.deleted,
        ]
        mergeRemoteChanges(changes)
        Self.mergeChanges(fromRemoteContextSave: changes, into: contexts.filter { $0 !== self })
        return result
    }

    /// Brings `contexts` up to date with changes made elsewhere (another coordinator, another
    /// process, a batch request): `changeNotificationData` holds, under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey` (or the `…ObjectIDsKey` variants), the
    /// object IDs, their URIs, or objects. Each context merges on its own queue.
    ///
    /// Deleted objects leave each context (objects whose loaded relationships point to them are
    /// refreshed); updated objects are refreshed, keeping unsaved changes; inserted objects are
    /// found by the next fetch.
    public class func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any],
                                   into contexts: [NSManagedObjectContext]) {
        for context in contexts {
            context.performAndWait { context.mergeRemoteChanges(changeNotificationData) }
        }
    }

    // MARK: Executing

    private func executeBatch(_ request: NSPersistentStoreRequest) throws -> (result: NSPersistentStoreResult, outcome: BatchOutcome) {
        checkQueue()
        let coordinator = try coordinatorOrThrow()
        switch request {
        case let delete as NSBatchDeleteRequest:
            let outcome = try runBatchDelete(delete, coordinator: coordinator)
            let result: Any = switch delete.resultType {
            case .resultTypeStatusOnly: true
            case .resultTypeObjectIDs: outcome.deleted
            case .resultTypeCount: outcome.deleted.count
            }
            return (NSBatchDeleteResult(result: result), outcome)
        case let update as NSBatchUpdateRequest:
            let outcome = try runBatchUpdate(update, coordinator: coordinator)
            let result: Any = switch update.resultType {
            case .statusOnlyResultType: true
            case .updatedObjectIDsResultType: outcome.updated
            case .updatedObjectsCountResultType: outcome.updated.count
            }
            return (NSBatchUpdateResult(result: result), outcome)
        case let insert as NSBatchInsertRequest:
            let outcome = try runBatchInsert(insert, coordinator: coordinator)
            let written = outcome.inserted + outcome.updated
            let result: Any = switch insert.resultType {
            case .statusOnly: true
            case .objectIDs: written
            case .count: written.count
            }
            return (NSBatchInsertResult(result: result), outcome)
        default:
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "execute(_:) runs batch requests; \(type(of: request)) is not one (fetch with fetch(_:))")
        }
    }

    /// The stores a batch request on `entity` runs in: writable ones, checked.
    private func batchStores(for entity: NSEntityDescription, request: NSPersistentStoreRequest,
                             coordinator: NSPersistentStoreCoordinator) throws -> [NSPersistentStore] {
        let stores = (request.affectedStores ?? coordinator.persistentStores).filter { $0.holds(entity) }
        if let incremental = stores.first(where: { $0 is NSIncrementalStore }) {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "Batch requests are not passed to an NSIncrementalStore yet (the store of type '\(incremental.type)')")
        }
        if let readOnly = stores.first(where: \.isReadOnly) {
            throw CoreDataError.store(.persistentStoreSave,
                                      "The batch request on \(entity.name ?? "?") can't run: the store \(readOnly.url?.path ?? "in memory") is read-only",
                                      url: readOnly.url)
        }
        return stores
    }

    /// Runs `body` as one batch in `store`, turning store errors into Core Data's.
    private func inBatch<T>(_ store: NSPersistentStore, _ body: () throws -> T) throws -> T {
        do {
            return try coordinatorOrThrow().performBatch(in: store, body)
        } catch {
            throw translateSaveError(error, store: store)
        }
    }

    private func runBatchDelete(_ request: NSBatchDeleteRequest, coordinator: NSPersistentStoreCoordinator) throws -> BatchOutcome {
        let entity = try self.entity(of: request.fetchRequest)
        var total = BatchOutcome()
        for store in try batchStores(for: entity, request: request, coordinator: coordinator) {
            let outcome = try inBatch(store) {
                let targets: [RowSnapshot]
                if let ids = request.objectIDs {
                    targets = try store.snapshots(for: ids.filter { $0.storeIdentity == ObjectIdentifier(store) })
                } else {
                    let fetch = request.fetchRequest
                    let result = try store.execute(StoreFetch(
                        entity: entity, includesSubentities: fetch.includesSubentities, predicate: fetch.predicate,
                        sortDescriptors: fetch.sortDescriptors ?? [], fetchLimit: fetch.fetchLimit, fetchOffset: fetch.fetchOffset,
                        returnsDistinctResults: false, result: .snapshots))
                    guard case .snapshots(let rows) = result else { return BatchOutcome() }
                    targets = rows
                }
                return try BatchExecution(store: store).delete(targets)
            }
            total.deleted += outcome.deleted
            total.nullified += outcome.nullified
        }
        return total
    }

    private func runBatchUpdate(_ request: NSBatchUpdateRequest, coordinator: NSPersistentStoreCoordinator) throws -> BatchOutcome {
        guard let entity = request.entity ?? model?.entity(named: request.entityName) else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType, "The model has no entity named '\(request.entityName)'")
        }
        let values = try batchValues(request.propertiesToUpdate ?? [:], of: entity)
        var total = BatchOutcome()
        for store in try batchStores(for: entity, request: request, coordinator: coordinator) {
            let outcome = try inBatch(store) {
                let result = try store.execute(StoreFetch(
                    entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                    sortDescriptors: [], fetchLimit: 0, fetchOffset: 0, returnsDistinctResults: false, result: .snapshots))
                guard case .snapshots(let rows) = result else { return BatchOutcome() }
                return try BatchExecution(store: store).update(rows, values: values)
            }
            total.updated += outcome.updated
        }
        return total
    }

    /// The attributes and new values of a batch update, checked against the model.
    private func batchValues(_ properties: [AnyHashable: Any], of entity: NSEntityDescription) throws
        -> [(attribute: NSAttributeDescription, value: BatchValue)] {
        let layout = entity.layout
        return try properties.map { key, value in
            let name = (key.base as? String) ?? (key.base as? NSPropertyDescription)?.name ?? "\(key.base)"
            guard let property = layout.propertiesByName[name] else {
                throw CoreDataError.make(.managedObjectValidation,
                                         "The batch update names '\(name)', which is not a property of \(entity.name ?? "?")",
                                         [NSValidationKeyErrorKey: name])
            }
            guard let attribute = property as? NSAttributeDescription, !attribute.isTransient else {
                throw CoreDataError.make(.managedObjectValidation,
                                         "A batch update can set attributes only; \(entity.name ?? "?").\(name) is \(property is NSRelationshipDescription ? "a relationship" : "transient")",
                                         [NSValidationKeyErrorKey: name])
            }
            if let expression = value as? NSExpression {
                switch expression.expressionType {
                case .constantValue:
                    return (attribute, .constant(try convert(expression.constantValue, for: attribute, of: entity)))
                case .keyPath:
                    guard let source = layout.propertiesByName[expression.keyPath] as? NSAttributeDescription, !source.isTransient else {
                        throw CoreDataError.make(.managedObjectValidation,
                                                 "The batch update sets \(entity.name ?? "?").\(name) from '\(expression.keyPath)', which is not a stored attribute of \(entity.name ?? "?")",
                                                 [NSValidationKeyErrorKey: name])
                    }
                    return (attribute, .copy(source))
                default:
                    do {
                        return (attribute, .computed(expression, sources: try BatchComputedValue.sources(of: expression, in: entity)))
                    } catch let reason as BatchComputedValue.Unsupported {
                        throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                                 "The batch update sets \(entity.name ?? "?").\(name) from \(expression), which it can't compute: \(reason.message)",
                                                 [NSValidationKeyErrorKey: name])
                    }
                }
            }
            return (attribute, .constant(try convert(value, for: attribute, of: entity)))
        }
    }

    private func convert(_ value: Any?, for attribute: NSAttributeDescription, of entity: NSEntityDescription) throws -> PrimitiveValue {
        do {
            return try PrimitiveValue(value, for: attribute.attributeType)
        } catch {
            throw CoreDataError.make(.managedObjectValidation,
                                     "Wrong value for \(entity.name ?? "?").\(attribute.name): \(error.reason)",
                                     [NSValidationKeyErrorKey: attribute.name])
        }
    }

    private func runBatchInsert(_ request: NSBatchInsertRequest, coordinator: NSPersistentStoreCoordinator) throws -> BatchOutcome {
        guard let entity = request.entity ?? model?.entity(named: request.entityName) else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType, "The model has no entity named '\(request.entityName)'")
        }
        guard !entity.isAbstract else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType, "Can't batch insert objects of the abstract entity \(entity.name ?? "?")")
        }
        let rows = try batchInsertRows(request, entity: entity)
        guard let store = try batchStores(for: entity, request: request, coordinator: coordinator).first else {
            throw CoreDataError.make(.persistentStoreSave, "No writable persistent store holds entity '\(entity.name ?? "?")'")
        }
        return try inBatch(store) {
            let existing = try BatchInsertUpsert(entity: entity, store: store).existingRows(for: rows)
            return try BatchExecution(store: store).insert(rows, entity: entity, existing: existing)
        }
    }

    /// The rows a batch insert writes, as attribute values by slot: defaults, then the given values.
    private func batchInsertRows(_ request: NSBatchInsertRequest, entity: NSEntityDescription) throws -> [[PrimitiveValue]] {
        let layout = entity.layout
        var rows: [[PrimitiveValue]] = []
        func row(from dictionary: [String: Any]) throws -> [PrimitiveValue] {
            var values = layout.attributes.map { $0.isTransient ? PrimitiveValue.null : $0.defaultPrimitive }
            for (key, value) in dictionary {
                guard let property = layout.propertiesByName[key] else {
                    throw CoreDataError.make(.managedObjectValidation,
                                             "The batch insert names '\(key)', which is not a property of \(entity.name ?? "?")",
                                             [NSValidationKeyErrorKey: key])
                }
                guard let attribute = property as? NSAttributeDescription else {
                    throw CoreDataError.make(.managedObjectValidation,
                                             "A batch insert can't set relationships (\(entity.name ?? "?").\(key)), as in Core Data",
                                             [NSValidationKeyErrorKey: key])
                }
                if attribute.isTransient { continue }
                values[attribute.attributeSlot] = try convert(value, for: attribute, of: entity)
            }
            for attribute in layout.attributes where !attribute.isOptional && !attribute.isTransient {
                if case .null = values[attribute.attributeSlot] {
                    throw CoreDataError.make(.validationMissingMandatoryProperty,
                                             "The batch insert gives no value for \(entity.name ?? "?").\(attribute.name), which is not optional and has no default (object \(rows.count + 1))",
                                             [NSValidationKeyErrorKey: attribute.name])
                }
            }
            return values
        }
        if let objects = request.objectsToInsert {
            for object in objects { rows.append(try row(from: object)) }
        }
        if let handler = request.dictionaryHandler {
            while true {
                let dictionary = NSMutableDictionary()
                if handler(dictionary) { break }
                var values: [String: Any] = [:]
                for (key, value) in dictionary { if let key = key as? String { values[key] = value } }
                rows.append(try row(from: values))
            }
        }
        if let handler = request.managedObjectHandler {
            while true {
                let object = entity.layout.objectClass.init(entity: entity, insertInto: nil)
                if handler(object) { break }
                var values: [String: Any] = [:]
                for attribute in layout.attributes where !attribute.isTransient {
                    values[attribute.name] = object.value(forKey: attribute.name) ?? NSNull()
                }
                rows.append(try row(from: values))
            }
        }
        return rows
    }

    // MARK: Merging

    /// Applies changes made outside this context (see `mergeChanges(fromRemoteContextSave:into:)`).
    func mergeRemoteChanges(_ changes: [AnyHashable: Any]) {
        checkQueue()
        let deleted = Set(objectIDs(in: changes, keys: [NSDeletedObjectsKey, NSDeletedObjectIDsKey]))
        let updated = objectIDs(in: changes, keys: [NSUpdatedObjectsKey, NSUpdatedObjectIDsKey])
        var gone: [NSManagedObject] = []
        for id in deleted {
            guard let object = registeredObject(for: id) else { continue }
            gone.append(object)
        }
        if !gone.isEmpty {
            let goneSet = Set(gone.map(ObjectIdentifier.init))
            for object in gone {
                registry.remove(object.objectID, ifMatching: object)
                object.context = nil
                object.state = []
            }
            // Objects whose loaded relationships still point to a deleted object read them again.
            for object in registeredObjects where object.references(anyOf: goneSet) {
                refresh(object, mergeChanges: true)
            }
        }
        for id in updated where !deleted.contains(id) {
            if let object = registeredObject(for: id) { refresh(object, mergeChanges: true) }
        }
    }

    private func objectIDs(in changes: [AnyHashable: Any], keys: [String]) -> [NSManagedObjectID] {
        var result: [NSManagedObjectID] = []
        for key in keys {
            let values: [Any] = (changes[key] as? [Any]) ?? (changes[key] as? Set<AnyHashable>).map { $0.map(\.base) } ?? []
            for value in values {
                switch value {
                case let id as NSManagedObjectID: result.append(id)
                case let object as NSManagedObject: result.append(object.objectID)
                case let url as URL:
                    if let id = persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url) { result.append(id) }
                default: break
                }
            }
        }
        return result
    }
}

extension NSManagedObject {
    /// Whether a loaded relationship of this object holds one of `objects`.
    func references(anyOf objects: Set<ObjectIdentifier>) -> Bool {
        for relation in relations {
            switch relation {
            case .toOne(let destination?): if objects.contains(ObjectIdentifier(destination)) { return true }
            case .toMany(let storage): if storage.orderedMembers.contains(where: { objects.contains(ObjectIdentifier($0)) }) { return true }
            default: break
            }
        }
        return false
    }
}
