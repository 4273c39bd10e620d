import Foundation

extension NSManagedObjectContext {
    /// Runs a fetch request and returns its results: managed objects, object IDs, dictionaries
    /// or a count, as the request's `resultType` says.
    ///
    /// ```swift
    /// let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
    /// request.predicate = NSComparisonPredicate(key: "age", .greaterThan, 30)
    /// let entries = try context.fetch(request)
    /// ```
    /// With `includesPendingChanges` (the default), unsaved inserts that match are included,
    /// deleted objects are left out, and changed objects are matched on their current values.
    public func fetch<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        checkQueue()
        mergeArrivedSaves()
        let entity = try entity(of: request)
        if request.resultType == .managedObjectResultType {
            let objects = try fetchObjects(request, entity: entity)
            // Every object of the fetched entities is an instance of its entity's class; when all
            // those classes are `T`, the array is already an array of `T` and needs no cast per
            // object (an array of class references has the same layout whatever the class).
            let entities = request.includesSubentities ? entity.selfAndDescendants : [entity]
            if MemoryLayout<T>.size == MemoryLayout<AnyObject>.size,
               entities.allSatisfy({ $0.layout.objectClass is T.Type }), Self.areInstancesOfTheirEntitiesClasses(objects) {
                // Each object is an instance of its entity's class, and every such class is a `T`.
                return unsafeBitCast(objects, to: [T].self)
            }
            return objects.compactMap { $0 as? T }
        }
        let results: [Any]
        switch request.resultType {
        case .countResultType:
            results = [NSNumber(value: try count(for: request))]
        case .dictionaryResultType:
            results = try fetchDictionaries(request, entity: entity).map { NSDictionary(dictionary: $0) }
        case .managedObjectIDResultType:
            results = try fetchObjects(request, entity: entity).map(\.objectID)
        default:
            results = try fetchObjects(request, entity: entity)
        }
        return results.compactMap { $0 as? T }
    }

    /// Whether each object is an instance of exactly its entity's class; checked without touching
    /// reference counts, since it runs over every fetched object.
    private static func areInstancesOfTheirEntitiesClasses(_ objects: [NSManagedObject]) -> Bool {
        objects.withUnsafeBufferPointer { buffer in
            var lastEntity: ObjectIdentifier?
            var lastClass: ObjectIdentifier?
            for object in buffer {
                let unmanaged = Unmanaged.passUnretained(object)
                let matches = unmanaged._withUnsafeGuaranteedRef { object in
                    let entity = ObjectIdentifier(object.entity)
                    if entity != lastEntity {
                        lastEntity = entity
                        lastClass = ObjectIdentifier(object.entity.layout.objectClass)
                    }
                    return ObjectIdentifier(type(of: object)) == lastClass
                }
                if !matches { return false }
            }
            return true
        }
    }

    /// The number of objects `fetch(_:)` would return for `request`.
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        checkQueue()
        mergeArrivedSaves()
        let entity = try entity(of: request)
        if request.includesPendingChanges && hasPendingChanges(affecting: entity) {
            return try fetchObjects(request, entity: entity).count
        }
        let parent = try parentStoreOrThrow()
        let fetch = storeFetch(request, entity: entity, result: .count, limited: true)
        guard case .count(let count) = try parent.execute(fetch, in: try stores(for: request, entity: entity)) else { return 0 }
        return count
    }

    /// The stores a fetch of `entity` reads: those that hold it, narrowed to the request's
    /// `affectedStores` when it names some.
    func stores<T>(for request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> [NSPersistentStore] {
        try parentStoreOrThrow().stores(for: entity, affectedStores: request.affectedStores)
    }

    // MARK: Objects

    func fetchObjects<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> [NSManagedObject] {
        let parent = try parentStoreOrThrow()
        let stores = try stores(for: request, entity: entity)
        let mergesPending = request.includesPendingChanges && hasPendingChanges(affecting: entity)
        // A batched fetch only brings identities; values come a batch at a time (FaultBatch).
        let batched = request.fetchBatchSize > 0 && !mergesPending && stores.count == 1
        // The parent's answer is final (its limits the request's) unless unsaved changes are
        // merged into it here.
        let fetch = storeFetch(request, entity: entity,
                               result: request.includesPropertyValues && !batched ? .snapshots : .objectIDs,
                               limited: !mergesPending)
        var result = try parent.execute(fetch, in: stores)
        var objects: [NSManagedObject] = []
        // Taken out before any `switch`, whose copy of the result would keep the rows shared and
        // make moving them out copy them all.
        if var snapshots = result.takeSnapshots() {
            if let first = snapshots.first { registry.reserveCapacity(snapshots.count, besideRowAt: first.rowLocation) }
            objects = objectsConsuming(&snapshots)
        } else if case .objectIDs(let ids) = result {
            let batch = request.fetchBatchSize > 0 && request.includesPropertyValues
                ? FaultBatch(objectIDs: ids, batchSize: request.fetchBatchSize) : nil
            objects.reserveCapacity(ids.count)
            for (index, id) in ids.enumerated() {
                let object = object(with: id)
                if let batch, object.isFault, object.contents.snapshot == nil { object.contents.faultBatch = (batch, index) }
                objects.append(object)
            }
        }
        if mergesPending {
            objects = applyLimits(mergePendingChanges(into: objects, entity: entity, request: request), request: request)
        }
        if !request.returnsObjectsAsFaults {
            for object in objects where object.isFault { object.fulfillFault() }
        }
        if let keyPaths = request.relationshipKeyPathsForPrefetching, !keyPaths.isEmpty {
            prefetch(keyPaths, for: objects)
        }
        if request.shouldRefreshRefetchedObjects {
            // Announced as refreshed only when the row changed since the object last read it.
            for object in objects where !object.hasChanges && !object.isFault {
                let formerVersion = object.contents.snapshot?.version
                let latest = loadSnapshot(for: object.objectID)
                refresh(object, mergeChanges: false, to: latest)
                if latest?.version != formerVersion { eventRefreshed.append(object) }
            }
        }
        return objects
    }

    /// The objects of fetched rows, in their order. The rows are moved into the objects rather
    /// than copied (taken from the back, so each removal is O(1)).
    func objectsConsuming(_ snapshots: inout [RowSnapshot]) -> [NSManagedObject] {
        let count = snapshots.count
        // Not through the initializer below with no rows: it would write the count of the
        // standard library's shared empty storage, a race between threads fetching at once.
        guard count > 0 else { return [] }
        return [NSManagedObject](unsafeUninitializedCapacity: count) { buffer, initialized in
            var index = count
            while let snapshot = snapshots.popLast() {
                index -= 1
                (buffer.baseAddress! + index).initialize(to: object(for: consume snapshot))
            }
            initialized = count
        }
    }

    /// Applies this context's unsaved changes to what the store returned (Core Data's
    /// `includesPendingChanges`): drops deleted objects, rechecks changed ones in memory, adds
    /// matching inserted ones, and sorts again.
    private func mergePendingChanges<T>(into stored: [NSManagedObject], entity: NSEntityDescription,
                                        request: NSFetchRequest<T>) -> [NSManagedObject] {
        let membership = RequestMembership(request, entity: entity)
        let belongs = membership.contains
        var seen: Set<ObjectIdentifier> = []
        var result: [NSManagedObject] = []
        for object in stored where !object.isDeleted {
            // Changed objects are judged on their current values, not the stored ones.
            if object.isUpdated && !belongs(object) { continue }
            if seen.insert(ObjectIdentifier(object)).inserted { result.append(object) }
        }
        for object in updated.members where belongs(object) && seen.insert(ObjectIdentifier(object)).inserted { result.append(object) }
        for object in inserted.members where belongs(object) && seen.insert(ObjectIdentifier(object)).inserted { result.append(object) }
        return result.sorted(by: request.sortDescriptors ?? [])
    }

    private func applyLimits<T, Element>(_ objects: [Element], request: NSFetchRequest<T>) -> [Element] {
        var sliced = ArraySlice(objects)
        if request.fetchOffset > 0 { sliced = sliced.dropFirst(request.fetchOffset) }
        if request.fetchLimit > 0 { sliced = sliced.prefix(request.fetchLimit) }
        return Array(sliced)
    }

    /// Whether unsaved changes could change the answer of a fetch of `entity`.
    func hasPendingChanges(affecting entity: NSEntityDescription) -> Bool {
        let root = entity.rootEntity
        return inserted.containsMember { $0.entity.rootEntity === root } || updated.containsMember { $0.entity.rootEntity === root }
            || deleted.containsMember { $0.entity.rootEntity === root }
    }

    /// Loads the destinations of relationship key paths for all `objects` at once (no N+1).
    private func prefetch(_ keyPaths: [String], for objects: [NSManagedObject]) {
        for keyPath in keyPaths {
            var level = objects
            for key in keyPath.split(separator: ".").map(String.init) {
                guard let first = level.first,
                      let relationship = first.entity.layout.propertiesByName[key] as? NSRelationshipDescription else { break }
                let owners = level.filter { $0.entity.layout.propertiesByName[key] === relationship }
                if relationship.isToMany {
                    loadToMany(relationship, of: owners)
                    level = owners.flatMap { $0.toManyStorage(relationship).orderedMembers }
                } else {
                    let ids = owners.compactMap { $0.toOneDestinationID(relationship) }
                    prefetchRows(for: ids)
                    level = owners.compactMap { $0.toOneDestination(relationship) }
                }
            }
        }
    }

    /// Brings the rows of unloaded faults among `ids` in with one query per store (prefetching,
    /// batched fetches).
    func prefetchRows(for ids: [NSManagedObjectID]) {
        let missing = ids.filter { id in
            guard let object = registry[id] else { return true }
            return object.isFault && object.contents.snapshot == nil
        }
        guard !missing.isEmpty, let snapshots = try? parentStoreOrThrow().snapshots(for: missing, context: self) else { return }
        for snapshot in snapshots { _ = object(for: snapshot) }
    }

    // MARK: Dictionaries

    private func fetchDictionaries<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> [[String: Any]] {
        let columns = try dictionaryColumns(of: request, entity: entity)
        let groupBy = try (request.propertiesToGroupBy ?? []).map { try propertyKeyPath($0, in: entity, role: "group by") }
        // The having predicate filters the parent's answer here, so limits wait for it. As in
        // Core Data, dictionary results reflect the stores only, not pending changes.
        let having = request.havingPredicate
        let fetch = storeFetch(request, entity: entity, result: .dictionaries(columns, groupBy: groupBy), limited: having == nil)
        guard case .dictionaries(var rows) = try parentStoreOrThrow().execute(fetch, in: try stores(for: request, entity: entity)) else {
            return []
        }
        if let having {
            rows = applyLimits(rows.filter { having.evaluate(with: $0) }, request: request)
        }
        return rows
    }

    /// The columns of a dictionary fetch: `propertiesToFetch` (names, property descriptions,
    /// expression descriptions), or every stored attribute and to-one.
    private func dictionaryColumns<T>(of request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> [DictionaryColumn] {
        guard let properties = request.propertiesToFetch else {
            return entity.layout.properties
                .filter { !$0.isTransient && !(($0 as? NSRelationshipDescription)?.isToMany ?? false) }
                .map { DictionaryColumn.value($0.name) }
        }
        return try properties.map { property in
            guard let description = property as? NSExpressionDescription else {
                return DictionaryColumn.value(try propertyKeyPath(property, in: entity, role: "fetch"))
            }
            guard let expression = description.expression else {
                throw CoreDataError.make(.persistentStoreUnsupportedRequestType, "The expression description '\(description.name)' has no expression")
            }
            switch expression.expressionType {
            case .keyPath:
                return DictionaryColumn(name: description.name, kind: .value(keyPath: expression.keyPath))
            case .function:
                guard let function = AggregateFunction(rawValue: expression.function),
                      let argument = expression.arguments?.first, expression.arguments?.count == 1,
                      argument.expressionType == .keyPath else {
                    throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                             "The expression description '\(description.name)' computes \(expression), which a fetch can't compute yet (count:, sum:, average:, min: and max: of a key path can)")
                }
                _ = try PredicateCheck.resolve(keyPath: argument.keyPath, from: entity, allowsToMany: false, in: nil)
                return DictionaryColumn(name: description.name, kind: .aggregate(function, keyPath: argument.keyPath),
                                        resultType: description.expressionResultType)
            default:
                throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                         "The expression description '\(description.name)' computes \(expression), which a fetch can't compute yet")
            }
        }
    }

    /// The key path a `propertiesToFetch` / `propertiesToGroupBy` element names.
    private func propertyKeyPath(_ property: Any, in entity: NSEntityDescription, role: String) throws -> String {
        switch property {
        case let name as String: return name
        case let description as NSExpressionDescription where description.expression?.expressionType == .keyPath:
            return description.expression!.keyPath
        case let description as NSPropertyDescription: return description.name
        default:
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "Can't \(role) \(property): give a property name or description")
        }
    }

    // MARK: Helpers

    func entity<T>(of request: NSFetchRequest<T>) throws -> NSEntityDescription {
        if let entity = request.entity { return entity }
        guard let name = request.entityName else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType, "The fetch request has neither an entity nor an entity name")
        }
        guard let entity = model?.entity(named: name) else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType, "The model has no entity named '\(name)'")
        }
        return entity
    }

    /// The fetch the parent store runs for `request`; `limited` when the parent's answer is the
    /// final one, so that the request's offset and limit are the parent's.
    private func storeFetch<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, result: StoreFetch.Result,
                               limited: Bool) -> StoreFetch {
        StoreFetch(entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                   sortDescriptors: request.sortDescriptors ?? [], fetchLimit: limited ? request.fetchLimit : 0,
                   fetchOffset: limited ? request.fetchOffset : 0, returnsDistinctResults: request.returnsDistinctResults,
                   result: result, context: self, request: request)
    }
}
