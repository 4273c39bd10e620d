import Foundation

extension NSPersistentStoreCoordinator {
    /// Runs `request` in this coordinator's stores on behalf of `context`, whose objects the
    /// results are.
    ///
    /// ```swift
    /// let items = try coordinator.execute(NSFetchRequest<NSManagedObject>(entityName: "Item"), with: context)
    ///     as! [NSManagedObject]
    /// ```
    /// - A fetch request answers an array of what its `resultType` asks for (managed objects
    ///   registered in `context`, object IDs, dictionaries, or a count in an array) from the
    ///   stores alone: `context`'s unsaved changes are not looked at (`includesPendingChanges`
    ///   is taken as false).
    /// - A batch request (`NSBatchInsertRequest`, `NSBatchUpdateRequest`,
    ///   `NSBatchDeleteRequest`), an `NSPersistentHistoryChangeRequest`, an
    ///   `NSPersistentCloudKitContainerEventRequest` or an `NSAsynchronousFetchRequest` answers
    ///   what `context.execute(_:)` answers (an asynchronous fetch, run by the context, sees its
    ///   unsaved changes).
    /// - Any other request — one of your own — goes to each store (`affectedStores`, or every
    ///   store) and answers an array of each store's answer, as Core Data's documentation says.
    ///   Only `NSIncrementalStore`s of your own take such requests; a built-in store refuses them
    ///   (134091).
    ///
    /// Call it on `context`'s queue, as Core Data requires. Differences from Core Data: an
    /// `NSSaveChangesRequest` is refused (134091): a save goes through
    /// `NSManagedObjectContext.save()`, which validates, orders and records it. A `context` of
    /// another coordinator, or a child context (whose fetches go through its parent), is refused
    /// with 134070 where Core Data raises or reads the stores.
    public func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext) throws -> Any {
        guard context.parent == nil, context.persistentStoreCoordinator === self else {
            throw CoreDataError.make(.persistentStoreOperation, context.parent == nil
                ? "The context of execute(_:with:) does not use this coordinator: its objects could not hold the results"
                : "execute(_:with:) takes a context of the coordinator itself, not a child context: a child's fetches go through its parent")
        }
        switch request {
        case let fetch as any AnyFetchRequest:
            let storeOnly = fetch.copyForStore()
            storeOnly.includesPendingChanges = false
            return try context.fetch(storeOnly)
        case is NSSaveChangesRequest:
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "An NSSaveChangesRequest is not executed through the coordinator: save the context (NSManagedObjectContext.save())")
        case is NSBatchInsertRequest, is NSBatchUpdateRequest, is NSBatchDeleteRequest, is NSPersistentHistoryChangeRequest,
             is NSPersistentCloudKitContainerEventRequest, is any AsynchronousFetchStarting:
            return try context.execute(request)
        default:
            return try (request.affectedStores ?? persistentStores).map { store -> Any in
                guard let incremental = store as? NSIncrementalStore else {
                    throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                             "The store \(store.identifier) of type '\(store.type)' does not take requests of type \(type(of: request))")
                }
                return try incremental.execute(request, with: context)
            }
        }
    }
}
