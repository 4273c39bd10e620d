import Foundation
import OpenCoreDataCore

/// The parts of the XML store's file format (`Docs/XMLStoreFormat.md`) that both directions
/// share: the version number, object ids, names as Apple's store writes them, attribute type
/// names, and relationship types.
enum XMLStoreFormat {
    /// The `<version>` Apple's XML store writes.
    static let version = "134481920"
    static let doctype = "<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">"

    /// An object's id: `z` and its key (keys are unique across the whole file).
    static func id(key: Int64) -> String { "z\(key)" }

    /// The key an id names, when it is `z` and a positive number.
    static func key(ofID id: String) -> Int64? {
        guard id.first == "z", let key = Int64(id.dropFirst()), key > 0 else { return nil }
        return key
    }

    /// An entity's name as the file has it (upper case), and a property's (lower case).
    static func fileName(of entity: NSEntityDescription) -> String { (entity.name ?? "").uppercased() }
    static func fileName(of property: NSPropertyDescription) -> String { property.name.lowercased() }

    /// The `type` of an attribute element.
    static func typeName(of type: NSAttributeType) -> String {
        switch type {
        case .integer16AttributeType: "int16"
        case .integer32AttributeType: "int32"
        case .integer64AttributeType: "int64"
        case .decimalAttributeType: "decimal"
        case .doubleAttributeType: "double"
        case .floatAttributeType: "float"
        case .stringAttributeType: "string"
        case .booleanAttributeType: "bool"
        case .dateAttributeType: "date"
        case .binaryDataAttributeType: "binary"
        case .UUIDAttributeType: "uuid"
        case .URIAttributeType: "uri"
        default: "transformable"
        }
    }

    /// A relationship's `type`: its minimum and maximum count (0 for no maximum).
    static func typeName(of relationship: NSRelationshipDescription) -> String {
        if !relationship.isToMany { return relationship.isOptional ? "0/1" : "1/1" }
        return "\(relationship.minCount)/\(relationship.maxCount)"
    }

    /// Whether a string holds characters XML 1.0 cannot carry (control characters other than
    /// tab, line feed and carriage return): such a string is written in base64.
    static func needsBase64(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r") || scalar.value == 0xFFFE || scalar.value == 0xFFFF
        }
    }
}
