import Foundation

/// An `NSAtomicStore` on the store seam: contexts read its rows (`MemoryRows`), and each save is
/// staged in the rows, handed to the store's nodes and written by `save()` before it is made
/// final, so that a save whose file could not be written leaves the store as it was.
extension NSAtomicStore {
    // MARK: Loading

    /// The metadata, read or made new; the coordinator compares its version hashes next.
    func loadMetadataForSeam(model: NSManagedObjectModel, entities: [NSEntityDescription]) throws {
        try lock.withLock {
            try loadMetadata()
            var metadata = storedMetadata
            if (metadata[NSStoreUUIDKey] as? String)?.isEmpty != false {
                // A new store: the model's hashes, and whatever the store set itself.
                metadata = model.versionMetadata(for: NSManagedObjectModel.withSubentities(entities)).merging(metadata) { $1 }
                metadata[NSStoreUUIDKey] = UUID().uuidString
            }
            if metadata[NSStoreTypeKey] == nil { metadata[NSStoreTypeKey] = type }
            storedMetadata = metadata
            try adoptIdentifier()
        }
    }

    /// Reads the objects: the built-in formats straight into rows; a store of your own through
    /// its nodes.
    func loadContents() throws {
        try lock.withLock {
            nodes = [:]
            try load()
            if builtInFile == nil {
                rows.replace(with: try AtomicNodeGraph(store: self, nodes: nodes).graph())
                // `load()` may have set the metadata, with the file's UUID.
                try adoptIdentifier()
            }
        }
    }

    /// The UUID in the metadata as the store's identifier, the host of its object ID URIs.
    private func adoptIdentifier() throws {
        guard let uuid = storedMetadata[NSStoreUUIDKey] as? String, !uuid.isEmpty,
              URL(string: "x-coredata://\(uuid)/E/p1")?.host == uuid else {
            throw CoreDataError.store(.persistentStoreOpen, "The atomic store of type '\(type)' has no NSStoreUUIDKey that can be a URI's host: "
                                      + "\(storedMetadata[NSStoreUUIDKey] ?? "none")", url: url)
        }
        identifier = uuid
    }

    /// The built-in formats: the whole graph from the file, or an empty one for a new store.
    func loadGraph(from file: any AtomicStoreFile) throws {
        guard let url, FileManager.default.fileExists(atPath: url.path) else {
            rows.replace(with: StoredGraph())
            return
        }
        guard let model = persistentStoreCoordinator?.managedObjectModel else {
            throw CoreDataError.store(.persistentStoreOpen, "The store at \(url.path) is loaded without a coordinator", url: url)
        }
        rows.replace(with: try file.readGraph(at: url, model: model, store: self))
    }

    /// Writes a built-in format's file.
    func write(_ graph: StoredGraph, with file: any AtomicStoreFile) throws {
        guard let url else { throw CoreDataError.make(.persistentStoreSave, "The atomic store of type '\(type)' has no URL to save to") }
        try file.writeGraph(graph, metadata: storedMetadata, to: url)
    }

    // MARK: Saving

