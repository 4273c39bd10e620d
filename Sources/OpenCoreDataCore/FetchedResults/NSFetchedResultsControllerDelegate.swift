import Foundation

/// What a fetched results controller tells its delegate when its results change, and asks of it.
///
/// Every method is optional, as on Apple's platforms: the protocol extension implements each
/// one, so a delegate implements only what it needs.
/// ```swift
/// final class ListModel: NSFetchedResultsControllerDelegate {
///     func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
///                     at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
///         switch type {
///         case .insert: print("insert at", newIndexPath!.row)
///         case .delete: print("delete at", indexPath!.row)
///         case .move: print("move", indexPath!.row, "→", newIndexPath!.row)
///         case .update: print("reload", indexPath!.row)
///         }
///     }
/// }
/// ```
/// A round of changes — one `processPendingChanges()` of the context, a save, or a merge of
/// another context's save — arrives as `controllerWillChangeContent(_:)`, the section changes,
/// the object changes (deletions, insertions, moves, updates), then `controllerDidChangeContent(_:)`.
/// Old index paths (`indexPath`, a deleted section's index) count the results before the
/// round; new ones (`newIndexPath`, an inserted section's index) after it — what a table view's
/// batch update expects.
///
/// A controller without a `sectionNameKeyPath` whose delegate implements
/// `controller(_:didChangeContentWith:)` hands it each round as one `CollectionDifference` of
/// object IDs, and calls none of the other change methods.
///
/// Differences from Core Data: `controller(_:didChangeContentWith:)` with a diffable data source
/// snapshot is not offered (it belongs to UIKit). The controller passed to these methods is a
/// view of the controller typed `NSFetchedResultsController<NSFetchRequestResult>`, as Apple's
/// signatures require; Swift's generics make it a different object from a controller of
/// another result type, so compare controllers by their `fetchRequest` or keep a flag rather
/// than with `===`.
public protocol NSFetchedResultsControllerDelegate: AnyObject {
    /// A round of changes begins.
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// An object was inserted, deleted, moved or updated.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)

    /// A section was inserted or deleted.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                    didChange sectionInfo: NSFetchedResultsSectionInfo, atSectionIndex sectionIndex: Int,
                    for type: NSFetchedResultsChangeType)

    /// A round of changes ended.
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// The section index title of a section; by default the controller's
    /// `sectionIndexTitle(forSectionName:)`.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                    sectionIndexTitleForSectionName sectionName: String) -> String?

    /// A round of changes as one difference of object IDs: removals at their offsets before the
    /// round, insertions at theirs after it. Only for a controller without a
    /// `sectionNameKeyPath`; a delegate that implements it hears of no change any other way.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                    didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
}

extension NSFetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                           at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {}

    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                           didChange sectionInfo: NSFetchedResultsSectionInfo, atSectionIndex sectionIndex: Int,
                           for type: NSFetchedResultsChangeType) {}

    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                           sectionIndexTitleForSectionName sectionName: String) -> String? {
        controller.sectionIndexTitle(forSectionName: sectionName)
    }

    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                           didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        // Not implemented by the delegate: the controller goes on with the other methods.
        controller.core.delegateDeclinedDifference = true
    }
}
