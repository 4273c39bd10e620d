import Foundation

/// An `NSIncrementalStore` on the store seam: each of the seam's calls becomes a call of the
/// store's public API (a fetch request, a save request, a node, a relationship value), and each
/// answer is checked and turned into the seam's rows, so that contexts treat a store of your own
/// as they treat the built-in ones. Calls into the store are made under `lock`, one at a time.
extension NSIncrementalStore {
    func loadThroughMetadata() throws {
        try lock.withLock { try loadMetadata() }
        guard let uuid = metadata?[NSStoreUUIDKey] as? String, !uuid.isEmpty else {
            throw CoreDataError.make(.persistentStoreOpen,
                                     "The store of type '\(type)' set no NSStoreUUIDKey in its metadata in loadMetadata()")
        }
        // The UUID is the host of every object ID URI of the store.
        guard URL(string: "x-coredata://\(uuid)/E/p1")?.host == uuid else {
            throw CoreDataError.make(.persistentStoreOpen,
                                     "The store of type '\(type)' set an NSStoreUUIDKey that cannot be a URI's host: \(uuid)")
        }
        lock.withLock { identifier = uuid }
    }

    /// Tells the store that a context registered or let go of objects, under the lock, as
    /// every other call into the store is made.
    func noteObjects(_ ids: [NSManagedObjectID], registered: Bool) {
        lock.withLock {
            if registered {
                managedObjectContextDidRegisterObjects(with: ids)
            } else {
                managedObjectContextDidUnregisterObjects(with: ids)
            }
        }
    }

    // MARK: Reading

