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
        lock.withLock { identifier = uuid }
    }

    // MARK: Reading

    func fetchThroughRequest(_ fetch: StoreFetch) throws -> StoreFetchResult {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: fetch.entity.name ?? "")
        request.entity = fetch.entity
        request.predicate = fetch.predicate
        request.sortDescriptors = fetch.sortDescriptors.isEmpty ? nil : fetch.sortDescriptors
        request.fetchLimit = fetch.fetchLimit
        request.fetchOffset = fetch.fetchOffset
        request.includesSubentities = fetch.includesSubentities
        request.affectedStores = [self]
        switch fetch.result {
        case .snapshots: request.resultType = .managedObjectResultType
        case .objectIDs: request.resultType = .managedObjectIDResultType
        case .count: request.resultType = .countResultType
        case .keys, .dictionaries:
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "Dictionary results and fetchInBatches are not passed to an NSIncrementalStore yet (the store of type '\(type)')")
        }
        let answer = try lock.withLock { try execute(request, with: fetch.context) }
        if case .count = fetch.result { return .count(try count(in: answer)) }
        // Objects come back as IDs: the context makes (or finds) their objects, and their values
        // come from `newValuesForObject` when they are used.
        return .objectIDs(try objectIDs(in: answer, for: "a fetch request"))
    }

    func snapshotThroughNode(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot? {
        guard objectID.persistentStore === self, !objectID.isTemporaryID else { return nil }
        guard let context else {
            throw CoreDataError.make(.persistentStoreOperation, "An NSIncrementalStore is asked for values only by a context")
        }
        let node = try lock.withLock { try newValuesForObject(with: objectID, with: context) }
        guard node.objectID == objectID else {
            throw wrongAnswer("newValuesForObject(with:with:)", "a node of \(node.objectID) for \(objectID)")
        }
        return try snapshot(of: node)
    }

    func relatedSnapshotsThroughValues(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                                       context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [RowSnapshot]] {
        var related: [NSManagedObjectID: [RowSnapshot]] = [:]
        for source in sources {
            let answer = try lock.withLock { try newValue(forRelationship: relationship, forObjectWith: source, with: context) }
            let members = try objectIDs(in: answer, for: "newValue(forRelationship:forObjectWith:with:) of \(relationship.name)")
            related[source] = try members.compactMap { try snapshotThroughNode(for: $0, context: context) }
        }
        return related
    }

    /// A node's values as the seam's row: attributes converted to their types, to-ones as IDs.
    private func snapshot(of node: NSIncrementalStoreNode) throws -> RowSnapshot {
        let layout = node.objectID.entity.layout
        var values = [PrimitiveValue](repeating: .null, count: layout.attributes.count)
        for attribute in layout.attributes where !attribute.isTransient {
            guard let value = node.value(for: attribute) else { continue }
            do {
                values[attribute.attributeSlot] = try PrimitiveValue(value, for: attribute.attributeType)
            } catch {
                throw wrongAnswer("newValuesForObject(with:with:)",
                                  "\(Swift.type(of: value)) for \(node.objectID.entity.name ?? "?").\(attribute.name) (\(error.reason))")
            }
        }
        var toOne = [NSManagedObjectID?](repeating: nil, count: layout.relationships.count)
        for relationship in layout.relationships where !relationship.isToMany && !relationship.isTransient {
            guard let value = node.value(for: relationship) else { continue }
            guard let id = value as? NSManagedObjectID else {
                throw wrongAnswer("newValuesForObject(with:with:)",
                                  "\(Swift.type(of: value)) for the to-one \(node.objectID.entity.name ?? "?").\(relationship.name), not an NSManagedObjectID")
            }
            toOne[relationship.relationshipSlot] = id
        }
        return RowSnapshot(objectID: node.objectID, version: Int64(clamping: node.version), values: values, toOne: toOne,
                           readAt: SnapshotClock.now())
    }

    // MARK: Writing

    func checkedPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        let ids = try lock.withLock { try obtainPermanentIDs(for: objects) }
        guard ids.count == objects.count, ids.allSatisfy({ $0.persistentStore === self && !$0.isTemporaryID }) else {
            throw wrongAnswer("obtainPermanentIDs(for:)", "\(ids.count) IDs for \(objects.count) objects, or IDs not of this store")
        }
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
        let updated = changes.updated.compactMap { context.registeredObject(for: $0.objectID) }
        let deleted = changes.deleted.compactMap { context.registeredObject(for: $0.objectID) }
        let request = NSSaveChangesRequest(inserted: Set(inserted), updated: Set(updated), deleted: Set(deleted), locked: nil)
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

    private func wrongAnswer(_ call: String, _ what: String) -> CocoaError {
        CoreDataError.make(.persistentStoreOperation, "The store of type '\(type)' returned \(what) from \(call)")
    }
}
