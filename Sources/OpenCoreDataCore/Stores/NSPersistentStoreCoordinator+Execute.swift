import Foundation

extension NSPersistentStoreCoordinator {
    /// Runs `request` in this coordinator's stores on behalf of `context`, whose objects the
    /// results are.
    ///
    /// ```swift
    /// let items = try coordinator.execute(NSFetchRequest<NSManagedObject>(entityName: "Item"), with: context)
    ///     as! [NSManagedObject]
    /// ```
    /// A fetch request answers an array of what its `resultType` asks for (managed objects
    /// registered in `context`, object IDs, dictionaries or a count in an array) from the
    /// stores alone: `context`'s unsaved changes are not looked at (`includesPendingChanges`
    /// is taken as false). A batch, history or asynchronous fetch request answers what
    /// `context.execute(_:)` answers. Call it on `context`'s queue, as Core Data requires.
    ///
    /// Differences from Core Data: an `NSSaveChangesRequest` is refused (134091): a save goes
    /// through `NSManagedObjectContext.save()`, which validates, orders and records it. A
    /// `context` of another coordinator is refused with 134020, where Core Data raises.
    public func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext) throws -> Any {
        guard context.persistentStoreCoordinator === self else {
            throw CoreDataError.make(.persistentStoreIncompatibleSchema,
                                     "The context of execute(_:with:) does not use this coordinator: its objects could not hold the results")
        }
        switch request {
        case let fetch as any AnyFetchRequest:
            let storeOnly = fetch.copyForStore()
            storeOnly.includesPendingChanges = false
            return try context.fetch(storeOnly)
        case is NSSaveChangesRequest:
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "An NSSaveChangesRequest is not executed through the coordinator: save the context (NSManagedObjectContext.save())")
        default:
            return try context.execute(request)
        }
    }
}
