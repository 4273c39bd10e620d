import Foundation

/// One value bound to or read from SQL: SQLite's five storage classes, which every SQL engine
/// the stores use can hold (PostgreSQL as `bigint`, `double precision`, `text` and `bytea`).
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

extension SQLValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
}

extension SQLValue {
    /// The integer, if this is an integer (or a real with an integral value).
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// The number as a Double, if this is an integer or a real.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }

    /// The text, if this is text.
    public var stringValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes, if this is a blob.
    public var dataValue: Data? {
        if case .blob(let value) = self { return value }
        return nil
    }

    /// The value as a Foundation value: an `Int64`, a `Double`, a `String`, `Data`, or nil.
    public var anyValue: Any? {
        switch self {
        case .null: nil
        case .integer(let value): value
        case .real(let value): value
        case .text(let value): value
        case .blob(let value): value
        }
    }
}
