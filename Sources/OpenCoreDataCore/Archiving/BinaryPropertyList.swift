import Foundation

/// A value of a property list, as `BinaryPropertyList` reads it.
///
/// Keyed archives need one thing plain property lists do not: `uid`, the reference from one
/// archived object to another (`CF$UID`).
package enum PropertyListValue: Sendable, Hashable {
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case date(Date)
    case data(Data)
    case string(String)
    /// A keyed archive's reference to `$objects[n]`.
    case uid(Int)
    case array([PropertyListValue])
    case set([PropertyListValue])
    case dictionary([String: PropertyListValue])
    /// The format's rarely used null object (not a keyed archive's `$null`, which is a string).
    case null

    /// A short name of the kind of value, for messages.
    var kindName: String {
        switch self {
        case .bool: "a boolean"
        case .integer: "an integer"
        case .real: "a real number"
        case .date: "a date"
        case .data: "data"
        case .string: "a string"
        case .uid: "an object reference (UID)"
        case .array: "an array"
        case .set: "a set"
        case .dictionary: "a dictionary"
        case .null: "null"
        }
    }
}

/// A property list that cannot be read.
struct PropertyListError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// A reader of Apple's binary property list format (`bplist00`).
///
/// ```swift
/// let value = try BinaryPropertyList.read(data)   // .dictionary(["$top": …, "$objects": …])
/// ```
///
/// Why not Foundation's `PropertyListSerialization`: on Linux (swift-corelibs-foundation, Swift
/// 6.3) it crashes, rather than throwing, on some corrupt input: `SampleModel.mom` of the corpus
/// with the single byte at offset 3037 changed to `0xC1` (a one-element set) ends in a
/// segmentation fault while it bridges the set. It also returns archive UIDs as an internal
/// class (`_NSKeyedArchiverUID`) whose value is only reachable by reflection. This reader checks
/// every offset, length and reference against the file, refuses reference cycles and nesting
/// deeper than `maximumDepth`, and reads each object once (so shared references cannot blow
/// up the result).
///
/// The format (header `bplist00`; a 32-byte trailer giving the sizes of offsets and object
/// references, the object count, the top object and where the offset table starts; objects
/// tagged by a marker byte whose high nibble is the type) is the one Apple's CoreFoundation
/// documents in the comments of `CFBinaryPList.c`.
struct BinaryPropertyList {
    /// Containers nested deeper than this are refused rather than risking the stack.
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let offsetTableStart: Int
    /// Objects end where the offset table starts.
    private var objectsEnd: Int { offsetTableStart }
    private var cache: [PropertyListValue?]
    private var inProgress: [Bool]

    /// Whether `data` starts like a binary property list.
    static func isBinaryPropertyList(_ data: Data) -> Bool {
        data.starts(with: Array("bplist".utf8))
    }

    /// The top object of the binary property list `data`.
    static func read(_ data: Data) throws -> PropertyListValue {
        var reader = try BinaryPropertyList(data)
        return try reader.topObject()
    }

    private let topIndex: Int

    private init(_ data: Data) throws {
        bytes = [UInt8](data)
        guard bytes.count >= 8, bytes.starts(with: Array("bplist".utf8)) else {
            throw PropertyListError(reason: "it is not a binary property list (it does not start with \"bplist\")")
        }
        guard bytes[6] == UInt8(ascii: "0"), bytes[7] == UInt8(ascii: "0") else {
            let version = String(decoding: bytes[6..<8], as: UTF8.self)
            throw PropertyListError(reason: "binary property list version \"\(version)\" is not supported (only \"00\")")
        }
        guard bytes.count >= 8 + 32 else {
            throw PropertyListError(reason: "the binary property list is truncated (\(bytes.count) bytes, too short for its trailer)")
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw PropertyListError(reason: "the binary property list is truncated or corrupt: its trailer gives offset size \(offsetSize) and reference size \(referenceSize)")
        }
        let count = Self.bigEndian(bytes, at: trailer + 8, size: 8)
        let top = Self.bigEndian(bytes, at: trailer + 16, size: 8)
        let table = Self.bigEndian(bytes, at: trailer + 24, size: 8)
        // Every object takes at least one byte, so there cannot be more objects than bytes.
        guard count >= 1, count <= UInt64(bytes.count), top < count, table >= 8, table <= UInt64(trailer) else {
            throw PropertyListError(reason: "the binary property list is truncated or corrupt: its trailer (\(count) objects, top object \(top), offset table at \(table)) does not fit the file's \(bytes.count) bytes")
        }
        objectCount = Int(count)
        topIndex = Int(top)
        offsetTableStart = Int(table)
        let (tableSize, overflow) = objectCount.multipliedReportingOverflow(by: offsetSize)
        guard !overflow, offsetTableStart + tableSize <= trailer else {
            throw PropertyListError(reason: "the binary property list is truncated or corrupt (its offset table does not fit in the file)")
        }
        cache = Array(repeating: nil, count: objectCount)
        inProgress = Array(repeating: false, count: objectCount)
    }

