import CLibPQ
import OCDSQL

/// A statement's arguments in PostgreSQL's binary format, laid out for one libpq call: every
/// value's bytes in one buffer, with the types, lengths and formats libpq reads beside them.
///
/// Integers bind as `int8`, reals as `float8`, text as `text` and blobs as `bytea`; NULL binds
/// with no type, for the server to infer. `signature` spells those types, one letter each, so
/// that a prepared statement is reused only with arguments of the types it was prepared for.
struct PostgresParameters {
    private(set) var types: [Oid] = []
    private(set) var lengths: [Int32] = []
    private(set) var offsets: [Int] = []
    private(set) var isNull: [Bool] = []
    private var buffer: [UInt8] = []
    /// One letter per argument: `i`nteger, `r`eal, `t`ext, `b`lob, `n`ull.
    private(set) var signature: [UInt8] = []

    init(_ values: [SQLValue]) {
        types.reserveCapacity(values.count)
        lengths.reserveCapacity(values.count)
        offsets.reserveCapacity(values.count)
        isNull.reserveCapacity(values.count)
        signature.reserveCapacity(values.count)
        for value in values { append(value) }
    }

    var count: Int { types.count }

    private mutating func append(_ value: SQLValue) {
        offsets.append(buffer.count)
        isNull.append(false)
        switch value {
        case .null:
            types.append(0)
            lengths.append(0)
            isNull[isNull.count - 1] = true
            signature.append(UInt8(ascii: "n"))
        case .integer(let number):
            types.append(PostgresType.int8)
            lengths.append(8)
            withUnsafeBytes(of: number.bigEndian) { buffer.append(contentsOf: $0) }
            signature.append(UInt8(ascii: "i"))
        case .real(let number):
            types.append(PostgresType.float8)
            lengths.append(8)
            withUnsafeBytes(of: number.bitPattern.bigEndian) { buffer.append(contentsOf: $0) }
            signature.append(UInt8(ascii: "r"))
        case .text(let text):
            types.append(PostgresType.text)
            let before = buffer.count
            buffer.append(contentsOf: text.utf8)
            lengths.append(Int32(buffer.count - before))
            signature.append(UInt8(ascii: "t"))
        case .blob(let data):
            types.append(PostgresType.bytea)
            buffer.append(contentsOf: data)
            lengths.append(Int32(data.count))
            signature.append(UInt8(ascii: "b"))
        }
    }

    /// Calls `body` with libpq's arrays: the value pointers (nil for NULL), lengths and formats
    /// (all binary), valid only during the call.
    func withLibPQArrays<Result>(_ body: (_ values: UnsafePointer<UnsafePointer<CChar>?>?, _ lengths: UnsafePointer<Int32>?,
                                          _ formats: UnsafePointer<Int32>?) throws -> Result) rethrows -> Result {
        if types.isEmpty { return try body(nil, nil, nil) }
        // A byte beyond the last value, so that an empty last value still has an address.
        var bytes = buffer
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { storage in
            let base = UnsafeRawPointer(storage.baseAddress!).assumingMemoryBound(to: CChar.self)
            var pointers = [UnsafePointer<CChar>?](repeating: nil, count: types.count)
            for index in 0..<types.count where !isNull[index] { pointers[index] = base + offsets[index] }
            let formats = [Int32](repeating: 1, count: types.count)
            return try pointers.withUnsafeBufferPointer { values in
                try lengths.withUnsafeBufferPointer { lengths in
                    try formats.withUnsafeBufferPointer { formats in
                        try body(values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }
}

extension SQLFragment {
    /// The text with PostgreSQL's numbered parameters (`$1`, `$2`, …) for the `?`s, which in a
    /// fragment's literal text are always parameters.
    public var postgresText: String { Self.numberingParameters(text) }

    /// `sql` with `$1`, `$2`, … for its `?`s.
    public static func numberingParameters(_ sql: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        for character in sql.unicodeScalars {
            if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
