import Foundation

/// How a merge policy settles what a save finds changed in the store since the context read it.
/// The raw values are Core Data's.
public enum NSMergePolicyType: UInt, Sendable {
    /// The save fails, listing every conflict (133020, or 133021 for uniqueness).
    case errorMergePolicyType = 0
    /// Property by property: where the store changed a property, the store's value wins; the
    /// context's changes to the other properties are kept.
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    /// Property by property: the context's changes win; the store's changes to the properties
    /// the context did not change are kept.
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    /// The context's whole object is written over the store's row.
    case overwriteMergePolicyType = 3
    /// The context's changes to the conflicting objects are discarded; the store's values stay.
    case rollbackMergePolicyType = 4
}

/// Settles the conflicts a save meets: rows changed or deleted in the store since the context
/// read them (`NSMergeConflict`) and uniqueness constraints the save would break
/// (`NSConstraintConflict`). A context saves with its `mergePolicy`; the default fails.
///
/// ```swift
/// context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
/// try context.save()   // a row another context changed meanwhile merges, property by property
/// ```
/// Subclass it to settle conflicts your own way: override `resolve(optimisticLockingConflicts:)`
/// or `resolve(constraintConflicts:)`, change the objects, and call `super`.
///
/// Differences from Apple: a uniqueness clash involving a saved object that
/// was changed into another's values (not a new one) is not settled (133021). A row deleted in
/// the store since the context read it is not brought back by any policy: the context's change
/// to it is dropped and the object is left as a fault of a row that is gone.
open class NSMergePolicy: NSObject {
    /// The kind of policy this is.
    open private(set) var mergeType: NSMergePolicyType

    /// A policy of `ty`.
    public init(merge ty: NSMergePolicyType) {
        mergeType = ty
    }

    /// The shared policy that fails on any conflict (`NSErrorMergePolicy`).
    public static var error: NSMergePolicy { NSMergePolicy.shared.error }
    /// The shared rollback policy (`NSRollbackMergePolicy`).
    public static var rollback: NSMergePolicy { NSMergePolicy.shared.rollback }
    /// The shared overwrite policy (`NSOverwriteMergePolicy`).
    public static var overwrite: NSMergePolicy { NSMergePolicy.shared.overwrite }
    /// The shared in-memory-wins policy (`NSMergeByPropertyObjectTrumpMergePolicy`).
    public static var mergeByPropertyObjectTrump: NSMergePolicy { NSMergePolicy.shared.objectTrump }
    /// The shared store-wins policy (`NSMergeByPropertyStoreTrumpMergePolicy`).
    public static var mergeByPropertyStoreTrump: NSMergePolicy { NSMergePolicy.shared.storeTrump }

    /// The five shared policies, made once. Immutable after creation.
    private struct Shared: @unchecked Sendable {
        // @unchecked Sendable: the policies are never mutated after creation (`mergeType` has
        // a private setter and is set once, in `init`).
        let error = NSMergePolicy(merge: .errorMergePolicyType)
        let rollback = NSMergePolicy(merge: .rollbackMergePolicyType)
        let overwrite = NSMergePolicy(merge: .overwriteMergePolicyType)
        let objectTrump = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        let storeTrump = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
    }

    private static let shared = Shared()

    /// Settles every conflict of a failed save: the optimistic-locking conflicts first, then
    /// the uniqueness ones, as Core Data does. Throws when they cannot be settled; the save then
    /// fails with that error.
    open func resolve(mergeConflicts list: [Any]) throws {
        let merge = list.compactMap { $0 as? NSMergeConflict }
        if !merge.isEmpty { try resolve(optimisticLockingConflicts: merge) }
        let constraint = list.compactMap { $0 as? NSConstraintConflict }
        if !constraint.isEmpty { try resolve(constraintConflicts: constraint) }
    }

