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
    /// consulted for transformable and composite values).
    @inline(__always)
    static func read(_ result: PostgresResult, _ row: Int, _ column: Int, type: NSAttributeType,
                     attribute: @autoclosure () -> NSAttributeDescription) -> PrimitiveValue {
        if result.isNull(row, column) { return .null }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return .integer(result.int64(row, column))
        case .booleanAttributeType:
            return .bool(result.int64(row, column) != 0)
        case .doubleAttributeType, .floatAttributeType:
            return .double(result.double(row, column))
        case .stringAttributeType:
            return .string(result.string(row, column) ?? "")
        case .dateAttributeType:
            return .date(Date(timeIntervalSinceReferenceDate: result.double(row, column)))
        case .decimalAttributeType:
            return .decimal(SQLiteValueCoding.decimal(fromStored: result.double(row, column)))
        case .binaryDataAttributeType:
            return .data(result.data(row, column) ?? Data())
        case .UUIDAttributeType:
            guard let data = result.data(row, column), data.count == 16 else { return .null }
            return .uuid(data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
        case .URIAttributeType:
            return result.string(row, column).flatMap { URL(string: $0) }.map { .url($0) } ?? .null
        case .compositeAttributeType where attribute() is NSCompositeAttributeDescription:
            guard let text = result.string(row, column), let composite = attribute() as? NSCompositeAttributeDescription,
                  let value = CompositeValue.value(fromJSON: text, for: composite) else { return .null }
            return .transformable(TransformableValue(value: value))
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType:
            guard let data = result.data(row, column) else { return .null }
            return TransformableCoding.decode(data, for: attribute()).map { .transformable(TransformableValue(value: $0)) } ?? .null
        }
    }
}
