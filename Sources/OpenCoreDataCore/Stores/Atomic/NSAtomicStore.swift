import Foundation

/// A store of your own that keeps its whole graph in memory: it reads everything when it is
/// added (`load()`) and writes everything when a context saves (`save()`), in whatever file
/// format you choose. Contexts fetch, fault, unique and save through it as through any store;
/// predicates and sorts are evaluated in memory. The binary and XML stores are atomic stores.
///
/// ```swift
/// final class CSVStore: NSAtomicStore {
///     override func load() throws {
///         for line in try String(contentsOf: url!, encoding: .utf8).split(separator: "\n") {
///             let fields = line.split(separator: ",")
///             let id = objectID(for: noteEntity, withReferenceObject: String(fields[0]))
///             let node = NSAtomicStoreCacheNode(objectID: id)
///             node.setValue(String(fields[1]), forKey: "title")
///             addCacheNodes([node])
///         }
///     }
///     override func save() throws {
///         let lines = cacheNodes().map { "\(referenceObject(for: $0.objectID)),\($0.value(forKey: "title") ?? "")" }
///         try lines.joined(separator: "\n").write(to: url!, atomically: true, encoding: .utf8)
///     }
/// }
/// NSPersistentStoreCoordinator.registerStoreClass(CSVStore.self, forStoreType: "CSV")
/// ```
///
/// What the store is asked, in order:
/// - `loadMetadata()` when it is added. The default reads the file's metadata with the class's
///   `metadataForPersistentStore(with:)` when the file exists and that method is overridden, and
///   otherwise makes new metadata (the store type, a new `NSStoreUUIDKey`, the model's version
///   hashes). The coordinator then compares the version hashes with the model's.
/// - `load()`: read the file and register a node per object with `addCacheNodes(_:)`.
/// - On each save: `newReferenceObject(for:)` for each new object, `newCacheNode(for:)` for each
///   new object, `updateCacheNode(_:from:)` for each new and changed object, once every new node
///   is registered (so that relationships among new objects find their nodes),
///   `willRemoveCacheNodes(_:)` for the deleted ones, then `save()`. When `save()` throws, the
///   nodes' property caches are put back as they were, and the context's save fails with
///   nothing changed.
///
/// Differences from Apple: `newCacheNode(for:)`, `updateCacheNode(_:from:)` and
/// `newReferenceObject(for:)` have working defaults (an empty node; the object's saved values
/// with relationships as nodes; a new UUID string), so a store need only read and write. Apple
/// calls `updateCacheNode(_:from:)` only for updated objects. Batch requests are refused with
/// 134091 (they have no managed objects to make nodes from), as Core Data refuses them for
/// every store but SQLite; the built-in binary and XML stores run them.
open class NSAtomicStore: NSPersistentStore, StoreSeam, @unchecked Sendable {
    // @unchecked Sendable: every field is touched under `lock` (the coordinator and contexts call
    // in under it); `references` guards itself.

    /// The graph as contexts see it: rows, memberships, keys.
    lazy var rows = MemoryRows(store: self, keysAcrossEntities: builtInFile?.sharesKeysAcrossEntities ?? false)
    /// The registered nodes, by object ID (stores of your own; the built-in file formats keep
    /// only rows, and make nodes when asked).
    var nodes: [NSManagedObjectID: NSAtomicStoreCacheNode] = [:]
    /// Reference objects by key, and keys by reference (stores of your own).
    let references = ReferenceTable()
    /// The built-in file format this store reads and writes directly, if it is one of the
    /// built-in atomic stores; nil for stores of your own. Found once, at init.
    private(set) var builtInFile: (any AtomicStoreFile)?
    /// What writes the graph as it was before the save being prepared, if another store of
    /// the save fails after this one wrote.
    var undoWrite: (() -> Void)?
    /// The values of the save being written, for `updateCacheNode(_:from:)`.
    var savingNodeValues: AtomicNodeValues?

