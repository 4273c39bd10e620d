import Foundation

/// The objects of a fetch, loaded a batch at a time as they are used and let go of once the
/// iteration has moved on, so that reading a million objects needs the memory of a few batches
/// (plus 10 bytes an object for their keys). Made by
/// `NSManagedObjectContext.fetchInBatches(_:)`.
///
/// ```swift
/// let request = NSFetchRequest<Item>(entityName: "Item")
/// request.fetchBatchSize = 1_000
/// for item in try context.fetchInBatches(request) {
///     total += item.score           // one query per 1,000 items; old batches are released
/// }
/// ```
/// The collection keeps the two batches used last; an object you keep a reference to stays
/// alive, as do objects with unsaved changes (the context holds those).
///
/// Difference from Core Data: Core Data's `fetch(_:)` returns such an array proxy itself when
/// `fetchBatchSize` is set; a Swift `Array` cannot load lazily, so OpenCoreData offers this
/// collection beside `fetch(_:)`.
public final class BatchedFetchResults<Element>: RandomAccessCollection {
    public typealias Index = Int

    private unowned let context: NSManagedObjectContext
    private let store: NSPersistentStore?
    private let family: [NSEntityDescription]
    private let keys: [Int64]
    private let entityIndexes: [UInt16]
    /// Objects of a fetch that could not be batched (pending changes, several stores).
    private let eager: [NSManagedObject]?
    /// Objects per batch.
    public let batchSize: Int
    /// The batches in memory: batch number → objects, the most recently used last.
    private var resident: [(batch: Int, objects: [NSManagedObject])] = []
    private let residentLimit = 2

    init(context: NSManagedObjectContext, store: NSPersistentStore, entity: NSEntityDescription,
         keys: [Int64], entityIndexes: [UInt16], batchSize: Int) {
        self.context = context
        self.store = store
        self.family = entity.selfAndDescendants
        self.keys = keys
        self.entityIndexes = entityIndexes
        self.eager = nil
        self.batchSize = batchSize
    }

    init(context: NSManagedObjectContext, objects: [NSManagedObject], batchSize: Int) {
        self.context = context
        self.store = nil
        self.family = []
        self.keys = []
        self.entityIndexes = []
        self.eager = objects
        self.batchSize = batchSize
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { eager?.count ?? keys.count }

    /// The object at `position`; its batch is loaded (one query) if it is not in memory.
    public subscript(position: Int) -> Element {
        if let eager { return eager[position] as! Element }
        precondition(position >= 0 && position < keys.count, "Index \(position) out of range 0..<\(keys.count)")
        let batch = position / batchSize
        let objects = objects(ofBatch: batch)
        // Every object is an instance of its entity's class, checked when the fetch was made.
        return objects[position - batch * batchSize] as! Element
    }

    private func objects(ofBatch batch: Int) -> [NSManagedObject] {
        if let index = resident.lastIndex(where: { $0.batch == batch }) {
            if index != resident.count - 1 { resident.append(resident.remove(at: index)) }
            return resident[resident.count - 1].objects
        }
        let range = (batch * batchSize)..<Swift.min((batch + 1) * batchSize, keys.count)
        let ids = range.map { position in
            NSManagedObjectID(entity: family[entityIndexes.isEmpty ? 0 : Int(entityIndexes[position])], store: store!,
                              primaryKey: keys[position])
        }
        let objects = context.objectsWithValues(for: ids, in: store!)
        resident.append((batch, objects))
        if resident.count > residentLimit { resident.removeFirst() }
        return objects
    }
}

@available(*, unavailable)
extension BatchedFetchResults: Sendable {}

extension NSManagedObjectContext {
    /// The objects with `ids`, in order, with their values loaded: registered objects as they
    /// are, the others from one query. (Loading snapshots into objects nothing holds would lose
    /// them at once: the registry does not retain unchanged objects.)
    func objectsWithValues(for ids: [NSManagedObjectID], in store: NSPersistentStore) -> [NSManagedObject] {
        var objects: [NSManagedObject?] = ids.map { id in
            guard let object = registry[id], !(object.isFault && object.contents.snapshot == nil) else { return nil }
            return object
        }
        let missing = zip(ids, objects).compactMap { $1 == nil ? $0 : nil }
        if !missing.isEmpty, let snapshots = try? parentStoreOrThrow().snapshots(for: missing, context: self) {
            // By key: the IDs are one fetch's, of one inheritance tree in one store, where keys are unique.
            var loaded: [Int64: NSManagedObject] = [:]
            for snapshot in snapshots { loaded[snapshot.primaryKey] = object(for: snapshot) }
            for index in objects.indices where objects[index] == nil {
                objects[index] = ids[index].primaryKey.flatMap { loaded[$0] }
            }
        }
        // A row gone since the keys were read comes back as a fault that fails when fired, as in
        // Core Data.
        return zip(ids, objects).map { id, object in object ?? self.object(with: id) }
    }
}

extension NSManagedObjectContext {
    /// Fetches like `fetch(_:)`, but returns a collection that loads the objects a batch at a
    /// time (`fetchBatchSize`, 1,000 when not set) as they are used, and lets go of batches
    /// the iteration has left: memory stays flat however many objects match.
    ///
    /// ```swift
    /// request.fetchBatchSize = 500
    /// for entry in try context.fetchInBatches(request) { print(entry.title) }
    /// ```
    /// Without sort descriptors the objects come in the store's key order. Only managed-object
    /// results can be batched. When the context has unsaved changes that
    /// could change the answer, or the entity lives in several stores, the fetch is done at
    /// once (as `fetch(_:)`) and the collection simply holds its result. So it is from an
    /// `NSIncrementalStore`, which names its objects by reference objects rather than keys: the
    /// objects it answers with as IDs stay faults until used, and then get their values from its
    /// `newValuesForObject(with:with:)`.
    public func fetchInBatches<T>(_ request: NSFetchRequest<T>) throws -> BatchedFetchResults<T> {
        checkQueue()
        guard request.resultType == .managedObjectResultType else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "fetchInBatches(_:) returns managed objects; use fetch(_:) for IDs, dictionaries or counts")
        }
        let entity = try entity(of: request)
        let family = request.includesSubentities ? entity.selfAndDescendants : [entity]
        guard family.allSatisfy({ $0.layout.objectClass is T.Type }) else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "The objects of \(entity.name ?? "?") are not instances of \(T.self)")
        }
        let batchSize = request.fetchBatchSize > 0 ? request.fetchBatchSize : 1_000
        let stores = try stores(for: request, entity: entity)
        let mergesPending = request.includesPendingChanges && hasPendingChanges(affecting: entity)
        guard stores.count == 1, !mergesPending, stores[0].seam.answersKeyFetches else {
            return BatchedFetchResults(context: self, objects: try fetchObjects(request, entity: entity), batchSize: batchSize)
        }
        let store = stores[0]
        let fetch = StoreFetch(entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                               sortDescriptors: request.sortDescriptors ?? [], fetchLimit: request.fetchLimit,
                               fetchOffset: request.fetchOffset, returnsDistinctResults: false, result: .keys, context: self)
        guard case .keys(let keys, let entityIndexes) = try parentStoreOrThrow().execute(fetch, in: [store]) else {
            return BatchedFetchResults(context: self, objects: [], batchSize: batchSize)
        }
        return BatchedFetchResults(context: self, store: store, entity: entity, keys: keys, entityIndexes: entityIndexes,
                                   batchSize: batchSize)
    }
}
