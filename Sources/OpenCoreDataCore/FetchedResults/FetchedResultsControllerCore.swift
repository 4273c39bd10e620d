import Foundation

/// What a fetched results controller and its view typed for the delegate
/// (`NSFetchedResultsController<NSFetchRequestResult>`) share: the results, the delegate, and
/// the rounds of changes delivered to it.
final class FetchedResultsControllerCore: ContextChangeObserver {
    let tracker: FetchedResultsTracker
    let context: NSManagedObjectContext
    /// Runs the controller's fetch request: its objects in order, and what the tracker needs of it.
    private let fetch: () throws -> ([NSManagedObject], FetchedResultsTracker.Request)
    weak var delegate: NSFetchedResultsControllerDelegate? {
        didSet { delegateTakesDifference = nil }
    }
    /// The controller handed to the delegate; weak, as that controller holds this core.
    weak var delegateView: NSFetchedResultsController<NSFetchRequestResult>?
    /// Whether the delegate implements `controller(_:didChangeContentWith:)`; nil until a
    /// round has asked it.
    private var delegateTakesDifference: Bool?
    /// Set by the protocol's own `controller(_:didChangeContentWith:)`, which a delegate that
    /// does not implement the method runs.
    var delegateDeclinedDifference = false
    private var isDelivering = false
    private var waitingEvents: [ContextChangeEvent] = []
    private var isObserving = false
    /// The controller's `sectionIndexTitle(forSectionName:)`, which a subclass may override.
    var ownerIndexTitle: (String) -> String? = TrackedSection.capitalizedFirstLetter

    init(tracker: FetchedResultsTracker, context: NSManagedObjectContext,
         fetch: @escaping () throws -> ([NSManagedObject], FetchedResultsTracker.Request)) {
        self.tracker = tracker
        self.context = context
        self.fetch = fetch
    }

    func performFetch() throws {
        context.checkQueue()
        let (objects, request) = try fetch()
        try tracker.reset(to: objects, request: request)
        if !isObserving {
            context.addChangeObserver(self)
            isObserving = true
        }
    }

    // MARK: Rounds

    func context(_ context: NSManagedObjectContext, didChange event: ContextChangeEvent) {
        // As in Core Data, a controller without a delegate does not track changes.
        guard delegate != nil else { return }
        // A delegate that changes the context while it hears of a round hears of that change next.
        guard !isDelivering else {
            waitingEvents.append(event)
            return
        }
        isDelivering = true
        defer { isDelivering = false }
        var next: ContextChangeEvent? = event
        while let event = next {
            deliver(event)
            next = waitingEvents.isEmpty ? nil : waitingEvents.removeFirst()
        }
    }

    private func deliver(_ event: ContextChangeEvent) {
        guard let round = tracker.apply(inserted: event.inserted, updated: event.updated, deleted: event.deleted),
              let delegate, let controller = delegateView else { return }
        if tracker.sectionNameKeyPath == nil && delegateTakesDifference != false {
            delegateDeclinedDifference = false
            delegate.controller(controller, didChangeContentWith: round.difference)
            delegateTakesDifference = !delegateDeclinedDifference
            if delegateTakesDifference == true { return }
        }
        delegate.controllerWillChangeContent(controller)
        for change in round.sectionChanges {
            delegate.controller(controller, didChange: change.section, atSectionIndex: change.index, for: change.type)
        }
        for change in round.objectChanges {
            delegate.controller(controller, didChange: change.object, at: change.indexPath, for: change.type,
                                newIndexPath: change.newIndexPath)
        }
        delegate.controllerDidChangeContent(controller)
    }
}
