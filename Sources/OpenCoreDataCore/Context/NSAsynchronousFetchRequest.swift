import Foundation

/// A fetch that `execute(_:)` starts and returns from at once; its completion block receives the
/// objects later, on the context's queue.
///
/// ```swift
/// let request = NSAsynchronousFetchRequest(fetchRequest: Item.fetchRequest()) { result in
///     show(result.finalResult ?? [])           // on the context's queue
/// }
/// let running = try context.execute(request) as? NSPersistentStoreAsynchronousResult
/// running?.progress                            // cancel() stops it before it runs
/// ```
///
/// Differences from Apple's Core Data: the fetch runs as a block on the context's own queue
/// (`perform`), not on a background queue of the coordinator, so it sees the context's pending
/// changes and holds the queue while it runs; `completionBlock` keeps its result type
/// (`NSAsynchronousFetchResult<ResultType>`) where Apple's property is the untyped
/// `NSPersistentStoreAsynchronousFetchResultCompletionBlock`, which cannot be declared here
/// (`NSFetchRequestResult` is not an Objective-C protocol, so `any NSFetchRequestResult` does not
/// conform to it); `estimatedResultCount` sets the progress's total only.
public final class NSAsynchronousFetchRequest<ResultType: NSFetchRequestResult>: NSPersistentStoreRequest {
    /// The fetch this request runs.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// Called with the result once the fetch has run (or failed, or was cancelled), on the
    /// context's queue.
    public let completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// How many results are expected: the total unit count of the result's `progress`.
    public var estimatedResultCount = 0

    public init(fetchRequest request: NSFetchRequest<ResultType>,
                completionBlock blk: ((NSAsynchronousFetchResult<ResultType>) -> Void)? = nil) {
        fetchRequest = request
        completionBlock = blk
        super.init()
    }

    public override var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// A new request with a copy of the fetch request, the same completion block (shared: it is
    /// the same closure), estimated count and stores.
    public override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSAsynchronousFetchRequest(fetchRequest: fetchRequest.copy(as: ResultType.self), completionBlock: completionBlock)
        copy.estimatedResultCount = estimatedResultCount
        copy.affectedStores = affectedStores
        return copy
    }
}

/// The result of a request that runs after `execute(_:)` returns: its progress, its error, and
/// a way to cancel it before it runs.
open class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult {
    /// The context the request was executed in.
    public let managedObjectContext: NSManagedObjectContext
    /// Why the request failed, once it has run; a cancelled request's is `NSUserCancelledError`.
    public internal(set) var operationError: (any Error)?
    /// The request's progress: one unit per result (`estimatedResultCount`), complete once the
    /// completion block has been called. Cancelling it cancels the request.
    public let progress: Progress?

    init(context: NSManagedObjectContext, expectedCount: Int) {
        managedObjectContext = context
        progress = Progress(totalUnitCount: Int64(max(expectedCount, 1)))
        super.init()
    }

    /// Stops the request if it has not run yet; its completion block is then called with
    /// `operationError` set to `NSUserCancelledError`.
    open func cancel() { progress?.cancel() }
}

/// The result of an `NSAsynchronousFetchRequest`: `finalResult` once the fetch has run.
public final class NSAsynchronousFetchResult<ResultType: NSFetchRequestResult>: NSPersistentStoreAsynchronousResult {
    /// The request this is the result of.
    public let fetchRequest: NSAsynchronousFetchRequest<ResultType>
    /// The fetched results, once the fetch has run; nil before, or when it failed or was cancelled.
    public internal(set) var finalResult: [ResultType]?

    init(request: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext) {
        fetchRequest = request
        super.init(context: context, expectedCount: request.estimatedResultCount)
    }
}

/// What `execute(_:)` needs of an asynchronous fetch request, whatever its result type.
protocol AsynchronousFetchStarting {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreAsynchronousResult
}

extension NSAsynchronousFetchRequest: AsynchronousFetchStarting {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreAsynchronousResult {
        let result = NSAsynchronousFetchResult(request: self, context: context)
        context.perform {
            defer { self.complete(result) }
            guard !(result.progress?.isCancelled ?? false) else {
                result.operationError = CocoaError(.userCancelled)
                return
            }
            do {
                result.finalResult = try context.fetch(self.fetchRequest)
            } catch {
                result.operationError = error
            }
        }
        return result
    }

    private func complete(_ result: NSAsynchronousFetchResult<ResultType>) {
        if let progress = result.progress, !progress.isCancelled {
            progress.totalUnitCount = Int64(max(result.finalResult?.count ?? 0, 1))
            progress.completedUnitCount = progress.totalUnitCount
        }
        completionBlock?(result)
    }
}