    private mutating func topObject() throws -> PropertyListValue {
        try object(topIndex, depth: 0)
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    /// `size` bytes at `offset` as a big-endian unsigned number, after checking they lie
    /// within the object area.
    private func unsigned(at offset: Int, size: Int) throws -> UInt64 {
        guard offset >= 8, size <= 8, offset <= objectsEnd - size else {
            throw truncated("a number at offset \(offset)")
        }
        return Self.bigEndian(bytes, at: offset, size: size)
    }

    private func truncated(_ what: String) -> PropertyListError {
        PropertyListError(reason: "the binary property list is truncated or corrupt: \(what) lies outside the object data")
    }

    /// The offset of object `index`, from the offset table.
    private func offset(ofObject index: Int) throws -> Int {
        let entry = offsetTableStart + index * offsetSize
        let offset = Self.bigEndian(bytes, at: entry, size: offsetSize)
        guard offset >= 8, offset < UInt64(objectsEnd) else {
            throw PropertyListError(reason: "the binary property list is corrupt: object \(index) has offset \(offset), outside the object data")
        }
        return Int(offset)
    }

    /// The length of a variable-size object whose marker's low nibble is `info`, and where
    /// its content starts. A nibble of 15 means the length follows as an integer object.
    private func length(info: UInt8, markerAt offset: Int) throws -> (length: Int, start: Int) {
        if info < 0x0F { return (Int(info), offset + 1) }
        guard offset + 1 < objectsEnd else { throw truncated("the length of the object at offset \(offset)") }
        let lengthMarker = bytes[offset + 1]
        guard lengthMarker & 0xF0 == 0x10, lengthMarker & 0x0F <= 3 else {
            throw PropertyListError(reason: "the binary property list is corrupt: the object at offset \(offset) has no valid length")
        }
        let size = 1 << Int(lengthMarker & 0x0F)
        let value = try unsigned(at: offset + 2, size: size)
        guard value <= UInt64(bytes.count) else {
            throw PropertyListError(reason: "the binary property list is corrupt: the object at offset \(offset) claims a length of \(value)")
        }
        return (Int(value), offset + 2 + size)
    }

    /// Checks that `count` items of `size` bytes starting at `start` lie within the objects.
    private func checkRange(start: Int, count: Int, size: Int, of what: String) throws {
        let (total, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow, start >= 8, start <= objectsEnd, total <= objectsEnd - start else { throw truncated(what) }
    }

    /// The object indices referenced by `count` references starting at `start`.
    private func references(start: Int, count: Int, of what: String) throws -> [Int] {
        try checkRange(start: start, count: count, size: referenceSize, of: what)
        return try (0..<count).map { item in
            let reference = Self.bigEndian(bytes, at: start + item * referenceSize, size: referenceSize)
            guard reference < UInt64(objectCount) else {
                throw PropertyListError(reason: "the binary property list is corrupt: \(what) refers to object \(reference), but there are only \(objectCount)")
            }
            return Int(reference)
        }
    }

    private mutating func object(_ index: Int, depth: Int) throws -> PropertyListValue {
        if let cached = cache[index] { return cached }
        guard !inProgress[index] else {
            throw PropertyListError(reason: "the binary property list is corrupt: object \(index) contains itself")
        }
        guard depth < Self.maximumDepth else {
            throw PropertyListError(reason: "the binary property list nests containers more than \(Self.maximumDepth) levels deep")
        }
        inProgress[index] = true
        defer { inProgress[index] = false }
        let value = try parseObject(index, depth: depth)
        cache[index] = value
        return value
    }

    private mutating func parseObject(_ index: Int, depth: Int) throws -> PropertyListValue {
        let offset = try offset(ofObject: index)
        let marker = bytes[offset]
        let info = marker & 0x0F
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: break
            }
        case 0x1:
            guard info <= 4 else { break }
            let size = 1 << Int(info)
            if size == 16 {
                // 128-bit integers hold unsigned 64-bit values above Int64.max.
                let high = try unsigned(at: offset + 1, size: 8)
                let low = try unsigned(at: offset + 9, size: 8)
                guard high == 0, low <= UInt64(Int64.max) else {
                    throw PropertyListError(reason: "the binary property list holds an integer too large for 64 bits (object \(index))")
                }
                return .integer(Int64(low))
            }
            let raw = try unsigned(at: offset + 1, size: size)
            // 8-byte integers are signed; shorter ones are unsigned.
            return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
        case 0x2:
            if info == 2 { return .real(Double(Float(bitPattern: UInt32(try unsigned(at: offset + 1, size: 4))))) }
            if info == 3 { return .real(Double(bitPattern: try unsigned(at: offset + 1, size: 8))) }
        case 0x3:
            if marker == 0x33 {
                return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try unsigned(at: offset + 1, size: 8))))
            }
        case 0x4:
            let (count, start) = try length(info: info, markerAt: offset)
            try checkRange(start: start, count: count, size: 1, of: "data object \(index)")
            return .data(Data(bytes[start..<(start + count)]))
        case 0x5:
            // ASCII; bytes above 127 (which Apple never writes here) are read as Latin-1.
            let (count, start) = try length(info: info, markerAt: offset)
            try checkRange(start: start, count: count, size: 1, of: "string object \(index)")
            let characters = bytes[start..<(start + count)]
            if characters.allSatisfy({ $0 < 0x80 }) { return .string(String(decoding: characters, as: UTF8.self)) }
            var text = String.UnicodeScalarView()
            for byte in characters { text.append(Unicode.Scalar(byte)) }
            return .string(String(text))
        case 0x6:
            let (count, start) = try length(info: info, markerAt: offset)
            try checkRange(start: start, count: count, size: 2, of: "string object \(index)")
            let units = (0..<count).map { UInt16(bytes[start + 2 * $0]) << 8 | UInt16(bytes[start + 2 * $0 + 1]) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            let value = try unsigned(at: offset + 1, size: Int(info) + 1)
            guard value <= UInt64(Int32.max) else {
                throw PropertyListError(reason: "the binary property list holds an out-of-range UID \(value) (object \(index))")
            }
            return .uid(Int(value))
        case 0xA, 0xC:
            let (count, start) = try length(info: info, markerAt: offset)
            let elements = try references(start: start, count: count, of: "container object \(index)")
                .map { try object($0, depth: depth + 1) }
            return marker >> 4 == 0xA ? .array(elements) : .set(elements)
        case 0xD:
            let (count, start) = try length(info: info, markerAt: offset)
            let keys = try references(start: start, count: count, of: "dictionary object \(index)")
            let values = try references(start: start + count * referenceSize, count: count, of: "dictionary object \(index)")
            var dictionary: [String: PropertyListValue] = [:]
            for (key, value) in zip(keys, values) {
                guard case .string(let name) = try object(key, depth: depth + 1) else {
                    throw PropertyListError(reason: "the binary property list has a dictionary key that is not a string (object \(index))")
                }
                dictionary[name] = try object(value, depth: depth + 1)
            }
            return .dictionary(dictionary)
        default:
            break
        }
        throw PropertyListError(reason: "the binary property list is corrupt: object \(index) has the unknown marker 0x\(String(marker, radix: 16))")
    }
}
