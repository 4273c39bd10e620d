import Foundation

extension NSFetchRequest {
    /// Fetches with the managed object context whose block the current thread is running
    /// (`perform`, `performAndWait`, or the async `perform`), the innermost when blocks nest.
    ///
    /// ```swift
    /// try await context.perform {
    ///     let people = try Person.fetchRequest().execute()
    /// }
    /// ```
    /// Difference from Core Data: called outside every context's block, it throws
    /// `NSCoreDataError` (134060) naming the request's entity, where Core Data raises an
    /// exception.
    public func execute() throws -> [ResultType] {
        guard let context = ContextsOnThisThread.currentContext else {
            throw CoreDataError.make(.coreData, "NSFetchRequest.execute() of entity \(entityName ?? entity?.name ?? "?") was called outside a block of a managed object context: call it inside perform or performAndWait")
        }
        return try context.fetch(self)
    }
}
