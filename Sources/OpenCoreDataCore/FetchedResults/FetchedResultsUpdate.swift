/// One state of a fetch request's results, as `NSManagedObjectContext.fetchedResultsUpdates(for:)`
/// delivers it: how the results differ from the previous state, and, when asked for, the whole
/// results.
///
/// ```swift
/// var ids: [NSManagedObjectID] = []
/// for await update in try context.fetchedResultsUpdates(for: request, includingSnapshots: false) {
///     ids = ids.applying(update.difference)!
/// }
/// ```
/// Object IDs, not objects, so that updates can be read on any task. Not part of Core Data's API.
public struct FetchedResultsUpdate: Sendable {
    /// The results' object IDs in order; nil when the sequence was asked for differences only.
    public let objectIDs: [NSManagedObjectID]?
    /// How the results differ from the previous update's (the first update inserts every object).
    /// An object that changed but kept its place is not in it; a new object's ID that became
    /// permanent with a save is removed and inserted at the same offset.
    public let difference: CollectionDifference<NSManagedObjectID>

    public init(objectIDs: [NSManagedObjectID]?, difference: CollectionDifference<NSManagedObjectID>) {
        self.objectIDs = objectIDs
        self.difference = difference
    }
}
