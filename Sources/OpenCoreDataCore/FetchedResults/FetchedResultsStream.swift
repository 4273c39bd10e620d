import Foundation
import Synchronization

/// What feeds a sequence of `FetchedResultsUpdate`s: a tracker of a fetch request's results that
/// follows its context's change events and yields each round that changed the results.
final class FetchedResultsStream: ContextChangeObserver, @unchecked Sendable {
    // @unchecked Sendable: `tracker` and `temporaryIDs` are touched only on the context's queue
    // (the first fetch and the rounds); `isCancelled` is atomic, set from any thread.
    private let tracker: FetchedResultsTracker
    private let continuation: AsyncStream<FetchedResultsUpdate>.Continuation
    private let includesSnapshots: Bool
    private let isCancelled = Atomic<Bool>(false)
    /// The temporary IDs the sequence handed out, by object, to be replaced once saved.
    private var temporaryIDs: [ObjectIdentifier: (object: NSManagedObject, id: NSManagedObjectID)] = [:]

    init(tracker: FetchedResultsTracker, continuation: AsyncStream<FetchedResultsUpdate>.Continuation, includesSnapshots: Bool) {
        self.tracker = tracker
        self.continuation = continuation
        self.includesSnapshots = includesSnapshots
    }

    var isActive: Bool { !isCancelled.load(ordering: .relaxed) }

    func cancel() {
        isCancelled.store(true, ordering: .relaxed)
    }

    /// Yields the results as they are: every object inserted.
    func yieldFirst() {
        let objects = tracker.objects ?? []
        let changes = objects.enumerated().map { offset, object in
            CollectionDifference<NSManagedObjectID>.Change.insert(offset: offset, element: noted(object), associatedWith: nil)
        }
        yield(CollectionDifference(changes)!)
    }

    func context(_ context: NSManagedObjectContext, didChange event: ContextChangeEvent) {
        guard isActive, let round = tracker.apply(inserted: event.inserted, updated: event.updated, deleted: event.deleted) else { return }
        for change in round.objectChanges where change.type == .insert || change.type == .move { _ = noted(change.object) }
        for change in round.objectChanges where change.type == .delete { temporaryIDs[ObjectIdentifier(change.object)] = nil }
        let difference = round.difference
        if !difference.isEmpty { yield(difference) }
    }

    func contextDidSave(_ context: NSManagedObjectContext) {
        guard isActive, !temporaryIDs.isEmpty else { return }
        var changes: [CollectionDifference<NSManagedObjectID>.Change] = []
        for (key, entry) in temporaryIDs where !entry.object.objectID.isTemporaryID {
            temporaryIDs[key] = nil
            guard let offset = tracker.indexPath(of: entry.object)?[1] else { continue }
            changes.append(.remove(offset: offset, element: entry.id, associatedWith: nil))
            changes.append(.insert(offset: offset, element: entry.object.objectID, associatedWith: nil))
        }
        if !changes.isEmpty { yield(CollectionDifference(changes)!) }
    }

    /// `object`'s ID, remembered when it is temporary.
    private func noted(_ object: NSManagedObject) -> NSManagedObjectID {
        let id = object.objectID
        if id.isTemporaryID { temporaryIDs[ObjectIdentifier(object)] = (object, id) }
        return id
    }

    private func yield(_ difference: CollectionDifference<NSManagedObjectID>) {
        let ids = includesSnapshots ? (tracker.objects ?? []).map(\.objectID) : nil
        continuation.yield(FetchedResultsUpdate(objectIDs: ids, difference: difference))
    }
}
