import Foundation

/// The coordinator's side of batch requests: each runs in every store that holds its entity (or
/// in `affectedStores`), one store at a time, and in each it reads and writes with no save in
/// between, writing everything or nothing.
extension NSPersistentStoreCoordinator {
    /// Runs a batch request in the stores that hold its entity; `entity` finds a fetch request's
    /// entity as the context does. A store's failure is thrown as a `ParentSaveFailure`.
    func executeBatch(_ request: NSPersistentStoreRequest, authorship: HistoryAuthorship = HistoryAuthorship(),
                      entity: (NSFetchRequest<NSFetchRequestResult>) throws -> NSEntityDescription)
        throws -> (result: NSPersistentStoreResult, outcome: BatchOutcome) {
        if let answered = try incrementalBatchResult(request, entity: try batchEntity(of: request, entity: entity)) { return answered }
        let outcome: BatchOutcome
        let affected: [NSManagedObjectID]
        switch request {
        case let delete as NSBatchDeleteRequest:
            outcome = try runBatchDelete(delete, authorship: authorship, entity: entity)
            affected = outcome.deleted
        case let update as NSBatchUpdateRequest:
            outcome = try runBatchUpdate(update, authorship: authorship)
            affected = outcome.updated
        case let insert as NSBatchInsertRequest:
            outcome = try runBatchInsert(insert, authorship: authorship)
            affected = outcome.inserted + outcome.updated
        default:
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "execute(_:) runs batch requests; \(type(of: request)) is not one (fetch with fetch(_:))")
        }
        return (try batchResult(of: request, ids: affected, count: affected.count), outcome)
    }

    /// The result of a batch request, of the kind its `resultType` asks for, from the affected
    /// objects' IDs and their number; nil for what is not known, which is an error naming
    /// `answerer` (the store of your own that answered) when the result type needs it.
    func batchResult(of request: NSPersistentStoreRequest, ids: [NSManagedObjectID]?, count: Int?,
                     answeredBy answerer: NSPersistentStore? = nil) throws -> NSPersistentStoreResult {
        func known<T>(_ value: T?, _ what: String) throws -> T {
            guard let value else {
                throw CoreDataError.make(.persistentStoreOperation,
                                         "The store of type '\(answerer?.type ?? "?")' did not return the \(what) that the \(type(of: request))'s resultType asks for")
            }
            return value
        }
        switch request {
        case let delete as NSBatchDeleteRequest:
            return NSBatchDeleteResult(resultType: delete.resultType, result: try { () throws -> Any in
                switch delete.resultType {
                case .resultTypeStatusOnly: true
                case .resultTypeObjectIDs: try known(ids, "objects' IDs")
                case .resultTypeCount: try known(count, "count")
                }
            }())
        case let update as NSBatchUpdateRequest:
            return NSBatchUpdateResult(resultType: update.resultType, result: try { () throws -> Any in
                switch update.resultType {
                case .statusOnlyResultType: true
                case .updatedObjectIDsResultType: try known(ids, "objects' IDs")
                case .updatedObjectsCountResultType: try known(count, "count")
                }
            }())
        case let insert as NSBatchInsertRequest:
            return NSBatchInsertResult(resultType: insert.resultType, result: try { () throws -> Any in
                switch insert.resultType {
                case .statusOnly: true
                case .objectIDs: try known(ids, "objects' IDs")
                case .count: try known(count, "count")
                }
            }())
        default:
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "execute(_:) runs batch requests; \(type(of: request)) is not one (fetch with fetch(_:))")
        }
    }

    /// The entity a batch request works on, when it names one the model has (the request's own
    /// run reports one it lacks).
    private func batchEntity(of request: NSPersistentStoreRequest,
                             entity: (NSFetchRequest<NSFetchRequestResult>) throws -> NSEntityDescription) throws -> NSEntityDescription? {
        switch request {
        case let delete as NSBatchDeleteRequest: try entity(delete.fetchRequest)
        case let update as NSBatchUpdateRequest: update.entity ?? managedObjectModel.entity(named: update.entityName)
        case let insert as NSBatchInsertRequest: insert.entity ?? managedObjectModel.entity(named: insert.entityName)
        default: nil
        }
    }

    /// The stores a batch request on `entity` runs in: writable ones, checked.
    private func batchStores(for entity: NSEntityDescription, request: NSPersistentStoreRequest) throws -> [NSPersistentStore] {
        let stores = (request.affectedStores ?? persistentStores).filter { $0.holds(entity) }
        if let readOnly = stores.first(where: \.isReadOnly) {
            throw CoreDataError.store(.persistentStoreSave,
                                      "The batch request on \(entity.name ?? "?") can't run: the store \(readOnly.url?.path ?? "in memory") is read-only",
                                      url: readOnly.url)
        }
        return stores
    }

    /// Runs `body` as one batch in `store`: its reading and writing with no save in between. A
    /// failure is the store's.
    private func inBatch<T>(_ store: NSPersistentStore, _ body: () throws -> T) throws -> T {
        do {
            return try store.lock.withLock(body)
        } catch let error as CocoaError {
            throw error
        } catch {
            throw ParentSaveFailure(store: store, underlying: error)
        }
    }

    private func runBatchDelete(_ request: NSBatchDeleteRequest, authorship: HistoryAuthorship,
                                entity entityOf: (NSFetchRequest<NSFetchRequestResult>) throws -> NSEntityDescription) throws -> BatchOutcome {
        let entity = try entityOf(request.fetchRequest)
        var total = BatchOutcome()
        for store in try batchStores(for: entity, request: request) {
            let outcome = try inBatch(store) {
                let targets: [RowSnapshot]
                if let ids = request.objectIDs {
                    targets = try store.seam.snapshots(for: ids.filter { $0.storeIdentity == ObjectIdentifier(store) })
                } else {
                    let fetch = request.fetchRequest
                    let result = try store.seam.execute(StoreFetch(
                        entity: entity, includesSubentities: fetch.includesSubentities, predicate: fetch.predicate,
                        sortDescriptors: fetch.sortDescriptors ?? [], fetchLimit: fetch.fetchLimit, fetchOffset: fetch.fetchOffset,
                        returnsDistinctResults: false, result: .snapshots))
                    guard case .snapshots(let rows) = result else { return BatchOutcome() }
                    targets = rows
                }
                return try BatchExecution(store: store, authorship: authorship).delete(targets)
            }
            total.deleted += outcome.deleted
            total.nullified += outcome.nullified
        }
        return total
    }

    private func runBatchUpdate(_ request: NSBatchUpdateRequest, authorship: HistoryAuthorship) throws -> BatchOutcome {
        guard let entity = request.entity ?? managedObjectModel.entity(named: request.entityName) else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType, "The model has no entity named '\(request.entityName)'")
        }
        let values = try batchValues(request.propertiesToUpdate ?? [:], of: entity)
        var total = BatchOutcome()
        for store in try batchStores(for: entity, request: request) {
            let outcome = try inBatch(store) {
                let result = try store.seam.execute(StoreFetch(
                    entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                    sortDescriptors: [], fetchLimit: 0, fetchOffset: 0, returnsDistinctResults: false, result: .snapshots))
                guard case .snapshots(let rows) = result else { return BatchOutcome() }
                return try BatchExecution(store: store, authorship: authorship).update(rows, values: values)
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
            return try PrimitiveValue(value, for: attribute)
        } catch {
            throw CoreDataError.make(.managedObjectValidation,
                                     "Wrong value for \(entity.name ?? "?").\(attribute.name): \(error.reason)",
                                     [NSValidationKeyErrorKey: attribute.name])
        }
    }

    private func runBatchInsert(_ request: NSBatchInsertRequest, authorship: HistoryAuthorship) throws -> BatchOutcome {
        guard let entity = request.entity ?? managedObjectModel.entity(named: request.entityName) else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType, "The model has no entity named '\(request.entityName)'")
        }
        guard !entity.isAbstract else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType, "Can't batch insert objects of the abstract entity \(entity.name ?? "?")")
        }
        let rows = try batchInsertRows(request, entity: entity)
        guard let store = try batchStores(for: entity, request: request).first else {
            throw CoreDataError.make(.persistentStoreSave, "No writable persistent store holds entity '\(entity.name ?? "?")'")
        }
        return try inBatch(store) {
            let existing = try BatchInsertUpsert(entity: entity, store: store).existingRows(for: rows)
            return try BatchExecution(store: store, authorship: authorship).insert(rows, entity: entity, existing: existing)
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

}