    /// Settles rows changed or deleted in the store since the context read them, as `mergeType`
    /// says: afterwards each object is read at the row's new version, holding the values the
    /// policy chose, so that the save can go on.
    open func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        if mergeType == .errorMergePolicyType { throw Self.mergeError(for: list) }
        for conflict in list {
            guard let context = conflict.sourceObject.managedObjectContext else { continue }
            // What a policy settles is not an undoable change of the application's.
            try context.withoutRecordingUndo { try context.settle(conflict, by: mergeType) }
        }
    }

    /// Settles uniqueness conflicts by making one object of each clash: the saved object (or,
    /// among new objects only, the first of them) stays, and the new objects that share its
    /// values are deleted, their relationships moved onto it. Under object trump and overwrite
    /// their attributes are copied onto it first (the row takes the new values: an upsert);
    /// under store trump and rollback it keeps its own. The error policy, and a clash that
    /// involves an object already saved that was changed (not inserted), fail with 133021.
    open func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        guard mergeType != .errorMergePolicyType else { throw Self.constraintError(for: list) }
        let unsettled = list.filter { conflict in
            guard let context = conflict.conflictingObjects.first?.managedObjectContext else { return true }
            return !context.withoutRecordingUndo { context.settle(conflict, by: mergeType) }
        }
        if !unsettled.isEmpty { throw Self.constraintError(for: unsettled) }
    }

    /// 133020 listing `conflicts`, as the error policy fails.
    static func mergeError(for conflicts: [NSMergeConflict]) -> CocoaError {
        let described = conflicts.prefix(5).map { conflict in
            "\(conflict.sourceObject.objectID.uriRepresentation().absoluteString) "
                + (conflict.newVersionNumber == 0 ? "was deleted" : "was changed (version \(conflict.newVersionNumber))")
        }.joined(separator: "; ")
        let more = conflicts.count > 5 ? " and \(conflicts.count - 5) more" : ""
        let subject = conflicts.count == 1 ? "" : " (\(conflicts.count) objects)"
        return CoreDataError.make(.managedObjectMerge,
                                  "Could not merge changes\(subject): \(described)\(more) in the store since this context read it",
                                  ["conflictList": conflicts, NSAffectedObjectsErrorKey: conflicts.map(\.sourceObject.objectID),
                                   NSPersistentStoreSaveConflictsErrorKey: conflicts])
    }

    /// 133021 listing `conflicts`, as the error policy fails on uniqueness constraints.
    static func constraintError(for conflicts: [NSConstraintConflict]) -> CocoaError {
        let described = conflicts.prefix(5).map { conflict in
            let entity = (conflict.conflictingObjects.first?.entity.name ?? conflict.databaseObject?.entity.name) ?? "?"
            guard !conflict.constraint.isEmpty else { return "a unique index of the store refused a \(entity)" }
            let keys = conflict.constraint.joined(separator: ", ")
            let sharing = conflict.databaseObject != nil ? "a saved \(entity) already has"
                : "\(conflict.conflictingObjects.count) new or changed \(entity) objects share"
            return "\(sharing) the same \(keys)"
        }.joined(separator: "; ")
        let more = conflicts.count > 5 ? " and \(conflicts.count - 5) more" : ""
        return CoreDataError.make(.managedObjectConstraintMerge,
                                  "Uniqueness constraint violated\(conflicts.count == 1 ? "" : " (\(conflicts.count) conflicts)"): \(described)\(more)",
                                  [NSValidationKeyErrorKey: conflicts.first?.constraint.joined(separator: ", ") ?? "",
                                   "conflictList": conflicts,
                                   NSPersistentStoreSaveConflictsErrorKey: conflicts])
    }
}

@available(*, unavailable)
extension NSMergePolicy: Sendable {}

// Computed, as Core Data's `id` globals import into Swift: each is one of the shared policies.

/// The policy that fails a save on any conflict: every context's default `mergePolicy`.
public var NSErrorMergePolicy: Any { NSMergePolicy.error }
/// Property by property, the store's changes win over the context's.
public var NSMergeByPropertyStoreTrumpMergePolicy: Any { NSMergePolicy.mergeByPropertyStoreTrump }
/// Property by property, the context's changes win over the store's.
public var NSMergeByPropertyObjectTrumpMergePolicy: Any { NSMergePolicy.mergeByPropertyObjectTrump }
/// The context's objects are written over the store's rows, whole.
public var NSOverwriteMergePolicy: Any { NSMergePolicy.overwrite }
/// The context's changes to conflicting objects are discarded.
public var NSRollbackMergePolicy: Any { NSMergePolicy.rollback }
