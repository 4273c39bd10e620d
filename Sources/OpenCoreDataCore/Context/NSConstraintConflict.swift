import Foundation

/// Objects that break a uniqueness constraint together: what a save reports under
/// `NSPersistentStoreSaveConflictsErrorKey` of its 133021 error. The object already in the
/// store with the same values is found by a fetch, not read from the database's message.
///
/// ```swift
/// for case let conflict as NSConstraintConflict in error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [Any] ?? [] {
///     print(conflict.constraint, conflict.conflictingObjects, conflict.databaseObject as Any)
/// }
/// ```
open class NSConstraintConflict: NSObject {
    /// The constraint's property names.
    open private(set) var constraint: [String]
    /// The values the conflicting objects share, by property name.
    open private(set) var constraintValues: [String: Any]
    /// The object already saved with those values; nil when the conflict is among new objects.
    open private(set) var databaseObject: NSManagedObject?
    /// `databaseObject`'s values in the store.
    open private(set) var databaseSnapshot: [String: Any]?
    /// The objects of the save that have the same values.
    open private(set) var conflictingObjects: [NSManagedObject]
    /// Their values, in the order of `conflictingObjects`.
    open private(set) var conflictingSnapshots: [[AnyHashable: Any]]

    public init(constraint contraint: [String], databaseObject: NSManagedObject?, databaseSnapshot: [String: Any]?,
                conflictingObjects: [NSManagedObject], conflictingSnapshots: [Any]) {
        constraint = contraint
        self.databaseObject = databaseObject
        self.databaseSnapshot = databaseSnapshot
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots.compactMap { snapshot in
            (snapshot as? [String: Any]).map { Dictionary(uniqueKeysWithValues: $0.map { (AnyHashable($0.key), $0.value) }) }
                ?? snapshot as? [AnyHashable: Any]
        }
        var values: [String: Any] = [:]
        if let first = conflictingObjects.first {
            for name in contraint { values[name] = first.value(forKey: name) ?? NSNull() }
        }
        constraintValues = values
    }
}

@available(*, unavailable)
extension NSConstraintConflict: Sendable {}