    public required init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?,
                         at url: URL, options: [AnyHashable: Any]? = nil) {
        super.init(persistentStoreCoordinator: root, configurationName: name, at: url, options: options)
        builtInFile = self as? any AtomicStoreFile
        // Object ID URIs of a store of your own carry its reference objects.
        if builtInFile == nil { IncrementalStores.inUse.store(true, ordering: .relaxed) }
    }

    // MARK: Reading and writing the file

    /// Reads the store's file and registers its objects with `addCacheNodes(_:)`. Called once,
    /// when the store is added, after its metadata was loaded and found to fit the model. A
    /// store whose file does not exist yet registers nothing.
    open func load() throws {
        guard let builtInFile else {
            throw CoreDataError.make(.persistentStoreOperation, "The atomic store of type '\(type)' does not implement load()")
        }
        try loadGraph(from: builtInFile)
    }

    /// Writes every registered node (`cacheNodes()`) and the metadata to the store's file.
    /// Called for each save, after the nodes were updated.
    open func save() throws {
        guard let builtInFile else {
            throw CoreDataError.make(.persistentStoreOperation, "The atomic store of type '\(type)' does not implement save()")
        }
        try write(rows.preparedState ?? rows.state, with: builtInFile)
    }

    // MARK: Nodes

    /// A node for an object inserted in the context being saved; the framework registers it.
    /// The default makes an empty node, which `updateCacheNode(_:from:)` then fills.
    open func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
        NSAtomicStoreCacheNode(objectID: managedObject.objectID)
    }

    /// Brings `node` up to date with `managedObject` as it is being saved. The default sets
    /// every stored property in the node's property cache: attributes as values, a to-one as
    /// its destination's node, a to-many as an `NSSet` (`NSOrderedSet`) of nodes; nil values
    /// are removed.
    open func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
        let values = savingNodeValues ?? AtomicNodeValues(graph: rows.preparedState ?? rows.state)
        values.fill(node) { self.nodes[$0] }
    }

    /// A reference object for a new object (a value of your own that names it in the file; an
    /// object ID is made from it with `objectID(for:withReferenceObject:)`). The default is a
    /// new UUID string.
    open func newReferenceObject(for managedObject: NSManagedObject) -> Any {
        UUID().uuidString
    }

    /// Called before nodes are removed because their objects were deleted.
    open func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {}

    /// Every registered node.
    open func cacheNodes() -> Set<NSAtomicStoreCacheNode> {
        lock.withLock {
            if builtInFile != nil { return Set(AtomicNodeValues(graph: rows.state).allNodes().values) }
            return Set(nodes.values)
        }
    }

    /// Registers nodes; call it from `load()`.
    open func addCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {
        lock.withLock {
            for node in cacheNodes { nodes[node.objectID] = node }
        }
    }

    /// The registered node of `objectID`, or nil.
    open func cacheNode(for objectID: NSManagedObjectID) -> NSAtomicStoreCacheNode? {
        lock.withLock {
            if builtInFile != nil { return AtomicNodeValues(graph: rows.state).allNodes()[objectID] }
            return nodes[objectID]
        }
    }

    // MARK: Object IDs

    /// The ID of the object of `entity` that the file knows by `data` (a string, a number, any
    /// hashable value). The same reference always gives an equal ID.
    open func objectID(for entity: NSEntityDescription, withReferenceObject data: Any) -> NSManagedObjectID {
        if builtInFile != nil, case let key as Int64 = ReferenceTable.normalized(data).base {
            return NSManagedObjectID(entity: entity, store: self, primaryKey: key)
        }
        return NSManagedObjectID(entity: entity, store: self, primaryKey: references.key(for: data, entity: entity))
    }

    /// The reference object `objectID` was made with. Stops the program for an ID of another
    /// store or a temporary ID, as Core Data raises.
    open func referenceObject(for objectID: NSManagedObjectID) -> Any {
        guard objectID.persistentStore === self, let key = objectID.primaryKey else {
            preconditionFailure("referenceObject(for:) was given \(objectID), which is not an object ID of this store")
        }
        if builtInFile != nil { return key }
        guard let reference = references.reference(for: key) else {
            preconditionFailure("referenceObject(for:) was given \(objectID), which this store did not make")
        }
        return reference
    }

    // MARK: Metadata

    /// Reads the store's metadata (see the type's documentation); a store of your own may set
    /// `metadata` here instead, with `NSStoreTypeKey` and `NSStoreUUIDKey`.
    open override func loadMetadata() throws {
        if let uuid = metadata?[NSStoreUUIDKey] as? String, !uuid.isEmpty { return }
        guard let url, FileManager.default.fileExists(atPath: url.path) else { return }
        if let builtInFile {
            metadata = try Swift.type(of: builtInFile).readMetadata(at: url)
            return
        }
        do {
            metadata = try Swift.type(of: self).metadataForPersistentStore(with: url)
        } catch let error as CocoaError where error.code == .persistentStoreInvalidType {
            // The class does not read metadata without loading: its `load()` may set it.
        }
    }

    // MARK: The store seam (NSAtomicStore+Seam.swift)

    package func load(model: NSManagedObjectModel, entities: [NSEntityDescription]) throws { try loadMetadataForSeam(model: model, entities: entities) }
    package func finishLoading() throws { try loadContents() }
    package func execute(_ fetch: StoreFetch) throws -> StoreFetchResult { try lock.withLock { try rows.execute(fetch) } }
    package func snapshot(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot? {
        lock.withLock { rows.row(for: objectID) }
    }
    package func relatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                                  context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [RowSnapshot]] {
        lock.withLock { rows.relatedSnapshots(of: sources, through: relationship) }
    }
    package func newPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] { try lock.withLock { try permanentIDs(for: objects) } }
    package func prepareSave(_ changes: SaveChanges) throws -> SaveOutcome { try lock.withLock { try prepareAtomicSave(changes) } }
    package func commitPreparedSave() throws { lock.withLock { commitAtomicSave() } }
    package func rollbackPreparedSave() { lock.withLock { rollbackAtomicSave() } }
    package func destroyFiles() throws -> Bool {
        guard let url, url.isFileURL else { return false }
        return try AtomicFileWrite.destroy(url)
    }
}
