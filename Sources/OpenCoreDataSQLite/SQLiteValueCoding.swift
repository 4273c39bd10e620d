import Foundation
import OCDSQLite
import OpenCoreDataCore

/// How attribute values are written to and read from SQLite columns, in Core Data's encodings:
/// dates as seconds since 2001-01-01, UUIDs as 16 raw bytes, URIs as their absolute string,
/// Booleans as 0/1, decimals as REAL, transformable values as archived data; and composite
/// values as JSON text (`CompositeValue`).
package enum SQLiteValueCoding {
    /// Binds `value` of an attribute of `type` to parameter `index`.
    static func bind(_ value: PrimitiveValue, of attribute: NSAttributeDescription, to statement: SQLiteStatement,
                     at index: Int) throws {
        switch value {
        case .null: try statement.bindNull(at: index)
        case .integer(let number): try statement.bind(number, at: index)
        case .double(let number): try statement.bind(number, at: index)
        case .bool(let flag): try statement.bind(flag ? Int64(1) : 0, at: index)
        case .string(let text): try statement.bind(text, at: index)
        case .date(let date): try statement.bind(date.timeIntervalSinceReferenceDate, at: index)
        case .data(let data): try statement.bind(data, at: index)
        case .externalData(let external): try statement.bind(try external.data(), at: index)
        case .uuid(let uuid): try statement.bind(Data(uuid.bytes), at: index)
        case .url(let url): try statement.bind(url.absoluteString, at: index)
        case .decimal(let decimal): try statement.bind(decimal.nearestDouble, at: index)
        case .transformable(let box):
            if let composite = attribute as? NSCompositeAttributeDescription {
                try statement.bind(try compositeJSON(box.value, for: composite), at: index)
            } else {
                try statement.bind(try TransformableCoding.encode(box.value, for: attribute), at: index)
            }
        }
    }

    /// A composite attribute's value as the JSON text its column keeps.
    private static func compositeJSON(_ value: Any, for composite: NSCompositeAttributeDescription) throws -> String {
        try CompositeValue.json(of: try CompositeValue.normalized(value, for: composite), for: composite)
    }

    /// The SQLite value for a constant compared with an attribute of `type` in a predicate.
    package static func sqliteValue(_ value: PrimitiveValue, of attribute: NSAttributeDescription) throws -> SQLiteValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .double(let number): .real(number)
        case .bool(let flag): .integer(flag ? 1 : 0)
        case .string(let text): .text(text)
        case .date(let date): .real(date.timeIntervalSinceReferenceDate)
        case .data(let data): .blob(data)
        case .externalData(let external): .blob(try external.data())
        case .uuid(let uuid): .blob(Data(uuid.bytes))
        case .url(let url): .text(url.absoluteString)
        case .decimal(let decimal): .real(decimal.nearestDouble)
        case .transformable(let box):
            if let composite = attribute as? NSCompositeAttributeDescription {
                .text(try compositeJSON(box.value, for: composite))
            } else {
                .blob(try TransformableCoding.encode(box.value, for: attribute))
            }
        }
    }

    /// Reads column `index` as a value of an attribute.
    @inline(__always)
    static func read(_ statement: SQLiteStatement, at index: Int, as attribute: NSAttributeDescription) -> PrimitiveValue {
        read(statement, at: index, type: attribute.attributeType, attribute: attribute)
    }

    /// Reads column `index` as a value of an attribute of `type` (`attribute` is only consulted
    /// for transformable values).
    @inline(__always)
    static func read(_ statement: SQLiteStatement, at index: Int, type: NSAttributeType,
                     attribute: @autoclosure () -> NSAttributeDescription) -> PrimitiveValue {
        // Numbers and text are read first and checked for NULL only when they could be one (SQLite
        // reads NULL as 0, 0.0 or a nil pointer): one call into SQLite per column, not two.
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            let number = statement.int64(at: index)
            return number == 0 && statement.isNull(at: index) ? .null : .integer(number)
        case .booleanAttributeType:
            let number = statement.int64(at: index)
            return number == 0 && statement.isNull(at: index) ? .null : .bool(number != 0)
        case .doubleAttributeType, .floatAttributeType:
            let number = statement.double(at: index)
            return number == 0 && statement.isNull(at: index) ? .null : .double(number)
        case .stringAttributeType:
            return statement.string(at: index).map { .string($0) } ?? .null
        case .dateAttributeType:
            let seconds = statement.double(at: index)
            return seconds == 0 && statement.isNull(at: index) ? .null : .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .decimalAttributeType:
            if statement.isNull(at: index) { return .null }
            return .decimal(Self.decimal(fromStored: statement.double(at: index)))
        case .binaryDataAttributeType:
            if statement.isNull(at: index) { return .null }
            return .data(statement.data(at: index) ?? Data())
        case .UUIDAttributeType:
            if statement.isNull(at: index) { return .null }
            guard let data = statement.data(at: index), data.count == 16 else {
                return statement.string(at: index).flatMap(UUID.init(uuidString:)).map { .uuid($0) } ?? .null
            }
            return .uuid(data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
        case .URIAttributeType:
            if statement.isNull(at: index) { return .null }
            return statement.string(at: index).flatMap { URL(string: $0) }.map { .url($0) } ?? .null
        case .compositeAttributeType where attribute() is NSCompositeAttributeDescription:
            guard let text = statement.string(at: index), let composite = attribute() as? NSCompositeAttributeDescription,
                  let value = CompositeValue.value(fromJSON: text, for: composite) else { return .null }
            return .transformable(TransformableValue(value: value))
        // A plain attribute of the composite type (no elements) is kept as a transformable one is.
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType:
            guard !statement.isNull(at: index), let data = statement.data(at: index) else { return .null }
            return TransformableCoding.decode(data, for: attribute()).map { .transformable(TransformableValue(value: $0)) } ?? .null
        }
    }

    /// A value the predicate language computed (a number, string, date), as SQL takes it.
    static func sqliteValue(ofComputed value: Any?) -> SQLiteValue {
        switch value {
        case nil: return .null
        case let number as Int: return .integer(Int64(number))
        case let number as Int64: return .integer(number)
        case let number as Double: return number.isFinite ? .real(number) : .null
        case let number as Decimal: return .real(number.nearestDouble)
        case let flag as Bool: return .integer(flag ? 1 : 0)
        case let text as String: return .text(text)
        case let date as Date: return .real(date.timeIntervalSinceReferenceDate)
        case let number as NSNumber:
            let double = number.doubleValue
            return Double(number.int64Value) == double ? .integer(number.int64Value) : .real(double)
        default: return .null
        }
    }

    /// A decimal read from its REAL column. `Decimal(Double)` keeps the binary fraction's
    /// noise (3.3333333332999993 becomes 3.333333333299999232); the shortest decimal that reads
    /// back as the same double is what was stored.
    package static func decimal(fromStored value: Double) -> Decimal {
        guard value.isFinite else { return Decimal(value) }
        return Decimal(string: "\(value)", locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(value)
    }
}