    func fetchThroughRequest(_ fetch: StoreFetch) throws -> StoreFetchResult {
        // Refused as the built-in stores refuse them, before the store sees them.
        if let predicate = fetch.predicate { try PredicateCheck.validate(predicate, for: fetch.entity) }
        try PredicateCheck.validate(fetch.sortDescriptors, for: fetch.entity)
        // The application's request as it was made, with the parts the context decided: the
        // limits are left to the context when it adds unsaved changes or merges several stores.
        let request = (fetch.request as? any AnyFetchRequest)?.copyForStore()
            ?? NSFetchRequest<NSFetchRequestResult>(entityName: fetch.entity.name ?? "")
        let asked = request.resultType
        request.entity = fetch.entity
        request.entityName = fetch.entity.name
        request.predicate = fetch.predicate
        request.sortDescriptors = fetch.sortDescriptors.isEmpty ? nil : fetch.sortDescriptors
        request.fetchLimit = fetch.fetchLimit
        request.fetchOffset = fetch.fetchOffset
        request.includesSubentities = fetch.includesSubentities
        request.affectedStores = [self]
        switch fetch.result {
        case .snapshots, .objectIDs:
            // Objects or IDs, as the application asked (either answer is taken).
            request.resultType = asked == .managedObjectIDResultType ? .managedObjectIDResultType : .managedObjectResultType
        case .count: request.resultType = .countResultType
        case .dictionaries(let columns, _):
            // The request as the application made it (properties to fetch, grouping, having); a
            // request that named no properties asks for every stored attribute and to-one.
            request.resultType = .dictionaryResultType
            if request.propertiesToFetch == nil {
                request.propertiesToFetch = columns.compactMap { if case .value(let keyPath) = $0.kind { keyPath } else { nil } }
            }
        case .keys:
            // `answersKeyFetches` is false: the context asks for objects instead.
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "An NSIncrementalStore (the store of type '\(type)') is not asked for primary keys")
        }
        let answer = try lock.withLock { try execute(request, with: fetch.context) }
        switch fetch.result {
        case .count: return .count(try count(in: answer))
        case .dictionaries: return .dictionaries(try dictionaries(in: answer))
        default: break
        }
        // Objects come back as IDs: the context makes (or finds) their objects, and their values
        // come from `newValuesForObject` when they are used.
        let ids = try objectIDs(in: answer, for: "a fetch request")
        // A fetch's answer becomes objects of the request's class: an object of another entity
        // there would be an object of the wrong type.
        for id in ids where fetch.includesSubentities ? !id.entity.isKindOf(entity: fetch.entity) : id.entity !== fetch.entity {
            throw wrongAnswer("a fetch request", "an object of \(id.entity.name ?? "?") to a fetch of \(fetch.entity.name ?? "?")")
        }
        return .objectIDs(ids)
    }

    func snapshotThroughNode(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot? {
        guard objectID.persistentStore === self, !objectID.isTemporaryID else { return nil }
        guard let context else {
            throw CoreDataError.make(.persistentStoreOperation, "An NSIncrementalStore is asked for values only by a context")
        }
        let node: NSIncrementalStoreNode
        do {
            node = try lock.withLock { try newValuesForObject(with: objectID, with: context) }
        } catch let error as CocoaError where error.code == .managedObjectReferentialIntegrity {
            // The store's way to say the row is gone: the object reads as deleted, as with the
            // built-in stores.
            return nil
        }
        guard node.objectID == objectID else {
            throw wrongAnswer("newValuesForObject(with:with:)", "a node of \(node.objectID) for \(objectID)")
        }
        return try snapshot(of: node, context: context)
    }

    func relatedSnapshotsThroughValues(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                                       context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [RowSnapshot]] {
        try relatedObjectIDs(of: sources, through: relationship, context: context).mapValues { members in
            try members.compactMap { try snapshotThroughNode(for: $0, context: context) }
        }
    }

    /// The members of a to-many for each of `sources`, as the store's
    /// `newValue(forRelationship:…)` names them, all read under one hold of the lock.
    func relatedObjectIDs(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                          context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [NSManagedObjectID]] {
        let call = "newValue(forRelationship:forObjectWith:with:) of \(relationship.name)"
        return try lock.withLock {
            var related: [NSManagedObjectID: [NSManagedObjectID]] = [:]
            for source in sources {
                let members = try objectIDs(in: try newValue(forRelationship: relationship, forObjectWith: source, with: context), for: call)
                for member in members { try checkDestination(member, of: relationship, call: call) }
                related[source] = members
            }
            return related
        }
    }

    /// A node's values as the seam's row: attributes converted to their types, to-ones as IDs.
    /// A to-one the node leaves out is asked for with `newValue(forRelationship:…)`, as Core
    /// Data resolves it (here when the fault fires rather than when the to-one is first read).
    private func snapshot(of node: NSIncrementalStoreNode, context: NSManagedObjectContext) throws -> RowSnapshot {
        let layout = node.objectID.entity.layout
        var values = [PrimitiveValue](repeating: .null, count: layout.attributes.count)
        for attribute in layout.attributes where !attribute.isTransient {
            guard let value = node.value(for: attribute) else { continue }
            do {
                values[attribute.attributeSlot] = try PrimitiveValue(value, for: attribute)
            } catch {
                throw wrongAnswer("newValuesForObject(with:with:)",
                                  "\(Swift.type(of: value)) for \(node.objectID.entity.name ?? "?").\(attribute.name) (\(error.reason))")
            }
        }
        var toOne = [NSManagedObjectID?](repeating: nil, count: layout.relationships.count)
        for relationship in layout.relationships where !relationship.isToMany && !relationship.isTransient {
            let call = node.hasValue(for: relationship) ? "newValuesForObject(with:with:)" : "newValue(forRelationship:forObjectWith:with:)"
            let value = node.hasValue(for: relationship) ? node.value(for: relationship)
                : try lock.withLock { try newValue(forRelationship: relationship, forObjectWith: node.objectID, with: context) }
            guard let value, !(value is NSNull) else { continue }
            guard let id = value as? NSManagedObjectID else {
                throw wrongAnswer(call, "\(Swift.type(of: value)) for the to-one \(node.objectID.entity.name ?? "?").\(relationship.name), not an NSManagedObjectID")
            }
            try checkDestination(id, of: relationship, call: call)
            toOne[relationship.relationshipSlot] = id
        }
        return RowSnapshot(objectID: node.objectID, version: Int64(clamping: node.version), values: values, toOne: toOne,
                           readAt: SnapshotClock.now())
    }

    // MARK: Writing

    func checkedPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        let ids = try lock.withLock { try obtainPermanentIDs(for: objects) }
        guard ids.count == objects.count else {
            throw wrongAnswer("obtainPermanentIDs(for:)", "\(ids.count) IDs for \(objects.count) objects")
        }
        for (object, id) in zip(objects, ids) {
            guard id.persistentStore === self, !id.isTemporaryID, id.entity === object.entity else {
                throw wrongAnswer("obtainPermanentIDs(for:)", "\(id) for an object of \(object.entity.name ?? "?")")
            }
            // An ID already in use names another object: two live objects would share it.
            if let other = object.context?.registeredObject(for: id), other !== object {
                throw wrongAnswer("obtainPermanentIDs(for:)", "\(id), which another object already has")
            }
        }
        guard Set(ids).count == ids.count else { throw wrongAnswer("obtainPermanentIDs(for:)", "the same ID for two objects") }
        return ids
    }

    /// The whole save, in one call of the store's `execute`: new objects get their permanent
    /// IDs first (as in Core Data, the store sees them with the IDs it gave).
    func saveThroughRequest(_ changes: SaveChanges) throws -> SaveOutcome {
        guard let context = changes.context else {
            throw CoreDataError.make(.persistentStoreOperation, "An NSIncrementalStore saves only a context's changes")
        }
        let inserted = changes.insertedObjects
        let temporary = inserted.filter { $0.objectID.isTemporaryID }
        if !temporary.isEmpty {
            for (object, id) in zip(temporary, try checkedPermanentIDs(for: temporary)) { context.changeID(of: object, to: id) }
        }
        func objects(_ rows: [SaveChanges.Row]) throws -> [NSManagedObject] {
            try rows.map { row in
                guard let object = context.registeredObject(for: row.objectID) else {
                    throw CoreDataError.make(.persistentStoreOperation, "The saved object \(row.objectID) is no longer registered in its context")
                }
                return object
            }
        }
        let updated = try objects(changes.updated), deleted = try objects(changes.deleted), locked = try objects(changes.locked)
        let request = NSSaveChangesRequest(inserted: Set(inserted), updated: Set(updated), deleted: Set(deleted),
                                           locked: locked.isEmpty ? nil : Set(locked))
        _ = try lock.withLock { try execute(request, with: context) }
        return SaveOutcome(insertedIDs: inserted.map(\.objectID))
    }

    // MARK: Answers

    /// The object IDs in what the store returned: objects or IDs, in an array, a set or an
    /// ordered set; each must be of this store.
    private func objectIDs(in answer: Any, for call: String) throws -> [NSManagedObjectID] {
        let elements: [Any]
        switch answer {
        case let array as [Any]: elements = array
        case let set as Set<NSManagedObjectID>: elements = Array(set)
        case let set as Set<NSManagedObject>: elements = Array(set)
        case let ordered as NSOrderedSet: elements = ordered.array
        case is NSNull: elements = []
        case let id as NSManagedObjectID: elements = [id]
        default: throw wrongAnswer(call, "\(Swift.type(of: answer)), not an array of NSManagedObject or NSManagedObjectID")
        }
        return try elements.map { element in
            let id: NSManagedObjectID
            switch element {
            case let object as NSManagedObject: id = object.objectID
            case let objectID as NSManagedObjectID: id = objectID
            default: throw wrongAnswer(call, "an element of type \(Swift.type(of: element)), not NSManagedObject or NSManagedObjectID")
            }
            guard id.persistentStore === self, !id.isTemporaryID else { throw wrongAnswer(call, "\(id), which is not an ID of this store") }
            return id
        }
    }

    /// The count in what the store returned for a count request: an array holding one number,
    /// or a number.
    /// The dictionaries a dictionary fetch request was answered with.
    private func dictionaries(in answer: Any) throws -> [[String: Any]] {
        guard let elements = answer as? [Any] else {
            throw wrongAnswer("a dictionary fetch request", "\(Swift.type(of: answer)), not an array of dictionaries")
        }
        return try elements.map { element in
            switch element {
            case let dictionary as [String: Any]: return dictionary
            case let dictionary as NSDictionary:
                var converted: [String: Any] = [:]
                for (key, value) in dictionary {
                    guard let key = key as? String else {
                        throw wrongAnswer("a dictionary fetch request", "a dictionary with the key \(key), not a string")
                    }
                    converted[key] = value
                }
                return converted
            default:
                throw wrongAnswer("a dictionary fetch request", "\(Swift.type(of: element)) in its array, not a dictionary")
            }
        }
    }

    private func count(in answer: Any) throws -> Int {
        switch answer {
        case let count as Int: return count
        case let array as [Any] where array.count == 1:
            if let count = array[0] as? Int { return count }
            if let number = array[0] as? NSNumber { return number.intValue }
        case let number as NSNumber: return number.intValue
        default: break
        }
        throw wrongAnswer("a count request", "\(Swift.type(of: answer)), not an array holding one number")
    }

    /// Refuses a destination of another entity than the relationship's.
    private func checkDestination(_ id: NSManagedObjectID, of relationship: NSRelationshipDescription, call: String) throws {
        guard let destination = relationship.destinationEntity, !id.entity.isKindOf(entity: destination) else { return }
        throw wrongAnswer(call, "an object of \(id.entity.name ?? "?") for \(relationship.name), whose destination is \(destination.name ?? "?")")
    }

    private func wrongAnswer(_ call: String, _ what: String) -> CocoaError {
        CoreDataError.make(.persistentStoreOperation, "The store of type '\(type)' returned \(what) from \(call)")
    }
}
