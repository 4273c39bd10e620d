import Foundation

/// A value that a property list cannot hold.
package struct PropertyListEncodingError: Error, CustomStringConvertible {
    package let reason: String
    package var description: String { reason }
}

extension PropertyListValue {
    /// `object` as `PropertyListSerialization` writes it: `String`, `Bool`, integers, `Double`
    /// and `Float`, `Data`, `Date`, arrays, and dictionaries with string keys — Swift's types or
    /// Foundation's classes. Anything else (a set, `NSNull`, a URL) is refused, as Foundation
    /// refuses it; so is an unsigned number above `Int64.max`, which Foundation writes in 16
    /// bytes that OpenCoreData's reader does not read.
    ///
    /// ```swift
    /// let data = BinaryPropertyListWriter.write(try PropertyListValue(propertyListObject: metadata))
    /// ```
    package init(propertyListObject object: Any) throws {
        if let number = try Self.number(of: object) {
            self = number
            return
        }
        // The common types by their exact type first: a failed cast from `Any` is slow.
        switch ObjectIdentifier(type(of: object)) {
        case ObjectIdentifier(String.self): self = .string(object as! String); return
        case ObjectIdentifier(Data.self): self = .data(object as! Data); return
        case ObjectIdentifier([String: Any].self):
            self = .dictionary(try (object as! [String: Any]).mapValues(PropertyListValue.init(propertyListObject:)))
            return
        default: break
        }
        switch object {
        case let text as String: self = .string(text)
        case let bytes as Data: self = .data(bytes)
        case let date as Date: self = .date(date)
        case let elements as [Any]: self = .array(try elements.map(PropertyListValue.init(propertyListObject:)))
        case let entries as [String: Any]: self = .dictionary(try entries.mapValues(PropertyListValue.init(propertyListObject:)))
        // What bridges to NSNumber without being one or a Swift number above (CGFloat, say).
        case let number as NSNumber: self = try Self.number(number)
        default:
            throw PropertyListEncodingError(reason: "a property list cannot hold a value of type \(type(of: object))")
        }
    }

    /// `value` as the number a property list holds — a boolean, an integer or a real — when it
    /// is an `NSNumber` object (by what it holds) or one of Swift's `Bool`, integer and
    /// floating-point types (by its exact type: on Linux a Swift number, and an NSNumber, also
    /// cast to other number types and to `Bool`); nil for anything else. Shared by the plain
    /// property-list converter and the keyed archive writer.
    package static func number(of value: Any) throws -> PropertyListValue? {
        // The type is looked at before any cast: casting a Swift collection to NSNumber bridges
        // it, and a failed cast from `Any` costs far more than comparing types.
        let kind = type(of: value)
        if kind is NSNumber.Type, let number = value as? NSNumber { return try Self.number(number) }
        switch ObjectIdentifier(kind) {
        case ObjectIdentifier(Bool.self): return .bool(value as! Bool)
        case ObjectIdentifier(Int.self): return .integer(Int64(value as! Int))
        case ObjectIdentifier(Int8.self): return .integer(Int64(value as! Int8))
        case ObjectIdentifier(Int16.self): return .integer(Int64(value as! Int16))
        case ObjectIdentifier(Int32.self): return .integer(Int64(value as! Int32))
        case ObjectIdentifier(Int64.self): return .integer(value as! Int64)
        case ObjectIdentifier(UInt8.self): return .integer(Int64(value as! UInt8))
        case ObjectIdentifier(UInt16.self): return .integer(Int64(value as! UInt16))
        case ObjectIdentifier(UInt32.self): return .integer(Int64(value as! UInt32))
        case ObjectIdentifier(UInt.self): return try unsigned(UInt64(value as! UInt))
        case ObjectIdentifier(UInt64.self): return try unsigned(value as! UInt64)
        case ObjectIdentifier(Double.self): return .real(value as! Double)
        case ObjectIdentifier(Float.self): return .real(Double(value as! Float))
        default: return nil
        }
    }

    /// An `NSNumber` as what it holds: a boolean, a real or an integer. A boolean is one of
    /// Foundation's two shared boolean objects: on Linux a negative `Int8` is also of type "c".
    package static func number(_ number: NSNumber) throws -> PropertyListValue {
        if number === NSNumber(value: true) || number === NSNumber(value: false) { return .bool(number.boolValue) }
        switch String(cString: number.objCType) {
        case "B": return .bool(number.boolValue)
        case "f", "d": return .real(number.doubleValue)
        case "Q", "L", "I", "S", "C": return try unsigned(number.uint64Value)
        default: return .integer(number.int64Value)
        }
    }

    /// An unsigned number; one above `Int64.max` is refused, as this writer and the reader keep
    /// property-list integers in 64 signed bits.
    private static func unsigned(_ number: UInt64) throws -> PropertyListValue {
        guard number <= UInt64(Int64.max) else {
            throw PropertyListEncodingError(reason: "the number \(number) is too large for a property list here (above Int64.max)")
        }
        return .integer(Int64(number))
    }
}
