import Foundation
import CoreData

extension APISignatures {
    static func nsEntityMigrationPolicy(_ check: inout Checks) {
        check("NSMigrationManagerKey") { let _: String = NSMigrationManagerKey }
        check("NSMigrationSourceObjectKey") { let _: String = NSMigrationSourceObjectKey }
        check("NSMigrationDestinationObjectKey") { let _: String = NSMigrationDestinationObjectKey }
        check("NSMigrationEntityMappingKey") { let _: String = NSMigrationEntityMappingKey }
        check("NSMigrationPropertyMappingKey") { let _: String = NSMigrationPropertyMappingKey }
        check("NSMigrationEntityPolicyKey") { let _: String = NSMigrationEntityPolicyKey }
        check("NSEntityMigrationPolicy") {
            // An `NSObject` subclass, as Apple's; subclasses override its steps.
            final class SplitPolicy: NSEntityMigrationPolicy {
                override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping,
                                                         manager: NSMigrationManager) throws {
                    try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
                }
                override func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}
            }
            let _: NSObject = SplitPolicy()
        }
        check("NSEntityMigrationPolicy.init()") {
            let _: NSEntityMigrationPolicy = NSEntityMigrationPolicy()
        }
        check("NSEntityMigrationPolicy.begin(_:with:)") {
            let _: (NSEntityMigrationPolicy) -> (NSEntityMapping, NSMigrationManager) throws -> Void = NSEntityMigrationPolicy.begin(_:with:)
        }
        check("NSEntityMigrationPolicy.createDestinationInstances(forSource:in:manager:)") {
            let _: (NSEntityMigrationPolicy) -> (NSManagedObject, NSEntityMapping, NSMigrationManager) throws -> Void
                = NSEntityMigrationPolicy.createDestinationInstances(forSource:in:manager:)
        }
        check("NSEntityMigrationPolicy.endInstanceCreation(forMapping:manager:)") {
            let _: (NSEntityMigrationPolicy) -> (NSEntityMapping, NSMigrationManager) throws -> Void
                = NSEntityMigrationPolicy.endInstanceCreation(forMapping:manager:)
        }
        check("NSEntityMigrationPolicy.createRelationships(forDestination:in:manager:)") {
            let _: (NSEntityMigrationPolicy) -> (NSManagedObject, NSEntityMapping, NSMigrationManager) throws -> Void
                = NSEntityMigrationPolicy.createRelationships(forDestination:in:manager:)
        }
        check("NSEntityMigrationPolicy.endRelationshipCreation(forMapping:manager:)") {
            let _: (NSEntityMigrationPolicy) -> (NSEntityMapping, NSMigrationManager) throws -> Void
                = NSEntityMigrationPolicy.endRelationshipCreation(forMapping:manager:)
        }
        check("NSEntityMigrationPolicy.performCustomValidation(forMapping:manager:)") {
            let _: (NSEntityMigrationPolicy) -> (NSEntityMapping, NSMigrationManager) throws -> Void
                = NSEntityMigrationPolicy.performCustomValidation(forMapping:manager:)
        }
        check("NSEntityMigrationPolicy.end(_:manager:)") {
            let _: (NSEntityMigrationPolicy) -> (NSEntityMapping, NSMigrationManager) throws -> Void = NSEntityMigrationPolicy.end(_:manager:)
        }
    }
}
