import Foundation
import OCDPostgres
import OCDSQL
import OpenCoreDataCore
import OpenCoreDataSQLite

/// How attribute values are written to and read from the PostgreSQL store's columns: Core
/// Data's encodings, as the SQLite store keeps them — dates as seconds since 2001-01-01 in a
/// `double precision`, UUIDs as 16 bytes of `bytea`, URIs as their absolute string, Booleans as
/// 0/1 in a `bigint`, decimals as `double precision`, transformable values as archived data,
/// composite values as JSON text — so that a store moves between the two engines value for
/// value.
enum PostgresValueCoding {
    /// The value bound for `value` of `attribute`, in a row or a predicate.
    static func sqlValue(_ value: PrimitiveValue, of attribute: NSAttributeDescription) throws -> SQLValue {
        try SQLiteValueCoding.sqliteValue(value, of: attribute)
    }

    /// Reads column `column` of `row` as a value of an attribute of `type` (`attribute` is only
    /// consulted for transformable and composite values). The store's columns have the types
    /// `PostgresSchemaDefinition` gives them: numbers are read from their 8 bytes directly; a
    /// column of another type (a store made otherwise) is read through its SQL value.
    @inline(__always)
    static func read(_ result: PostgresResult, _ row: Int, _ column: Int, type: NSAttributeType,
                     attribute: @autoclosure () -> NSAttributeDescription) -> PrimitiveValue {
        guard let bytes = result.binaryValue(row, column) else { return .null }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return .integer(integer(bytes, result, row, column))
        case .booleanAttributeType:
            return .bool(integer(bytes, result, row, column) != 0)
        case .doubleAttributeType, .floatAttributeType:
            return .double(double(bytes, result, row, column))
        case .stringAttributeType:
            return .string(String(decoding: bytes, as: UTF8.self))
        case .dateAttributeType:
            return .date(Date(timeIntervalSinceReferenceDate: double(bytes, result, row, column)))
        case .decimalAttributeType:
            return .decimal(SQLiteValueCoding.decimal(fromStored: double(bytes, result, row, column)))
        case .binaryDataAttributeType:
            return .data(Data(bytes))
        case .UUIDAttributeType:
            guard bytes.count == 16 else { return .null }
            return .uuid(UUID(uuid: bytes.loadUnaligned(as: uuid_t.self)))
        case .URIAttributeType:
            return URL(string: String(decoding: bytes, as: UTF8.self)).map { .url($0) } ?? .null
        case .compositeAttributeType where attribute() is NSCompositeAttributeDescription:
            guard let composite = attribute() as? NSCompositeAttributeDescription,
                  let value = CompositeValue.value(fromJSON: String(decoding: bytes, as: UTF8.self), for: composite) else { return .null }
            return .transformable(TransformableValue(value: value))
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType:
            return TransformableCoding.decode(Data(bytes), for: attribute()).map { .transformable(TransformableValue(value: $0)) } ?? .null
        }
    }

    /// A value of `attribute` from its stored SQL value, read as its column would be (history's
    /// tombstones keep values so, `PostgresTombstoneCoding`).
    static func value(_ stored: SQLValue, of attribute: NSAttributeDescription) -> PrimitiveValue {
        switch (attribute.attributeType, stored) {
        case (_, .null): return .null
        case (.integer16AttributeType, _), (.integer32AttributeType, _), (.integer64AttributeType, _):
            return stored.int64Value.map { .integer($0) } ?? .null
        case (.booleanAttributeType, _): return stored.int64Value.map { .bool($0 != 0) } ?? .null
        case (.doubleAttributeType, _), (.floatAttributeType, _): return stored.doubleValue.map { .double($0) } ?? .null
        case (.dateAttributeType, _): return stored.doubleValue.map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
        case (.decimalAttributeType, _): return stored.doubleValue.map { .decimal(SQLiteValueCoding.decimal(fromStored: $0)) } ?? .null
        case (.stringAttributeType, .text(let text)): return .string(text)
        case (.URIAttributeType, .text(let text)): return URL(string: text).map { .url($0) } ?? .null
        case (.binaryDataAttributeType, .blob(let data)): return .data(data)
        case (.UUIDAttributeType, .blob(let data)):
            guard data.count == 16 else { return .null }
            return .uuid(data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
        case (.compositeAttributeType, .text(let json)):
            guard let composite = attribute as? NSCompositeAttributeDescription,
                  let value = CompositeValue.value(fromJSON: json, for: composite) else { return .null }
            return .transformable(TransformableValue(value: value))
        case (.transformableAttributeType, .blob(let data)), (.undefinedAttributeType, .blob(let data)),
             (.objectIDAttributeType, .blob(let data)), (.compositeAttributeType, .blob(let data)):
            return TransformableCoding.decode(data, for: attribute).map { .transformable(TransformableValue(value: $0)) } ?? .null
        default: return .null
        }
    }

    @inline(__always)
    private static func integer(_ bytes: UnsafeRawBufferPointer, _ result: PostgresResult, _ row: Int, _ column: Int) -> Int64 {
        bytes.count == 8 && result.type(ofColumn: column) == PostgresType.int8
            ? Int64(bigEndian: bytes.loadUnaligned(as: Int64.self)) : result.int64(row, column)
    }

    @inline(__always)
    private static func double(_ bytes: UnsafeRawBufferPointer, _ result: PostgresResult, _ row: Int, _ column: Int) -> Double {
        bytes.count == 8 && result.type(ofColumn: column) == PostgresType.float8
            ? Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))) : result.double(row, column)
    }
}
