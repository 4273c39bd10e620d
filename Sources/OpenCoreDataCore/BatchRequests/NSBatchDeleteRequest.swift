import Foundation

/// What a batch delete returns. Raw values as Core Data's.
public enum NSBatchDeleteRequestResultType: UInt, Sendable {
    /// `result` is `true` when the delete succeeded.
    case resultTypeStatusOnly = 0
    /// `result` is the IDs of the deleted objects (`[NSManagedObjectID]`).
    case resultTypeObjectIDs = 1
    /// `result` is the number of deleted objects.
    case resultTypeCount = 2
}

/// Deletes every object a fetch request matches, in the store, without loading the objects.
///
/// ```swift
/// let old = NSFetchRequest<NSFetchRequestResult>(entityName: "Entry")
/// old.predicate = NSPredicate(format: "time < %@", cutoff as NSDate)
/// let delete = NSBatchDeleteRequest(fetchRequest: old)
/// delete.resultType = .resultTypeObjectIDs
/// try context.executeAndMergeChanges(delete)      // and the context forgets the deleted objects
/// ```
/// Delete rules are applied in the store as a context would apply them: cascade deletes the
/// related objects too (recursively), nullify clears the inverse in the objects that remain,
/// no action leaves them, and deny refuses the whole request (1600, naming the entity and the
/// relationship) when a matched object still has related objects. Nothing is written when the
/// request fails. The result's IDs include the objects deleted by cascade.
///
/// As in Core Data, contexts are not told: objects they hold stay as they were until refreshed.
/// Use `executeAndMergeChanges(_:into:)` (an OpenCoreData extension) or
/// `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)` to bring them up to date.
public final class NSBatchDeleteRequest: NSPersistentStoreRequest {
    /// Which objects to delete (its entity, predicate and `includesSubentities`; sort order and
    /// limits are applied too).
    public let fetchRequest: NSFetchRequest<NSFetchRequestResult>
    /// The IDs to delete, when the request was made from IDs.
    let objectIDs: [NSManagedObjectID]?
    /// What `result` holds.
    public var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly

    public override var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }

    /// Deletes the objects `fetchRequest` matches.
    public init(fetchRequest: NSFetchRequest<NSFetchRequestResult>) {
        self.fetchRequest = fetchRequest
        self.objectIDs = nil
    }

    /// Deletes the objects with these IDs (all of one entity tree, as in Core Data).
    public init(objectIDs: [NSManagedObjectID]) {
        let request = NSFetchRequest<NSFetchRequestResult>()
        if let entity = objectIDs.first?.entity {
            request.entity = entity
            request.entityName = entity.name
        }
        self.fetchRequest = request
        self.objectIDs = objectIDs
    }

    /// A new request deleting the same objects, with the same result type and stores.
    public override func copy(with zone: NSZone? = nil) -> Any {
        let copy = objectIDs.map { NSBatchDeleteRequest(objectIDs: $0) }
            ?? NSBatchDeleteRequest(fetchRequest: fetchRequest.copy(as: NSFetchRequestResult.self))
        copy.resultType = resultType
        copy.affectedStores = affectedStores
        return copy
    }
}

/// The result of a batch delete.
public final class NSBatchDeleteResult: NSPersistentStoreResult {
    /// `true`, the deleted IDs or their count, as the request's `resultType` asked.
    public let result: Any?
    /// The kind of `result`: the request's `resultType`.
    public let resultType: NSBatchDeleteRequestResultType

    init(resultType: NSBatchDeleteRequestResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
    }
}

