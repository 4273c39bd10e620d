import CLibPQ
import Foundation
import OCDSQL

/// The rows a statement returned, in PostgreSQL's binary format, read in place: nothing is
/// copied until a value is asked for.
///
/// ```swift
/// let result = try connection.query("SELECT Z_PK, ZNAME FROM ZPERSON")
/// for row in 0..<result.rowCount { print(result.int64(row, 0), result.string(row, 1) ?? "nil") }
/// ```
/// Integer columns of every width read as `int64`, `float4`/`float8` and `numeric` as `double`,
/// and `value(_:_:)` turns any column into the `SQLValue` SQLite would hold for it.
public final class PostgresResult {
    let handle: OpaquePointer
    /// The number of rows.
    public let rowCount: Int
    /// The number of columns.
    public let columnCount: Int
    /// Each column's type (`pg_type` OID).
    private let types: [Oid]

    init(handle: OpaquePointer) {
        self.handle = handle
        rowCount = Int(PQntuples(handle))
        columnCount = Int(PQnfields(handle))
        types = (0..<columnCount).map { PQftype(handle, Int32($0)) }
    }

    deinit { PQclear(handle) }

    /// How many rows an `INSERT`, `UPDATE` or `DELETE` touched.
    public var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// The name of column `column`.
    public func columnName(_ column: Int) -> String { String(cString: PQfname(handle, Int32(column))) }

    @inline(__always)
    public func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) == 1 }

    /// The value's bytes in the binary format, valid while the result lives; nil for NULL.
    /// (One call for what `isNull` and a typed read would ask twice: for decoding rows.)
    @inline(__always)
    public func binaryValue(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer? {
        if PQgetisnull(handle, Int32(row), Int32(column)) == 1 { return nil }
        return bytes(row, column)
    }

    /// The type (`pg_type` OID) of column `column`.
    public func type(ofColumn column: Int) -> Oid { types[column] }

    @inline(__always)
    private func bytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        let start = PQgetvalue(handle, Int32(row), Int32(column))
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return UnsafeRawBufferPointer(start: start.map(UnsafeRawPointer.init), count: length)
    }

    /// An integer column (`int2`, `int4`, `int8`, `oid`, `bool`), a whole `numeric`, or a
    /// `float` with an integral value; 0 for NULL.
    public func int64(_ row: Int, _ column: Int) -> Int64 {
        if isNull(row, column) { return 0 }
        let raw = bytes(row, column)
        switch types[column] {
        case PostgresType.int8: return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
        case PostgresType.int4: return Int64(Int32(bigEndian: raw.loadUnaligned(as: Int32.self)))
        case PostgresType.int2: return Int64(Int16(bigEndian: raw.loadUnaligned(as: Int16.self)))
        case PostgresType.oid: return Int64(UInt32(bigEndian: raw.loadUnaligned(as: UInt32.self)))
        case PostgresType.bool: return raw.first == 0 ? 0 : 1
        default: return value(row, column).int64Value ?? 0
        }
    }

    /// A floating-point or integer column as a `Double`; 0 for NULL.
    public func double(_ row: Int, _ column: Int) -> Double {
        if isNull(row, column) { return 0 }
        let raw = bytes(row, column)
        switch types[column] {
        case PostgresType.float8: return Double(bitPattern: UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)))
        case PostgresType.float4: return Double(Float(bitPattern: UInt32(bigEndian: raw.loadUnaligned(as: UInt32.self))))
        default: return value(row, column).doubleValue ?? 0
        }
    }

    /// A text column; nil for NULL.
    public func string(_ row: Int, _ column: Int) -> String? {
        if isNull(row, column) { return nil }
        return String(decoding: bytes(row, column), as: UTF8.self)
    }

    /// A `bytea` column's bytes (any other column's binary form); nil for NULL.
    public func data(_ row: Int, _ column: Int) -> Data? {
        if isNull(row, column) { return nil }
        return Data(bytes(row, column))
    }

    /// The value as SQLite would hold it: integers (and booleans) as `.integer`, floating-point
    /// and fractional `numeric` values as `.real`, text as `.text`, `bytea` and anything else as
    /// `.blob` of its binary form.
    public func value(_ row: Int, _ column: Int) -> SQLValue {
        if isNull(row, column) { return .null }
        switch types[column] {
        case PostgresType.int8, PostgresType.int4, PostgresType.int2, PostgresType.oid, PostgresType.bool:
            return .integer(int64(row, column))
        case PostgresType.float8, PostgresType.float4:
            return .real(double(row, column))
        case PostgresType.text, PostgresType.varchar, PostgresType.bpchar, PostgresType.name, PostgresType.unknown:
            return .text(String(decoding: bytes(row, column), as: UTF8.self))
        case PostgresType.numeric:
            return PostgresNumeric.value(bytes(row, column))
        default:
            return .blob(Data(bytes(row, column)))
        }
    }

    /// Every row as values.
    public var rows: [[SQLValue]] {
        (0..<rowCount).map { row in (0..<columnCount).map { value(row, $0) } }
    }
}

