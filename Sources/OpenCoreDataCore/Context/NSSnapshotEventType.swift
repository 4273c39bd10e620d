import Foundation

/// What reset an object's state wholesale, told to `NSManagedObject.awake(fromSnapshotEvents:)`:
/// an undo, a rollback, a refresh or a merge policy gave it values the application did not set
/// one by one, so that values derived from them (transient caches) must be computed again.
///
/// ```swift
/// final class Invoice: NSManagedObject {
///     var cachedTotal: Decimal?
///     override func awake(fromSnapshotEvents flags: NSSnapshotEventType) {
///         super.awake(fromSnapshotEvents: flags)
///         if flags.contains(.undoUpdate) || flags.contains(.rollback) { cachedTotal = nil }
///     }
/// }
/// ```
///
/// The raw values are Core Data's (`NSSnapshotEventType` in `NSManagedObject.h`).
public struct NSSnapshotEventType: OptionSet, Sendable {
    public let rawValue: UInt

    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// An undo took back the object's insertion: it left its context (or, saved since, is
    /// deleted).
    public static let undoInsertion = NSSnapshotEventType(rawValue: 1 << 1)
    /// An undo took back the object's deletion: it is in its context again.
    public static let undoDeletion = NSSnapshotEventType(rawValue: 1 << 2)
    /// An undo set values of the object back.
    public static let undoUpdate = NSSnapshotEventType(rawValue: 1 << 3)
    /// `rollback()` returned the object to its last saved values.
    public static let rollback = NSSnapshotEventType(rawValue: 1 << 4)
    /// `refresh(_:mergeChanges: true)` (or a merge of another context's save) read the object's
    /// saved values again, its unsaved changes put back on top.
    public static let refresh = NSSnapshotEventType(rawValue: 1 << 5)
    /// A merge policy settling a conflict of a save chose the object's values.
    public static let mergePolicy = NSSnapshotEventType(rawValue: 1 << 6)
}