    func permanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        if builtInFile != nil { return objects.map { rows.allocateID(for: $0.entity) } }
        let ids = objects.map { objectID(for: $0.entity, withReferenceObject: newReferenceObject(for: $0)) }
        for (object, id) in zip(objects, ids) where rows.row(for: id) != nil || nodes[id] != nil {
            throw CoreDataError.make(.persistentStoreOperation, "The atomic store of type '\(type)' returned the reference object "
                                     + "\(referenceObject(for: id)) from newReferenceObject(for:) for a new \(object.entity.name ?? "?"), "
                                     + "which an object in the store already has")
        }
        guard Set(ids).count == ids.count else {
            throw CoreDataError.make(.persistentStoreOperation,
                                     "The atomic store of type '\(type)' returned one reference object for two new objects")
        }
        return ids
    }

    func prepareAtomicSave(_ changes: SaveChanges) throws -> SaveOutcome {
        guard !isReadOnly else {
            throw CoreDataError.store(.persistentStoreSave, "The store \(url?.path ?? "?") of type '\(type)' is read-only", url: url)
        }
        if builtInFile != nil {
            let outcome = try rows.prepare(changes)
            do {
                try save()
            } catch {
                rows.rollbackPrepared()
                throw error
            }
            undoWrite = { [self] in if let builtInFile { try? write(rows.state, with: builtInFile) } }
            return outcome
        }
        guard let context = changes.context else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "The atomic store of type '\(type)' does not run batch requests: its nodes are made from managed objects")
        }
        let temporary = changes.insertedObjects.filter(\.objectID.isTemporaryID)
        let ids = try permanentIDs(for: temporary)
        var permanent: [NSManagedObjectID: NSManagedObjectID] = [:]
        for (object, id) in zip(temporary, ids) { permanent[object.objectID] = id }
        let outcome = try rows.prepare(changes, permanentIDs: permanent)
        // As in Core Data, the store's methods see new objects with their permanent IDs; a save
        // that fails gives them their temporary ones back.
        let temporaryIDs = temporary.map(\.objectID)
        let restoreIDs = { for (object, id) in zip(temporary, temporaryIDs) { context.changeID(of: object, to: id) } }
        for (object, id) in zip(temporary, ids) { context.changeID(of: object, to: id) }
        do {
            let undoNodes = try saveThroughNodes(changes, context: context)
            undoWrite = {
                undoNodes()
                restoreIDs()
            }
        } catch {
            rows.rollbackPrepared()
            restoreIDs()
            throw error
        }
        return outcome
    }

    /// Hands the save to the nodes — new nodes registered, changed ones updated, deleted ones
    /// removed — and calls `save()`. Returns what puts the nodes back and writes them again.
    private func saveThroughNodes(_ changes: SaveChanges, context: NSManagedObjectContext) throws -> () -> Void {
        var added: [NSManagedObjectID] = []
        var backups: [(node: NSAtomicStoreCacheNode, cache: NSMutableDictionary?)] = []
        var removed: [NSAtomicStoreCacheNode] = []
        let restore = { [self] in
            for id in added { nodes[id] = nil }
            for (node, cache) in backups { node.propertyCache = cache }
            for node in removed { nodes[node.objectID] = node }
        }
        do {
            var saved: [(node: NSAtomicStoreCacheNode, object: NSManagedObject)] = []
            for object in changes.insertedObjects {
                let node = newCacheNode(for: object)
                guard node.objectID == object.objectID else {
                    throw CoreDataError.make(.persistentStoreOperation, "The atomic store of type '\(type)' returned a node for "
                                             + "\(node.objectID) from newCacheNode(for:) for the object \(object.objectID)")
                }
                nodes[object.objectID] = node
                added.append(object.objectID)
                saved.append((node, object))
            }
            for row in changes.updated {
                guard let object = context.registeredObject(for: row.objectID) else {
                    throw CoreDataError.make(.persistentStoreOperation, "The saved object \(row.objectID) is no longer registered in its context")
                }
                let node: NSAtomicStoreCacheNode
                if let registered = nodes[row.objectID] {
                    node = registered
                    backups.append((node, node.propertyCache?.mutableCopy() as? NSMutableDictionary))
                } else {
                    node = newCacheNode(for: object)
                    nodes[row.objectID] = node
                    added.append(row.objectID)
                }
                saved.append((node, object))
            }
            savingNodeValues = AtomicNodeValues(graph: rows.preparedState ?? rows.state)
            defer { savingNodeValues = nil }
            for (node, object) in saved { updateCacheNode(node, from: object) }
            let doomed = Set(changes.deleted.compactMap { nodes[$0.objectID] })
            if !doomed.isEmpty { willRemoveCacheNodes(doomed) }
            for node in doomed {
                nodes[node.objectID] = nil
                removed.append(node)
            }
            if !doomed.isEmpty { scrubReferences(to: doomed, backups: &backups) }
            try save()
        } catch {
            restore()
            throw error
        }
        return { [self] in
            restore()
            try? save()
        }
    }

    /// Takes removed nodes out of the relationships of the nodes that stay (a to-one without
    /// inverse still names its deleted destination), so that the file never names an object it
    /// does not hold. Each node changed is backed up first.
    private func scrubReferences(to removed: Set<NSAtomicStoreCacheNode>,
                                 backups: inout [(node: NSAtomicStoreCacheNode, cache: NSMutableDictionary?)]) {
        let backedUp = Set(backups.map { ObjectIdentifier($0.node) })
        for node in nodes.values {
            guard let cache = node.propertyCache else { continue }
            var changes: [(String, Any?)] = []
            for case let (key as String, value) in cache {
                switch value {
                case let destination as NSAtomicStoreCacheNode where removed.contains(destination): changes.append((key, nil))
                case let set as NSSet where set.contains(where: { ($0 as? NSAtomicStoreCacheNode).map(removed.contains) == true }):
                    changes.append((key, NSSet(array: set.allObjects.filter { !(($0 as? NSAtomicStoreCacheNode).map(removed.contains) ?? false) })))
                case let ordered as NSOrderedSet where ordered.contains(where: { ($0 as? NSAtomicStoreCacheNode).map(removed.contains) == true }):
                    changes.append((key, NSOrderedSet(array: ordered.array.filter { !(($0 as? NSAtomicStoreCacheNode).map(removed.contains) ?? false) })))
                default: break
                }
            }
            guard !changes.isEmpty else { continue }
            if !backedUp.contains(ObjectIdentifier(node)) { backups.append((node, cache.mutableCopy() as? NSMutableDictionary)) }
            for (key, value) in changes { node.setValue(value, forKey: key) }
        }
    }

    func commitAtomicSave() {
        rows.commitPrepared()
        undoWrite = nil
    }

    /// Another store of the same save failed after this one wrote its file: the previous graph
    /// is written again (as far as it can be; the failure is the save's error either way).
    func rollbackAtomicSave() {
        let undo = undoWrite
        undoWrite = nil
        rows.rollbackPrepared()
        undo?()
    }
}
