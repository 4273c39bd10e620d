import Foundation
import CoreData

extension APISignatures {
    static func nsEntityDescription(_ check: inout Checks) {
        check("NSEntityDescription.init(coder:)") {
            let _: (NSCoder) -> NSEntityDescription? = NSEntityDescription.init(coder:)
            let _: any NSCoding.Type = NSEntityDescription.self
        }
        check("NSEntityDescription.encode(with:)") {
            let _: (NSEntityDescription) -> (NSCoder) -> Void = NSEntityDescription.encode(with:)
        }
        check("NSEntityDescription.copy(with:)") {
            let _: (NSEntityDescription) -> (NSZone?) -> Any = NSEntityDescription.copy(with:)
            let _: any NSCopying.Type = NSEntityDescription.self
        }
        check("NSEntityDescription") {
            let _: NSObject = NSEntityDescription()
        }
        check("NSEntityDescription.init()") {
            let _: NSEntityDescription = NSEntityDescription()
        }
        check("NSEntityDescription.entity(forEntityName:in:)") {
            let _: (String, NSManagedObjectContext) -> NSEntityDescription? = NSEntityDescription.entity(forEntityName:in:)
        }
        check("NSEntityDescription.insertNewObject(forEntityName:into:)") {
            let _: (String, NSManagedObjectContext) -> NSManagedObject = NSEntityDescription.insertNewObject(forEntityName:into:)
        }
        check("NSEntityDescription.managedObjectModel") {
            let _: KeyPath<NSEntityDescription, NSManagedObjectModel?> = \.managedObjectModel
        }
        check("NSEntityDescription.managedObjectClassName") {
            let _: ReferenceWritableKeyPath<NSEntityDescription, String?> = \.managedObjectClassName
            let _: (NSEntityDescription) -> String = { $0.managedObjectClassName }   // implicitly unwrapped, as Apple's
            let _: (NSEntityDescription) -> Void = { $0.managedObjectClassName = nil }
        }
        check("NSEntityDescription.name") {
            let _: ReferenceWritableKeyPath<NSEntityDescription, String?> = \.name
        }
        check("NSEntityDescription.isAbstract") {
            let _: ReferenceWritableKeyPath<NSEntityDescription, Bool> = \.isAbstract
        }
        check("NSEntityDescription.subentities") {
            let _: ReferenceWritableKeyPath<NSEntityDescription, [NSEntityDescription]> = \.subentities
        }
        check("NSEntityDescription.subentitiesByName") {
            let _: KeyPath<NSEntityDescription, [String: NSEntityDescription]> = \.subentitiesByName
        }
        check("NSEntityDescription.superentity") {
            let _: KeyPath<NSEntityDescription, NSEntityDescription?> = \.superentity
        }
        check("NSEntityDescription.propertiesByName") {
            let _: KeyPath<NSEntityDescription, [String: NSPropertyDescription]> = \.propertiesByName
        }
        check("NSEntityDescription.properties") {
            let _: ReferenceWritableKeyPath<NSEntityDescription, [NSPropertyDescription]> = \.properties
        }
        check("NSEntityDescription.userInfo") {
            let _: ReferenceWritableKeyPath<NSEntityDescription, [AnyHashable: Any]?> = \.userInfo
        }
        check("NSEntityDescription.attributesByName") {
            let _: KeyPath<NSEntityDescription, [String: NSAttributeDescription]> = \.attributesByName
        }
        check("NSEntityDescription.relationshipsByName") {
            let _: KeyPath<NSEntityDescription, [String: NSRelationshipDescription]> = \.relationshipsByName
        }
        check("NSEntityDescription.relationships(forDestination:)") {
            let _: (NSEntityDescription) -> (NSEntityDescription) -> [NSRelationshipDescription] = NSEntityDescription.relationships(forDestination:)
        }
        check("NSEntityDescription.isKindOf(entity:)") {
            let _: (NSEntityDescription) -> (NSEntityDescription) -> Bool = NSEntityDescription.isKindOf(entity:)
        }
        check("NSEntityDescription.versionHash") {
            let _: KeyPath<NSEntityDescription, Data> = \.versionHash
        }
        check("NSEntityDescription.versionHashModifier") {
            let _: ReferenceWritableKeyPath<NSEntityDescription, String?> = \.versionHashModifier
        }
        check("NSEntityDescription.renamingIdentifier") {
            let _: ReferenceWritableKeyPath<NSEntityDescription, String?> = \.renamingIdentifier
        }
        check("NSEntityDescription.indexes") {
            let _: ReferenceWritableKeyPath<NSEntityDescription, [NSFetchIndexDescription]> = \.indexes
        }
        check("NSEntityDescription.uniquenessConstraints") {
            let _: ReferenceWritableKeyPath<NSEntityDescription, [[Any]]> = \.uniquenessConstraints
        }
        check("NSEntityDescription.compoundIndexes") {
            let _: ReferenceWritableKeyPath<NSEntityDescription, [[Any]]> = \.compoundIndexes
        }
    }
}
