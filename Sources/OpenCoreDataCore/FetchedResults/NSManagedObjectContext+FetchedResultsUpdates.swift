import Foundation

extension NSManagedObjectContext {
    /// The results of `request` now and after every change of this context that changes them, as
    /// an asynchronous sequence: what `NSFetchedResultsController` tells its delegate, for code
    /// that is not a table view.
    ///
    /// ```swift
    /// let request = NSFetchRequest<Item>(entityName: "Item")
    /// request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
    /// let updates = try context.fetchedResultsUpdates(for: request)
    /// Task {
    ///     for await update in updates { render(update.objectIDs!) }
    /// }
    /// ```
    /// Call it on the context's queue; the request is fetched at once (its errors are thrown here)
    /// and the first update holds every object. Each later change event — `processPendingChanges()`,
    /// a save, a merge of another context's save — that changes the results yields one update,
    /// computed in O(k log n) for k changed objects among n (see `NSFetchedResultsController`);
    /// with `includingSnapshots` (the default) each update also lists every object ID, which
    /// costs O(n). Updates are buffered until read. The sequence ends when its iteration ends or
    /// the context goes away. A request without sort descriptors keeps the store's order, new
    /// objects going last.
    ///
    /// Not part of Core Data's API. Only managed object results are supported.
    public func fetchedResultsUpdates<T>(for request: NSFetchRequest<T>, includingSnapshots: Bool = true) throws
        -> AsyncStream<FetchedResultsUpdate> {
        checkQueue()
        let (objects, tracked) = try fetchForTracking(request, by: "fetchedResultsUpdates(for:)")
        let tracker = FetchedResultsTracker(context: self, sectionNameKeyPath: nil)
        try tracker.reset(to: objects, request: tracked)
        let (stream, continuation) = AsyncStream.makeStream(of: FetchedResultsUpdate.self)
        let feed = FetchedResultsStream(tracker: tracker, continuation: continuation, includesSnapshots: includingSnapshots)
        feed.yieldFirst()
        addChangeObserver(feed)
        // The stream keeps its feed (the context only observes it) until it ends: its iteration
        // ends, it is dropped, or the context goes away.
        continuation.onTermination = { _ in feed.cancel() }
        changeStreamEnds.add { continuation.finish() }
        return stream
    }
}
