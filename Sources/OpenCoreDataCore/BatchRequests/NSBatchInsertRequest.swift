import Foundation

/// What a batch insert returns. Raw values as Core Data's.
public enum NSBatchInsertRequestResultType: UInt, Sendable {
    /// `result` is `true` when the insert succeeded.
    case statusOnly = 0
    /// `result` is the IDs of the inserted (or, with uniqueness constraints, updated) objects.
    case objectIDs = 1
    /// `result` is the number of objects written.
    case count = 2
}

/// Inserts objects given as dictionaries straight into the store, without a context.
///
/// ```swift
/// let insert = NSBatchInsertRequest(entityName: "Entry", objects: [
///     ["title": "Tea", "time": Date()],
///     ["title": "Walk", "time": Date()],
/// ])
/// insert.resultType = .objectIDs
/// let ids = (try context.execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID]
/// ```
/// Keys are attribute names; missing attributes take their default values. As in Core Data,
/// relationships cannot be set, and an entity with uniqueness constraints is *upserted*: a
/// dictionary whose constrained values match an existing object updates that object instead of
/// inserting a second one. Each dictionary can also come from a handler called until it returns
/// `true` (`dictionaryHandler`, `managedObjectHandler`).
///
/// Difference from Core Data: values are checked: an unknown key, a relationship, a value of the
/// wrong type (1550) or a missing non-optional attribute without default (1570) fails the whole
/// request, naming the entity and the key; nothing is written then.
public final class NSBatchInsertRequest: NSPersistentStoreRequest {
    /// The name of the entity to insert.
    public let entityName: String
    /// The entity; found from `entityName` when nil.
    public var entity: NSEntityDescription?
    /// The objects to insert, as attribute name → value.
    public var objectsToInsert: [[String: Any]]?
    /// Fills one dictionary per call; returns true when there is nothing more to insert.
    public var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    /// Fills one object per call (an object in no context); returns true when done.
    public var managedObjectHandler: ((NSManagedObject) -> Bool)?
    /// What `result` holds.
    public var resultType: NSBatchInsertRequestResultType = .statusOnly

    public override var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }

    /// Inserts `objects` as objects of the entity named `entityName`.
    public init(entityName: String, objects: [[String: Any]]) {
        self.entityName = entityName
        self.objectsToInsert = objects
    }

    /// Inserts `objects` as objects of `entity`.
    public init(entity: NSEntityDescription, objects: [[String: Any]]) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        self.objectsToInsert = objects
    }

    /// Inserts one object per call of `handler`, until it returns true (the dictionary it filled
    /// on that last call is not inserted).
    public init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entityName = entityName
        self.dictionaryHandler = handler
    }

    /// As `init(entityName:dictionaryHandler:)`, for `entity`.
    public init(entity: NSEntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        self.dictionaryHandler = handler
    }

    /// Inserts one object per call of `handler`, which sets the values of an object that belongs
    /// to no context, until it returns true (that last object is not inserted).
    public init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.entityName = entityName
        self.managedObjectHandler = handler
    }

    /// As `init(entityName:managedObjectHandler:)`, for `entity`.
    public init(entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        self.managedObjectHandler = handler
    }

    /// A new request with the same entity, objects or handler, result type and stores (a
    /// handler is shared: it is the same closure).
    public override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSBatchInsertRequest(entityName: entityName, objects: [])
        copy.entity = entity
        copy.objectsToInsert = objectsToInsert
        copy.dictionaryHandler = dictionaryHandler
        copy.managedObjectHandler = managedObjectHandler
        copy.resultType = resultType
        copy.affectedStores = affectedStores
        return copy
    }
}

/// The result of a batch insert.
public final class NSBatchInsertResult: NSPersistentStoreResult {
    /// `true`, the written IDs or their count, as the request's `resultType` asked.
    public let result: Any?
    /// The kind of `result`: the request's `resultType`.
    public let resultType: NSBatchInsertRequestResultType

    init(resultType: NSBatchInsertRequestResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
    }
}