/// The OIDs of the built-in types the layer reads and binds (`pg_type`).
public enum PostgresType {
    public static let bool: Oid = 16
    public static let bytea: Oid = 17
    public static let name: Oid = 19
    public static let int8: Oid = 20
    public static let int2: Oid = 21
    public static let int4: Oid = 23
    public static let text: Oid = 25
    public static let oid: Oid = 26
    public static let float4: Oid = 700
    public static let float8: Oid = 701
    public static let unknown: Oid = 705
    public static let bpchar: Oid = 1042
    public static let varchar: Oid = 1043
    public static let numeric: Oid = 1700
}

/// `numeric` in PostgreSQL's binary format: a count of base-10000 digits, the weight of the
/// first, a sign, the display scale, then the digits (all big-endian 16-bit).
enum PostgresNumeric {
    static func value(_ raw: UnsafeRawBufferPointer) -> SQLValue {
        guard raw.count >= 8 else { return .null }
        func word(_ index: Int) -> Int16 { Int16(bigEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self)) }
        let count = Int(word(0)), weight = Int(word(1)), sign = UInt16(bitPattern: word(2)), scale = Int(word(3))
        guard raw.count >= 8 + count * 2 else { return .null }
        if sign == 0xC000 { return .real(.nan) }
        if sign == 0xD000 { return .real(.infinity) }
        if sign == 0xF000 { return .real(-.infinity) }
        let negative = sign == 0x4000
        // A whole number that fits is an integer, as SQLite's SUM of integers is.
        if scale == 0, count - 1 <= weight {
            var magnitude: Int64 = 0
            var exact = true
            for index in 0...max(weight, 0) where weight >= 0 {
                let digit = index < count ? Int64(word(4 + index)) : 0
                let (shifted, overflow1) = magnitude.multipliedReportingOverflow(by: 10_000)
                let (sum, overflow2) = shifted.addingReportingOverflow(digit)
                if overflow1 || overflow2 { exact = false; break }
                magnitude = sum
            }
            if exact { return .integer(negative ? -magnitude : magnitude) }
        }
        // Otherwise through its decimal text, which `Double` rounds correctly.
        var text = negative ? "-" : ""
        var integerPart = ""
        for index in 0...max(weight, 0) where weight >= 0 {
            let digit = index < count ? Int(word(4 + index)) : 0
            integerPart += index == 0 ? String(digit) : String(repeating: "0", count: 4 - String(digit).count) + String(digit)
        }
        text += integerPart.isEmpty ? "0" : integerPart
        var fraction = ""
        var index = weight + 1
        while index < count {
            let digit = index >= 0 ? Int(word(4 + index)) : 0
            fraction += String(repeating: "0", count: 4 - String(digit).count) + String(digit)
            index += 1
        }
        if !fraction.isEmpty { text += "." + fraction }
        return .real(Double(text) ?? .nan)
    }
}
