import Foundation
import OpenCoreDataCore

/// The constants of the binary store's file format (`Docs/BinaryStoreFormat.md`).
enum BinaryStoreFormat {
    /// "OCDBIN", then 0x1A and a line feed, which a text-mode transfer would change.
    static let magic: [UInt8] = Array("OCDBIN".utf8) + [0x1A, 0x0A]
    /// The format version this code writes and reads.
    static let version: UInt32 = 1
    /// Magic, version, metadata length (UInt32), body length (UInt64).
    static let headerSize = 8 + 4 + 4 + 8

    /// What kind of value follows, in one byte.
    enum Tag: UInt8 {
        case null = 0, integer, double, `false`, `true`, string, date, data, uuid, url, decimal, transformable
    }

    /// Whether a value of `tag` is one an attribute of `type` holds (nil fits every attribute).
    static func tag(_ tag: Tag, fits type: NSAttributeType) -> Bool {
        switch tag {
        case .null: true
        case .integer: [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType].contains(type)
        case .double: type == .doubleAttributeType || type == .floatAttributeType
        case .false, .true: type == .booleanAttributeType
        case .string: type == .stringAttributeType
        case .date: type == .dateAttributeType
        case .data: type == .binaryDataAttributeType
        case .uuid: type == .UUIDAttributeType
        case .url: type == .URIAttributeType
        case .decimal: type == .decimalAttributeType
        case .transformable: [.transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType].contains(type)
        }
    }
}
