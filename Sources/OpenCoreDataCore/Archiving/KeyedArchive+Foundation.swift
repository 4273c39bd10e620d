import Foundation

/// Foundation's value classes as `NSKeyedArchiver` writes them: strings, numbers, data, dates,
/// UUIDs, URLs, `NSNull`, and the collections (arrays, sets, dictionaries, including Core
/// Data's `NSKnownKeysDictionary1`).
extension ArchivedValue {
    /// The text of a plain string or of an archived `NSString` / `NSMutableString`; nil for
    /// anything else.
    func stringValue() throws -> String? {
        switch self {
        case .string(let text):
            return text
        case .object(let object) where object.isKind(of: "NSString"):
            // `NS.string` holds the text itself; an object there (even this one) is not followed.
            if case .string(let text) = try object.value(forKey: "NS.string") { return text }
            if case .data(let bytes) = try object.value(forKey: "NS.bytes") { return String(decoding: bytes, as: UTF8.self) }
            throw KeyedArchiveError(reason: "\(object) has neither NS.string nor NS.bytes")
        default:
            return nil
        }
    }
}

extension ArchivedObject {
    /// The `NSUserInfo` dictionary of a model or mapping object; nil when absent or empty.
    func userInfo() throws -> [AnyHashable: Any]? {
        guard let dictionary = try object(forKey: "NSUserInfo") else { return nil }
        var values = FoundationValueDecoder()
        guard let decoded = try values.decode(.object(dictionary)) as? [AnyHashable: Any] else {
            throw KeyedArchiveError(reason: "NSUserInfo of \(self) is \(dictionary), not a dictionary")
        }
        return decoded.isEmpty ? nil : decoded
    }

    /// Whether the object is an array, set or ordered set (whose members are `NS.objects`).
    var isCollection: Bool {
        isKind(of: "NSArray") || isKind(of: "NSSet") || isKind(of: "NSOrderedSet")
    }

    /// Whether the object is a dictionary (`NSDictionary` and subclasses, `NSKnownKeysDictionary1`).
    var isDictionary: Bool { isKind(of: "NSDictionary") }

    /// The members of an archived `NSArray`, `NSSet` or `NSOrderedSet` (and mutable variants),
    /// in archive order.
    func collectionElements() throws -> [ArchivedValue] {
        guard isCollection else {
            throw KeyedArchiveError(reason: "\(self) is not an array or a set")
        }
        return try inlineArray(forKey: "NS.objects")
    }

    /// The entries of an archived dictionary, in archive order.
    ///
    /// `NSDictionary` and `NSMutableDictionary` keep parallel `NS.keys` and `NS.objects`
    /// arrays. Core Data's `NSKnownKeysDictionary1` (the class of a model's entity dictionary
    /// in a store's model cache) keeps its keys in the `keys` array of its `searchMapping` (an
    /// `NSKnownKeysMappingStrategy1`), its values in the parallel array `values`, and marks
    /// unused slots with the string `emptyToken`.
    func dictionaryEntries() throws -> [(key: ArchivedValue, value: ArchivedValue)] {
        if isKind(of: "NSKnownKeysDictionary1") || isKind(of: "NSKnownKeysDictionary") {
            guard let mapping = try object(forKey: "searchMapping") else {
                throw KeyedArchiveError(reason: "\(self) has no searchMapping")
            }
            guard let keyArray = try mapping.object(forKey: "keys") else {
                throw KeyedArchiveError(reason: "\(mapping) (the searchMapping of \(self)) has no keys")
            }
            guard let valueArray = try object(forKey: "values") else {
                throw KeyedArchiveError(reason: "\(self) has no values")
            }
            let keys = try keyArray.collectionElements()
            let values = try valueArray.collectionElements()
            guard keys.count == values.count else {
                throw KeyedArchiveError(reason: "\(self) has \(keys.count) keys but \(values.count) values")
            }
            let emptyToken = try string(forKey: "emptyToken")
            return zip(keys, values).compactMap { key, value in
                if let emptyToken, case .string(emptyToken) = value { return nil }
                return (key, value)
            }
        }
        guard isDictionary else {
            throw KeyedArchiveError(reason: "\(self) is not a dictionary")
        }
        let keys = try inlineArray(forKey: "NS.keys")
        let values = try inlineArray(forKey: "NS.objects")
        guard keys.count == values.count else {
            throw KeyedArchiveError(reason: "\(self) has \(keys.count) keys but \(values.count) values")
        }
        return Array(zip(keys, values))
    }

    /// The entries of an archived dictionary whose keys are strings, in archive order.
    func stringKeyedEntries() throws -> [(key: String, value: ArchivedValue)] {
        try dictionaryEntries().map { key, value in
            guard let name = try key.stringValue() else {
                throw KeyedArchiveError(reason: "\(self) has a key that is \(key.kindName), not a string")
            }
            return (name, value)
        }
    }
}

/// Turns archived Foundation values into Swift values: `String`, `Bool`, `Int`, `Double`,
/// `Decimal`, `Data`, `Date`, `UUID`, `URL`, `NSNull`, `[Any]`, `Set<AnyHashable>`,
/// `[AnyHashable: Any]`.
///
/// A malformed archive may make a collection contain itself; that is an error, as is nesting
/// deeper than `BinaryPropertyList.maximumDepth`. An object of any other class is a
/// `KeyedArchiveError` whose `unsupportedClass` names it, so that callers that can do without
/// the value (a transformable attribute's default value of an application class) can tell it
/// from a broken archive.
struct FoundationValueDecoder {
    private var inProgress: Set<Int> = []

