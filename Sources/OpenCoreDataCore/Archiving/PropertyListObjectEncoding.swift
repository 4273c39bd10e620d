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
        // An NSNumber object by what it holds: on Linux it also casts to Int and Bool. (Its type
        // is looked at before any cast: casting a Swift collection to NSNumber bridges it first.)
        if type(of: object) is NSNumber.Type, let number = object as? NSNumber {
            self = try Self.number(number)
            return
        }
        // Then Swift's own types, by exact type: a Swift number may also cast to another.
        switch object {
        case let flag as Bool where type(of: object) == Bool.self: self = .bool(flag)
        case let text as String: self = .string(text)
        case let number as Int where type(of: object) == Int.self: self = .integer(Int64(number))
        case let number as Int8 where type(of: object) == Int8.self: self = .integer(Int64(number))
        case let number as Int16 where type(of: object) == Int16.self: self = .integer(Int64(number))
        case let number as Int32 where type(of: object) == Int32.self: self = .integer(Int64(number))
        case let number as Int64 where type(of: object) == Int64.self: self = .integer(number)
        case let number as UInt8 where type(of: object) == UInt8.self: self = .integer(Int64(number))
        case let number as UInt16 where type(of: object) == UInt16.self: self = .integer(Int64(number))
        case let number as UInt32 where type(of: object) == UInt32.self: self = .integer(Int64(number))
        case let number as UInt where type(of: object) == UInt.self: self = try Self.unsigned(UInt64(number))
        case let number as UInt64 where type(of: object) == UInt64.self: self = try Self.unsigned(number)
        case let number as Double where type(of: object) == Double.self: self = .real(number)
        case let number as Float where type(of: object) == Float.self: self = .real(Double(number))
        case let bytes as Data: self = .data(bytes)
        case let date as Date: self = .date(date)
        case let elements as [Any]: self = .array(try elements.map(PropertyListValue.init(propertyListObject:)))
        case let entries as [String: Any]: self = .dictionary(try entries.mapValues(PropertyListValue.init(propertyListObject:)))
        case let number as NSNumber: self = try Self.number(number)
        default:
            throw PropertyListEncodingError(reason: "a property list cannot hold a value of type \(type(of: object))")
        }
    }

    /// An `NSNumber` as what it holds: a boolean, a real or an integer. A boolean is one of
    /// Foundation's two shared boolean objects: on Linux a negative `Int8` is also of type "c".
    private static func number(_ number: NSNumber) throws -> PropertyListValue {
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
