import Foundation

/// Connects a model to its persistent stores and hands their rows to contexts.
///
/// ```swift
/// let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
/// ```
/// A coordinator is shared by every context of a stack, across threads.
open class NSPersistentStoreCoordinator: NSObject, @unchecked Sendable {
    // @unchecked Sendable: `stores` is guarded by `storesLock`; the model is frozen.

    /// The model the coordinator's stores hold objects of.
    public let managedObjectModel: NSManagedObjectModel
    /// A name for debugging.
    public var name: String?
    private let storesLock = NSLock()
    /// Held by a context's save while it writes and settles conflicts (`withSavesSerialized`),
    /// and by the deprecated `lock()`.
    let saveSerialization = NSRecursiveLock()
    private var stores: [NSPersistentStore] = []
    /// Where `perform(_:)` and `performAndWait(_:)` run their blocks, one at a time.
    let performQueue = DispatchQueue(label: "OpenCoreData.NSPersistentStoreCoordinator")

    /// Creates a coordinator; the model is frozen from now on.
    ///
    /// `required`, so that `Self.init(managedObjectModel:)` works in a class method, as it does
    /// with Apple's Objective-C initialiser (see `Docs/Differences.md`).
    public required init(managedObjectModel model: NSManagedObjectModel) {
        self.managedObjectModel = model
        model.freeze()
    }

    /// The stores added so far, in order.
    public var persistentStores: [NSPersistentStore] { storesLock.withLock { stores } }

    /// Adds and opens a store of `storeType` at `url`.
    ///
    /// The store is opened in Core Data's sequence (`StoreOpening`): its metadata is read, it is
    /// compared with the model, migrated if it no longer fits and the options ask for it
    /// (`NSMigratePersistentStoresAutomaticallyOption`, `NSInferMappingModelAutomaticallyOption`,
    /// `IncompatibleStorePolicy`), and loaded. A migration blocks the calling thread; the async
    /// `loadPersistentStores` of a container runs it off the caller's.
    ///
    /// Throws when the model is invalid (134060, `NSCoreDataError`, with the `ModelValidationError`
    /// listing every problem under `NSUnderlyingErrorKey`), when the file is not a store of that
    /// type (the file is left as it was), or when the store was written for an incompatible model
    /// and is not migrated (134100, listing what differs) or cannot be (134110–134170).
    @discardableResult
    open func addPersistentStore(ofType storeType: String, configurationName: String? = nil, at storeURL: URL?,
                                 options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        do {
            try managedObjectModel.validate()
        } catch let error as ModelValidationError {
            // A CocoaError, so that Core Data's `catch` clauses see it.
            throw CoreDataError.make(.coreData, error.description, [NSUnderlyingErrorKey: error])
        }
        if let configurationName, configurationName != "PF_DEFAULT_CONFIGURATION_NAME",
           managedObjectModel.entities(forConfigurationName: configurationName) == nil {
            throw CoreDataError.make(.persistentStoreInvalidType, "The model has no configuration named '\(configurationName)'")
        }
        guard let storeClass = StoreClassRegistry.openingClass(for: storeType) else {
            let advice = storeType == NSSQLiteStoreType
                ? "the SQLite store is not linked into this program: import OpenCoreData"
                : "register a store class for it with registerStoreClass(_:forStoreType:)"
            throw CoreDataError.make(.persistentStoreInvalidType, "Unknown store type '\(storeType)': \(advice)")
        }
        // Only stores on the seam can serve contexts: a plain NSPersistentStore subclass would
        // silently answer nothing.
        guard StoreClassRegistry.isBuiltIn(storeType) || storeClass is NSIncrementalStore.Type || storeClass is NSAtomicStore.Type else {
            throw CoreDataError.make(.persistentStoreInvalidType, "The class \(storeClass) registered for the store type '\(storeType)' "
                                     + "is neither an NSIncrementalStore nor an NSAtomicStore subclass")
        }
        let store = try StoreOpening(coordinator: self, storeClass: storeClass, storeType: storeType, configurationName: configurationName,
                                     storeURL: storeURL, options: options).open()
        storesLock.withLock { stores.append(store) }
        store.didAdd(to: self)
        postStoresDidChange(NSAddedPersistentStoresKey, store)
        return store
    }

    /// Adds a store of a `StoreType` (the iOS 15 spelling).
    @discardableResult
    public func addPersistentStore(type: NSPersistentStore.StoreType, configuration: String? = nil, at storeURL: URL,
                                   options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        try addPersistentStore(ofType: type.rawValue, configurationName: configuration, at: storeURL, options: options)
    }

    /// Adds the store `storeDescription` describes (its type, configuration, URL and options,
    /// migration included), then calls `block` with the description and the error, if any: on
    /// a background queue when the description's `shouldAddStoreAsynchronously` is true, before
    /// returning otherwise.
    ///
    /// ```swift
    /// coordinator.addPersistentStore(with: description) { description, error in
    ///     if let error { print("\(description.url!.path): \(error)") }
    /// }
    /// ```
    /// As in Apple's SDK, `block` is not `@Sendable`: asking for an asynchronous add is asking
    /// for it to be called on another queue.
    public func addPersistentStore(with storeDescription: NSPersistentStoreDescription,
                                   completionHandler block: @escaping (NSPersistentStoreDescription, Error?) -> Void) {
        guard storeDescription.shouldAddStoreAsynchronously else {
            return block(storeDescription, addingStore(of: storeDescription))
        }
        let handler = StoreAddedHandler(block: block)
        DispatchQueue.global().async { handler.block(storeDescription, self.addingStore(of: storeDescription)) }
    }

