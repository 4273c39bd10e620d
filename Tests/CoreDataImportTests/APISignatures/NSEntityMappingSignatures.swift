import Foundation
import CoreData

extension APISignatures {
    static func nsEntityMapping(_ check: inout Checks) {
        check("NSEntityMappingType") {
            let type: NSEntityMappingType = .copyEntityMappingType
            let _: UInt = type.rawValue
            let _: NSEntityMappingType? = NSEntityMappingType(rawValue: 5)
        }
        check("NSEntityMappingType.undefinedEntityMappingType") {
            let _: NSEntityMappingType = .undefinedEntityMappingType
        }
        check("NSEntityMappingType.customEntityMappingType") {
            let _: NSEntityMappingType = .customEntityMappingType
        }
        check("NSEntityMappingType.addEntityMappingType") {
            let _: NSEntityMappingType = .addEntityMappingType
        }
        check("NSEntityMappingType.removeEntityMappingType") {
            let _: NSEntityMappingType = .removeEntityMappingType
        }
        check("NSEntityMappingType.copyEntityMappingType") {
            let _: NSEntityMappingType = .copyEntityMappingType
        }
        check("NSEntityMappingType.transformEntityMappingType") {
            let _: NSEntityMappingType = .transformEntityMappingType
        }
        check("NSEntityMapping") {
            let _: NSObject = NSEntityMapping()
        }
        check("NSEntityMapping.init()") {
            let _: NSEntityMapping = NSEntityMapping()
        }
        check("NSEntityMapping.name") {
            let _: ReferenceWritableKeyPath<NSEntityMapping, String?> = \.name
            let _: (NSEntityMapping) -> String = { $0.name }   // implicitly unwrapped, as Apple's
        }
        check("NSEntityMapping.mappingType") {
            let _: ReferenceWritableKeyPath<NSEntityMapping, NSEntityMappingType> = \.mappingType
        }
        check("NSEntityMapping.sourceEntityName") {
            let _: ReferenceWritableKeyPath<NSEntityMapping, String?> = \.sourceEntityName
        }
        check("NSEntityMapping.sourceEntityVersionHash") {
            let _: ReferenceWritableKeyPath<NSEntityMapping, Data?> = \.sourceEntityVersionHash
        }
        check("NSEntityMapping.destinationEntityName") {
            let _: ReferenceWritableKeyPath<NSEntityMapping, String?> = \.destinationEntityName
        }
        check("NSEntityMapping.destinationEntityVersionHash") {
            let _: ReferenceWritableKeyPath<NSEntityMapping, Data?> = \.destinationEntityVersionHash
        }
        check("NSEntityMapping.attributeMappings") {
            let _: ReferenceWritableKeyPath<NSEntityMapping, [NSPropertyMapping]?> = \.attributeMappings
        }
        check("NSEntityMapping.relationshipMappings") {
            let _: ReferenceWritableKeyPath<NSEntityMapping, [NSPropertyMapping]?> = \.relationshipMappings
        }
        check("NSEntityMapping.sourceExpression") {
            let _: ReferenceWritableKeyPath<NSEntityMapping, NSExpression?> = \.sourceExpression
        }
        check("NSEntityMapping.userInfo") {
            let _: ReferenceWritableKeyPath<NSEntityMapping, [AnyHashable: Any]?> = \.userInfo
        }
        check("NSEntityMapping.entityMigrationPolicyClassName") {
            let _: ReferenceWritableKeyPath<NSEntityMapping, String?> = \.entityMigrationPolicyClassName
        }
    }
}
