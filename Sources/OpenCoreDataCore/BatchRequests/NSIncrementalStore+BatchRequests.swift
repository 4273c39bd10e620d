import Foundation

/// Batch requests on an entity that a store of your own holds are passed to that store's
/// `execute(_:with:)`, as Core Data passes them, with no context (`nil`): the store runs the
/// request itself, or throws (134091, say) when it does not support it.
///
/// ```swift
/// override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
///     if let delete = request as? NSBatchDeleteRequest {
///         return try deleteRows(matching: delete.fetchRequest)   // the deleted objects' IDs
///     }
///     …
/// }
/// ```
/// The store answers with the IDs of the objects it inserted, updated or deleted (an array of
/// `NSManagedObjectID`s), or with their number, or with nothing (an empty array); the caller
/// gets the request's result of its `resultType` made from that, and
/// `executeAndMergeChanges(_:into:)` merges the IDs. An answer that cannot make the result asked
/// for is an error naming the store type. Core Data leaves what a store answers here
/// undocumented; OpenCoreData's rule is this one.
extension NSIncrementalStore {
    /// What the store answered to `request`, as the objects it affected: their IDs, when it gave
    /// them, and their number, when it gave that.
    func answerBatch(_ request: NSPersistentStoreRequest) throws -> (ids: [NSManagedObjectID]?, count: Int?) {
        let answer = try lock.withLock { try execute(request, with: nil) }
        switch answer {
        case let ids as [NSManagedObjectID]: return (ids, ids.count)
        case let array as [Any] where array.isEmpty: return (nil, nil)
        case let number as Int: return (nil, number)
        case let number as NSNumber: return (nil, number.intValue)
        default:
            throw CoreDataError.make(.persistentStoreOperation,
                                     "The store of type '\(type)' returned \(Swift.type(of: answer)) from execute(_:with:) for a \(Swift.type(of: request)); expected the affected objects' IDs, their number, or an empty array")
        }
    }
}

extension NSPersistentStoreCoordinator {
    /// The result of a batch request on `entity` when a store of your own holds it: the store is
    /// asked; nil when no such store holds the entity. A request that would span such a store
    /// and others is refused (134091), since their answers could not be told apart.
    func incrementalBatchResult(_ request: NSPersistentStoreRequest, entity: NSEntityDescription?) throws
        -> (result: NSPersistentStoreResult, outcome: BatchOutcome)? {
        guard let entity else { return nil }
        let stores = (request.affectedStores ?? persistentStores).filter { $0.holds(entity) }
        guard let store = stores.first(where: { $0 is NSIncrementalStore }) as? NSIncrementalStore else { return nil }
        guard stores.count == 1 else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "The batch request on \(entity.name ?? "?") spans the store of type '\(store.type)' and other stores: run it on each, with affectedStores")
        }
        let (ids, count) = try store.answerBatch(request)
        var outcome = BatchOutcome()
        switch request {
        case is NSBatchDeleteRequest: outcome.deleted = ids ?? []
        case is NSBatchUpdateRequest: outcome.updated = ids ?? []
        case is NSBatchInsertRequest: outcome.inserted = ids ?? []
        default: return nil
        }
        return (try batchResult(of: request, ids: ids, count: count, answeredBy: store), outcome)
    }
}
