/// What happened to an object or a section of a fetched results controller, as its delegate
/// hears it. The raw values are Core Data's.
public enum NSFetchedResultsChangeType: UInt, Sendable {
    /// The object or section is new: `newIndexPath` (or the section index) is where it now is.
    case insert = 1
    /// The object or section is gone: `indexPath` (or the section index) is where it was.
    case delete = 2
    /// The object changed and moved: from `indexPath`, before the change, to `newIndexPath`, after it.
    case move = 3
    /// The object changed and kept its place among the others: `indexPath` is where it was,
    /// `newIndexPath` where it is once the round's insertions and deletions are counted.
    case update = 4
}