    /// Adds the store `description` describes; the error, or nil.
    private func addingStore(of description: NSPersistentStoreDescription) -> Error? {
        do {
            try addPersistentStore(ofType: description.type, configurationName: description.configuration,
                                   at: description.url, options: description.storeOptions)
            return nil
        } catch {
            return error
        }
    }

    /// The URL of `store`, as `store.url` has it; for a store added without one (an in-memory
    /// store), `/dev/null`.
    ///
    /// Difference from Core Data: what Core Data answers for a store without a URL is not
    /// documented. The `/dev/null` given for one does not find it again through
    /// `persistentStore(for:)`, which only finds stores by the URL they were added at.
    public func url(for store: NSPersistentStore) -> URL {
        store.url ?? URL(fileURLWithPath: "/dev/null")
    }

    /// Takes a loaded store of another coordinator (with the same model) as one of this one's.
    func adopt(_ store: NSPersistentStore) {
        store.persistentStoreCoordinator = self
        storesLock.withLock { stores.append(store) }
        store.didAdd(to: self)
        postStoresDidChange(NSAddedPersistentStoresKey, store)
    }

    /// Removes a store; its objects can no longer be fetched or saved.
    ///
    /// Posts `NSPersistentStoreCoordinatorWillRemoveStore` (the store as its object) before, and
    /// `NSPersistentStoreCoordinatorStoresDidChange` (the store under
    /// `NSRemovedPersistentStoresKey`) after.
    open func remove(_ store: NSPersistentStore) throws {
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorWillRemoveStore, object: store)
        store.willRemove(from: self)
        storesLock.withLock { stores.removeAll { $0 === store } }
        store.seam.unload()
        postStoresDidChange(NSRemovedPersistentStoresKey, store)
    }

    private func postStoresDidChange(_ key: String, _ store: NSPersistentStore) {
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: [key: [store]])
    }

    /// The store at `url`, if it has been added.
    public func persistentStore(for url: URL) -> NSPersistentStore? {
        persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    /// The object ID a URI names (`x-coredata://<store>/<Entity>/p<key>`), or nil if the URI
    /// does not name an entity of this model in one of this coordinator's stores.
    public func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        guard url.scheme == "x-coredata", let host = url.host, !host.isEmpty,
              let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath else { return nil }
        // Split before decoding: a reference object may hold an encoded "/".
        let parts = path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        guard parts.count == 2, let entity = managedObjectModel.entity(named: String(parts[0])), parts[1].first == "p",
              let store = persistentStores.first(where: { $0.identifier == host }) else { return nil }
        if let referenced = store as? any ReferenceObjectStore, let table = referenced.referenceTable {
            let reference = table.reference(fromURIComponent: String(parts[1].dropFirst()), entity: entity)
            return referenced.objectID(for: entity, reference: reference)
        }
        guard let key = Int64(parts[1].dropFirst()), key > 0 else { return nil }
        return NSManagedObjectID(entity: entity, store: store, primaryKey: key)
    }

    /// The metadata of one of this coordinator's stores.
    public func metadata(for store: NSPersistentStore) -> [String: Any] { store.metadata ?? [:] }

    /// Replaces a store's metadata; it is written with the next save.
    public func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        store.metadata = metadata
    }

    // MARK: Routing

    /// The stores that hold objects of `entity`.
    func stores(for entity: NSEntityDescription) -> [NSPersistentStore] {
        persistentStores.filter { $0.holds(entity) }
    }

    /// The store a new object is saved to: the one its context assigned it to, else its
    /// entity's.
    func store(forNew object: NSManagedObject) throws -> NSPersistentStore {
        guard let store = object.context?.assignedStore(of: object) else { return try assignedStore(for: object.entity) }
        guard persistentStores.contains(where: { $0 === store }), store.holds(object.entity) else {
            throw CoreDataError.store(.persistentStoreSave,
                                      "A new \(object.entity.name ?? "?") was assigned to the store \(store.url?.path ?? "in memory"), which does not hold that entity or is not added to the coordinator",
                                      url: store.url)
        }
        guard !store.isReadOnly else {
            throw CoreDataError.store(.persistentStoreSave,
                                      "A new \(object.entity.name ?? "?") was assigned to the store \(store.url?.path ?? "in memory"), which is read-only",
                                      url: store.url)
        }
        return store
    }

    /// The store a new object of `entity` is saved to: the first writable one that holds it.
    func assignedStore(for entity: NSEntityDescription) throws -> NSPersistentStore {
        guard let store = persistentStores.first(where: { $0.holds(entity) && !$0.isReadOnly }) else {
            throw CoreDataError.make(.persistentStoreSave,
                                     "No writable persistent store holds entity '\(entity.name ?? "?")'")
        }
        return store
    }
}

/// The completion handler of a store added asynchronously, carried to the queue that adds it.
/// `@unchecked Sendable`: asking for `shouldAddStoreAsynchronously` is asking for the handler to
/// be called on that queue, as Apple's coordinator and container do with the same
/// non-`@Sendable` block.
package struct StoreAddedHandler: @unchecked Sendable {
    package let block: (NSPersistentStoreDescription, Error?) -> Void

    package init(block: @escaping (NSPersistentStoreDescription, Error?) -> Void) {
        self.block = block
    }
}
