import Foundation

/// What a batch update returns. Raw values as Core Data's.
public enum NSBatchUpdateRequestResultType: UInt, Sendable {
    /// `result` is `true` when the update succeeded.
    case statusOnlyResultType = 0
    /// `result` is the IDs of the updated objects.
    case updatedObjectIDsResultType = 1
    /// `result` is the number of updated objects.
    case updatedObjectsCountResultType = 2
}

/// Sets attributes of every object a predicate matches, in the store, without loading the
/// objects.
///
/// ```swift
/// let update = NSBatchUpdateRequest(entityName: "Entry")
/// update.predicate = NSPredicate(format: "read == NO")
/// update.propertiesToUpdate = ["read": true, "title": NSExpression(forKeyPath: "draftTitle")]
/// update.resultType = .updatedObjectIDsResultType
/// let result = try context.execute(update) as? NSBatchUpdateResult
/// ```
/// Values are constants (converted to the attribute's type; a value of the wrong type is an
/// error 1550 naming the entity and the attribute) or expressions: a constant, the key path of
/// another attribute of the same object, or an expression over the object's own attributes,
/// computed per row (`NSExpression(format: "price * 1.1")`); key paths through relationships,
/// variables and collections are refused (134091). Each updated row's version (`Z_OPT`) goes
/// up, so contexts holding an object see an optimistic-locking conflict rather than overwrite
/// the update unknowingly.
///
/// Difference from Core Data: Core Data skips validation; OpenCoreData refuses to set a
/// non-optional attribute to nil (1570) and refuses relationships (only attributes can be
/// updated, as in Core Data, but with a clear error).
public final class NSBatchUpdateRequest: NSPersistentStoreRequest {
    /// The name of the entity to update.
    public let entityName: String
    /// The entity to update; found from `entityName` when nil.
    public var entity: NSEntityDescription?
    /// Which objects to update; nil for all.
    public var predicate: NSPredicate?
    /// Whether objects of sub-entities are updated too (default true).
    public var includesSubentities = true
    /// Attribute names (or `NSAttributeDescription`s) → new values or `NSExpression`s.
    public var propertiesToUpdate: [AnyHashable: Any]?
    /// What `result` holds.
    public var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType

    public override var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }

    /// An update of the entity named `entityName`.
    public init(entityName: String) {
        self.entityName = entityName
    }

    /// An update of `entity`.
    public init(entity: NSEntityDescription) {
        self.entityName = entity.name ?? ""
        self.entity = entity
    }

    /// A new request with the same entity, predicate, values, result type and stores.
    public override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSBatchUpdateRequest(entityName: entityName)
        copy.entity = entity
        copy.predicate = predicate
        copy.includesSubentities = includesSubentities
        copy.propertiesToUpdate = propertiesToUpdate
        copy.resultType = resultType
        copy.affectedStores = affectedStores
        return copy
    }
}

/// The result of a batch update.
public final class NSBatchUpdateResult: NSPersistentStoreResult {
    /// `true`, the updated IDs or their count, as the request's `resultType` asked.
    public let result: Any?
    /// The kind of `result`: the request's `resultType`.
    public let resultType: NSBatchUpdateRequestResultType

    init(resultType: NSBatchUpdateRequestResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
    }
}

