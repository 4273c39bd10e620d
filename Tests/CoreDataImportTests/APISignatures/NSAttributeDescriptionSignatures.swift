import Foundation
import CoreData

extension APISignatures {
    static func nsAttributeDescription(_ check: inout Checks) {
        check("NSAttributeDescription.allowsCloudEncryption") {
            let _: ReferenceWritableKeyPath<NSAttributeDescription, Bool> = \.allowsCloudEncryption
        }
        check("NSAttributeType") {
            let type: NSAttributeType = .stringAttributeType
            let _: UInt = type.rawValue
            let _: NSAttributeType? = NSAttributeType(rawValue: 700)
        }
        check("NSAttributeType.undefinedAttributeType") {
            let _: NSAttributeType = .undefinedAttributeType
        }
        check("NSAttributeType.integer16AttributeType") {
            let _: NSAttributeType = .integer16AttributeType
        }
        check("NSAttributeType.integer32AttributeType") {
            let _: NSAttributeType = .integer32AttributeType
        }
        check("NSAttributeType.integer64AttributeType") {
            let _: NSAttributeType = .integer64AttributeType
        }
        check("NSAttributeType.decimalAttributeType") {
            let _: NSAttributeType = .decimalAttributeType
        }
        check("NSAttributeType.doubleAttributeType") {
            let _: NSAttributeType = .doubleAttributeType
        }
        check("NSAttributeType.floatAttributeType") {
            let _: NSAttributeType = .floatAttributeType
        }
        check("NSAttributeType.stringAttributeType") {
            let _: NSAttributeType = .stringAttributeType
        }
        check("NSAttributeType.booleanAttributeType") {
            let _: NSAttributeType = .booleanAttributeType
        }
        check("NSAttributeType.dateAttributeType") {
            let _: NSAttributeType = .dateAttributeType
        }
        check("NSAttributeType.binaryDataAttributeType") {
            let _: NSAttributeType = .binaryDataAttributeType
        }
        check("NSAttributeType.UUIDAttributeType") {
            let _: NSAttributeType = .UUIDAttributeType
        }
        check("NSAttributeType.URIAttributeType") {
            let _: NSAttributeType = .URIAttributeType
        }
        check("NSAttributeType.transformableAttributeType") {
            let _: NSAttributeType = .transformableAttributeType
        }
        check("NSAttributeType.objectIDAttributeType") {
            let _: NSAttributeType = .objectIDAttributeType
        }
        check("NSAttributeType.compositeAttributeType") {
            let _: NSAttributeType = .compositeAttributeType
        }
        check("NSAttributeDescription") {
            let _: NSPropertyDescription = NSAttributeDescription()
        }
        check("NSAttributeDescription.init()") {
            let _: NSAttributeDescription = NSAttributeDescription()
        }
        check("NSAttributeDescription.attributeType") {
            let _: ReferenceWritableKeyPath<NSAttributeDescription, NSAttributeType> = \.attributeType
        }
        check("NSAttributeDescription.attributeValueClassName") {
            let _: ReferenceWritableKeyPath<NSAttributeDescription, String?> = \.attributeValueClassName
        }
        check("NSAttributeDescription.defaultValue") {
            let _: ReferenceWritableKeyPath<NSAttributeDescription, Any?> = \.defaultValue
        }
        check("NSAttributeDescription.versionHash") {
            let _: KeyPath<NSAttributeDescription, Data> = \.versionHash
        }
        check("NSAttributeDescription.valueTransformerName") {
            let _: ReferenceWritableKeyPath<NSAttributeDescription, String?> = \.valueTransformerName
        }
        check("NSAttributeDescription.allowsExternalBinaryDataStorage") {
            let _: ReferenceWritableKeyPath<NSAttributeDescription, Bool> = \.allowsExternalBinaryDataStorage
        }
        check("NSAttributeDescription.preservesValueInHistoryOnDeletion") {
            let _: ReferenceWritableKeyPath<NSAttributeDescription, Bool> = \.preservesValueInHistoryOnDeletion
        }
        check("NSAttributeDescription.AttributeType") {
            let type: NSAttributeDescription.AttributeType = .string
            let _: Int = type.hashValue
            let _: Bool = type == .integer64
        }
        check("NSAttributeDescription.AttributeType.init(rawValue:)") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType(rawValue: .stringAttributeType)
        }
        check("NSAttributeDescription.AttributeType.rawValue") {
            let _: WritableKeyPath<NSAttributeDescription.AttributeType, NSAttributeType> = \.rawValue
        }
        check("NSAttributeDescription.AttributeType.undefined") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.undefined
        }
        check("NSAttributeDescription.AttributeType.integer16") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.integer16
        }
        check("NSAttributeDescription.AttributeType.integer32") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.integer32
        }
        check("NSAttributeDescription.AttributeType.integer64") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.integer64
        }
        check("NSAttributeDescription.AttributeType.decimal") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.decimal
        }
        check("NSAttributeDescription.AttributeType.double") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.double
        }
        check("NSAttributeDescription.AttributeType.float") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.float
        }
        check("NSAttributeDescription.AttributeType.string") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.string
        }
        check("NSAttributeDescription.AttributeType.boolean") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.boolean
        }
        check("NSAttributeDescription.AttributeType.date") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.date
        }
        check("NSAttributeDescription.AttributeType.binaryData") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.binaryData
        }
        check("NSAttributeDescription.AttributeType.uuid") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.uuid
        }
        check("NSAttributeDescription.AttributeType.uri") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.uri
        }
        check("NSAttributeDescription.AttributeType.transformable") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.transformable
        }
        check("NSAttributeDescription.AttributeType.objectID") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.objectID
        }
        check("NSAttributeDescription.AttributeType.composite") {
            let _: NSAttributeDescription.AttributeType = NSAttributeDescription.AttributeType.composite
        }
        check("NSAttributeDescription.type") {
            let _: ReferenceWritableKeyPath<NSAttributeDescription, NSAttributeDescription.AttributeType> = \.type
        }
    }
}