    /// `value` as a Swift value; nil for `$null`.
    mutating func decode(_ value: ArchivedValue) throws -> Any? {
        switch value {
        case .null: return nil
        case .bool(let flag): return flag
        case .integer(let number): return Int(number)
        case .real(let number): return number
        case .string(let text): return text
        case .data(let bytes): return bytes
        case .date(let date): return date
        case .object(let object):
            guard !inProgress.contains(object.uid) else {
                throw KeyedArchiveError(reason: "\(object) contains itself")
            }
            guard inProgress.count < BinaryPropertyList.maximumDepth else {
                throw KeyedArchiveError(reason: "\(object) is nested more than \(BinaryPropertyList.maximumDepth) levels deep")
            }
            inProgress.insert(object.uid)
            defer { inProgress.remove(object.uid) }
            return try decodeObject(object)
        }
    }

    private mutating func decodeObject(_ object: ArchivedObject) throws -> Any {
        if object.isKind(of: "NSString") {
            return try ArchivedValue.object(object).stringValue() ?? ""
        }
        if object.isKind(of: "NSDecimalNumber") || object.isKind(of: "NSDecimalNumberPlaceholder") {
            return try decimal(object)
        }
        if object.isKind(of: "NSData") {
            guard case .data(let bytes) = try object.value(forKey: "NS.data") else {
                throw KeyedArchiveError(reason: "\(object) has no NS.data")
            }
            return bytes
        }
        if object.isKind(of: "NSDate") {
            switch try object.value(forKey: "NS.time") {
            case .real(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
            case .integer(let seconds): return Date(timeIntervalSinceReferenceDate: Double(seconds))
            case let other: throw object.wrongType("NS.time", "a number of seconds", found: other)
            }
        }
        if object.isKind(of: "NSUUID") {
            guard case .data(let bytes) = try object.value(forKey: "NS.uuidbytes"), bytes.count == 16 else {
                throw KeyedArchiveError(reason: "\(object) has no 16-byte NS.uuidbytes")
            }
            let b = [UInt8](bytes)
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        }
        if object.isKind(of: "NSURL") {
            guard let relative = try object.string(forKey: "NS.relative") else {
                throw KeyedArchiveError(reason: "\(object) has no NS.relative")
            }
            // Through `decode`, which refuses cycles (a URL that is its own base).
            let base = try object.object(forKey: "NS.base").map { try decode(.object($0)) as? URL }
            guard let url = URL(string: relative, relativeTo: base ?? nil) else {
                throw KeyedArchiveError(reason: "\(object): \"\(relative)\" is not a URL")
            }
            return url
        }
        if object.isKind(of: "NSNull") {
            return NSNull()
        }
        if object.isKind(of: "NSSet") {
            return Set(try object.collectionElements().map { element -> AnyHashable in
                guard let member = try decode(element) else { throw KeyedArchiveError(reason: "\(object) holds nil") }
                guard let hashable = member as? AnyHashable else {
                    throw KeyedArchiveError(reason: "\(object) holds a \(type(of: member)), which cannot be a set member")
                }
                return hashable
            })
        }
        if object.isCollection {
            return try object.collectionElements().map { element -> Any in
                guard let member = try decode(element) else { throw KeyedArchiveError(reason: "\(object) holds nil") }
                return member
            }
        }
        if object.isDictionary {
            var dictionary: [AnyHashable: Any] = [:]
            for (key, value) in try object.dictionaryEntries() {
                guard let decodedKey = try decode(key) as? AnyHashable else {
                    throw KeyedArchiveError(reason: "\(object) has a key that is \(key.kindName), which cannot be a dictionary key")
                }
                guard let decodedValue = try decode(value) else { throw KeyedArchiveError(reason: "\(object) holds nil") }
                dictionary[decodedKey] = decodedValue
            }
            return dictionary
        }
        throw KeyedArchiveError(reason: "\(object) is not a Foundation value class this reader decodes", unsupportedClass: object.className)
    }

    /// `NSDecimalNumber` (archived as `NSDecimalNumberPlaceholder`): `NS.mantissa` (up to
    /// eight 16-bit words, least significant first, in the byte order `NS.mantissa.bo` gives:
    /// 1 little-endian, 2 big-endian), `NS.length` (how many words count), `NS.exponent` and
    /// `NS.negative`.
    private func decimal(_ object: ArchivedObject) throws -> Decimal {
        guard case .data(let mantissa) = try object.value(forKey: "NS.mantissa") else {
            throw KeyedArchiveError(reason: "\(object) has no NS.mantissa")
        }
        let exponent = try object.integer(forKey: "NS.exponent")
        let length = try object.integer(forKey: "NS.length")
        let bigEndian = try object.integer(forKey: "NS.mantissa.bo") == 2
        let negative = try object.bool(forKey: "NS.negative")
        guard (0...8).contains(length), mantissa.count >= 2 * length, (-128...127).contains(exponent) else {
            throw KeyedArchiveError(reason: "\(object) is not a valid decimal number (length \(length), exponent \(exponent))")
        }
        let bytes = [UInt8](mantissa)
        var significand = Decimal(0)
        for index in stride(from: length - 1, through: 0, by: -1) {
            let first = UInt16(bytes[2 * index]), second = UInt16(bytes[2 * index + 1])
            let word = bigEndian ? first << 8 | second : second << 8 | first
            significand = significand * 65536 + Decimal(Int(word))
        }
        return Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: significand)
    }
}
