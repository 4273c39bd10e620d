import Foundation
import CoreData

extension APISignatures {
    static func nsMergePolicy(_ check: inout Checks) {
        check("NSErrorMergePolicy") { let _: Any = NSErrorMergePolicy }
        check("NSMergeByPropertyStoreTrumpMergePolicy") { let _: Any = NSMergeByPropertyStoreTrumpMergePolicy }
        check("NSMergeByPropertyObjectTrumpMergePolicy") { let _: Any = NSMergeByPropertyObjectTrumpMergePolicy }
        check("NSOverwriteMergePolicy") { let _: Any = NSOverwriteMergePolicy }
        check("NSRollbackMergePolicy") { let _: Any = NSRollbackMergePolicy }
        check("NSMergePolicyType") {
            let type: NSMergePolicyType = .errorMergePolicyType
            let _: UInt = type.rawValue
            let _: NSMergePolicyType? = NSMergePolicyType(rawValue: 2)
        }
        check("NSMergePolicyType.errorMergePolicyType") {
            let _: NSMergePolicyType = .errorMergePolicyType
        }
        check("NSMergePolicyType.mergeByPropertyStoreTrumpMergePolicyType") {
            let _: NSMergePolicyType = .mergeByPropertyStoreTrumpMergePolicyType
        }
        check("NSMergePolicyType.mergeByPropertyObjectTrumpMergePolicyType") {
            let _: NSMergePolicyType = .mergeByPropertyObjectTrumpMergePolicyType
        }
        check("NSMergePolicyType.overwriteMergePolicyType") {
            let _: NSMergePolicyType = .overwriteMergePolicyType
        }
        check("NSMergePolicyType.rollbackMergePolicyType") {
            let _: NSMergePolicyType = .rollbackMergePolicyType
        }
        check("NSMergeConflict") {
            let _: (NSMergeConflict) -> NSObject = { $0 }
        }
        check("NSMergeConflict.sourceObject") {
            let _: KeyPath<NSMergeConflict, NSManagedObject> = \.sourceObject
        }
        check("NSMergeConflict.objectSnapshot") {
            let _: KeyPath<NSMergeConflict, [String: Any]?> = \.objectSnapshot
        }
        check("NSMergeConflict.cachedSnapshot") {
            let _: KeyPath<NSMergeConflict, [String: Any]?> = \.cachedSnapshot
        }
        check("NSMergeConflict.persistedSnapshot") {
            let _: KeyPath<NSMergeConflict, [String: Any]?> = \.persistedSnapshot
        }
        check("NSMergeConflict.newVersionNumber") {
            let _: KeyPath<NSMergeConflict, Int> = \.newVersionNumber
        }
        check("NSMergeConflict.oldVersionNumber") {
            let _: KeyPath<NSMergeConflict, Int> = \.oldVersionNumber
        }
        check("NSMergeConflict.init(source:newVersion:oldVersion:cachedSnapshot:persistedSnapshot:)") {
            let object = NSManagedObject(entity: NSEntityDescription(), insertInto: nil)
            let _: NSMergeConflict = NSMergeConflict(source: object, newVersion: 2, oldVersion: 1, cachedSnapshot: nil, persistedSnapshot: ["a": 1])
        }
        check("NSConstraintConflict") {
            let _: (NSConstraintConflict) -> NSObject = { $0 }
        }
        check("NSConstraintConflict.constraint") {
            let _: KeyPath<NSConstraintConflict, [String]> = \.constraint
        }
        check("NSConstraintConflict.constraintValues") {
            let _: KeyPath<NSConstraintConflict, [String: Any]> = \.constraintValues
        }
        check("NSConstraintConflict.databaseObject") {
            let _: KeyPath<NSConstraintConflict, NSManagedObject?> = \.databaseObject
        }
        check("NSConstraintConflict.databaseSnapshot") {
            let _: KeyPath<NSConstraintConflict, [String: Any]?> = \.databaseSnapshot
        }
        check("NSConstraintConflict.conflictingObjects") {
            let _: KeyPath<NSConstraintConflict, [NSManagedObject]> = \.conflictingObjects
        }
        check("NSConstraintConflict.conflictingSnapshots") {
            let _: KeyPath<NSConstraintConflict, [[AnyHashable: Any]]> = \.conflictingSnapshots
        }
        check("NSConstraintConflict.init(constraint:database:databaseSnapshot:conflicting:conflictingSnapshots:)") {
            let snapshot: [String: Any]? = nil
            let _: NSConstraintConflict = NSConstraintConflict(constraint: ["name"], databaseObject: nil, databaseSnapshot: snapshot,
                                                               conflictingObjects: [], conflictingSnapshots: [])
        }
        check("NSMergePolicy") {
            let _: NSObject = NSMergePolicy(merge: .errorMergePolicyType)
        }
        check("NSMergePolicy.error") { let _: NSMergePolicy = NSMergePolicy.error }
        check("NSMergePolicy.rollback") { let _: NSMergePolicy = NSMergePolicy.rollback }
        check("NSMergePolicy.overwrite") { let _: NSMergePolicy = NSMergePolicy.overwrite }
        check("NSMergePolicy.mergeByPropertyObjectTrump") { let _: NSMergePolicy = NSMergePolicy.mergeByPropertyObjectTrump }
        check("NSMergePolicy.mergeByPropertyStoreTrump") { let _: NSMergePolicy = NSMergePolicy.mergeByPropertyStoreTrump }
        check("NSMergePolicy.mergeType") {
            let _: KeyPath<NSMergePolicy, NSMergePolicyType> = \.mergeType
        }
        check("NSMergePolicy.init(merge:)") {
            let _: NSMergePolicy = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        }
        check("NSMergePolicy.resolve(mergeConflicts:)") {
            let _: (NSMergePolicy) -> ([Any]) throws -> Void = NSMergePolicy.resolve(mergeConflicts:)
        }
        check("NSMergePolicy.resolve(optimisticLockingConflicts:)") {
            let _: (NSMergePolicy) -> ([NSMergeConflict]) throws -> Void = NSMergePolicy.resolve(optimisticLockingConflicts:)
        }
        check("NSMergePolicy.resolve(constraintConflicts:)") {
            let _: (NSMergePolicy) -> ([NSConstraintConflict]) throws -> Void = NSMergePolicy.resolve(constraintConflicts:)
        }
    }
}
