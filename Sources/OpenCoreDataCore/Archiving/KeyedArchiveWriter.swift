import Foundation

/// Builds an archive in `NSKeyedArchiver`'s layout without `NSKeyedArchiver` (which, on Linux,
/// can neither name Apple's classes nor write the private ones a model archive holds).
///
/// ```swift
/// var writer = KeyedArchiveWriter()
/// let root = writer.reserve()
/// writer.fill(root, classes: ["NSManagedObjectModel", "NSObject"], fields: ["NSEntities": …])
/// let data = writer.archive(root: root)      // reads back with KeyedArchive(data:)
/// ```
///
/// The layout is the one `KeyedArchive` reads: `$archiver` "NSKeyedArchiver", `$version`
/// 100000, `$top` {root}, `$objects` starting with `$null`; every object a dictionary whose
/// `$class` refers to a shared `{ $classname, $classes }` entry. Strings are written once and
/// shared, as the archiver shares equal constant strings; objects that refer to each other
/// (an entity and its properties) are reserved first and filled when their fields are known.
struct KeyedArchiveWriter {
    private var objects: [PropertyListValue] = [.string("$null")]
    private var classReferences: [[String]: Int] = [:]
    /// By UTF-8 bytes: Swift's `==` joins canonically equivalent strings, which are distinct names.
    private var stringReferences: [[UInt8]: Int] = [:]
    private var sharedReferences: [String: PropertyListValue] = [:]

    /// How deep the encoder is in nested predicates and expressions (see `enterNesting`).
    private var nesting = 0

    /// Counts one more level of nesting, refusing more than the readers accept
    /// (`BinaryPropertyList.maximumDepth`), so that no archive is written that cannot be read.
    mutating func enterNesting(_ what: @autoclosure () -> String) throws {
        guard nesting < BinaryPropertyList.maximumDepth else {
            throw KeyedArchiveEncodingError(reason: "\(what()) is nested more than \(BinaryPropertyList.maximumDepth) levels deep")
        }
        nesting += 1
    }

    mutating func leaveNesting() { nesting -= 1 }

    /// The reference `$null` stands for: nil.
    static let null = PropertyListValue.uid(0)

    /// A place in `$objects` for an object filled later by `fill`.
    mutating func reserve() -> Int {
        objects.append(.null)
        return objects.count - 1
    }

    /// Sets the object at `uid` (from `reserve`) to an instance of `classes.first`, whose
    /// superclasses follow it in `classes`.
    mutating func fill(_ uid: Int, classes: [String], fields: [String: PropertyListValue]) {
        var entry = fields
        entry["$class"] = classReference(classes)
        objects[uid] = .dictionary(entry)
    }

    /// A new object of `classes.first` with `fields`, as a reference.
    mutating func object(_ classes: [String], _ fields: [String: PropertyListValue]) -> PropertyListValue {
        let uid = reserve()
        fill(uid, classes: classes, fields: fields)
        return .uid(uid)
    }

    /// One object, made by `make` the first time `key` is asked for and shared after: what
    /// Foundation keeps as a single instance (the empty dictionary, `SELF`'s expression).
    mutating func shared(_ key: String, _ make: (inout KeyedArchiveWriter) -> PropertyListValue) -> PropertyListValue {
        if let reference = sharedReferences[key] { return reference }
        let reference = make(&self)
        sharedReferences[key] = reference
        return reference
    }

    /// A reference to `text` (a plain string in `$objects`), or `$null` for nil.
    mutating func string(_ text: String?) -> PropertyListValue {
        guard let text else { return Self.null }
        let key = Array(text.utf8)
        if let uid = stringReferences[key] { return .uid(uid) }
        objects.append(.string(text))
        stringReferences[key] = objects.count - 1
        return .uid(objects.count - 1)
    }

    /// A reference to a number, boolean or data object, as `encodeObject:` writes an
    /// `NSNumber` or `NSData`: the value itself in `$objects`.
    mutating func scalar(_ value: PropertyListValue) -> PropertyListValue {
        objects.append(value)
        return .uid(objects.count - 1)
    }

    /// An `NSArray` (or, with `mutable`, `NSMutableArray`) of `members`.
    mutating func array(_ members: [PropertyListValue], mutable: Bool = false) -> PropertyListValue {
        object(mutable ? ArchivedClassChain.mutableArray : ArchivedClassChain.array, ["NS.objects": .array(members)])
    }

    /// An `NSSet` of `members`.
    mutating func set(_ members: [PropertyListValue]) -> PropertyListValue {
        object(ArchivedClassChain.set, ["NS.objects": .array(members)])
    }

    /// An `NSDictionary` (or `NSMutableDictionary`) with parallel `keys` and `values`.
    mutating func dictionary(keys: [PropertyListValue], values: [PropertyListValue], mutable: Bool = false) -> PropertyListValue {
        object(mutable ? ArchivedClassChain.mutableDictionary : ArchivedClassChain.dictionary,
               ["NS.keys": .array(keys), "NS.objects": .array(values)])
    }

    /// The archive, with `root` as `$top.root`.
    func archive(root: Int) -> Data {
        BinaryPropertyListWriter.write(.dictionary([
            "$archiver": .string("NSKeyedArchiver"),
            "$version": .integer(100_000),
            "$top": .dictionary(["root": .uid(root)]),
            "$objects": .array(objects),
        ]))
    }

    private mutating func classReference(_ chain: [String]) -> PropertyListValue {
        if let uid = classReferences[chain] { return .uid(uid) }
        objects.append(.dictionary(["$classname": .string(chain[0]), "$classes": .array(chain.map(PropertyListValue.string))]))
        classReferences[chain] = objects.count - 1
        return .uid(objects.count - 1)
    }
}

/// The class chains (`$classes`) of the Foundation classes archives are made of.
enum ArchivedClassChain {
    static let array = ["NSArray", "NSObject"]
    static let mutableArray = ["NSMutableArray", "NSArray", "NSObject"]
    static let set = ["NSSet", "NSObject"]
    static let dictionary = ["NSDictionary", "NSObject"]
    static let mutableDictionary = ["NSMutableDictionary", "NSDictionary", "NSObject"]
    static let date = ["NSDate", "NSObject"]
    static let uuid = ["NSUUID", "NSObject"]
    static let url = ["NSURL", "NSObject"]
    static let null = ["NSNull", "NSObject"]
    static let decimalNumber = ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"]
}

/// A value a keyed archive cannot hold (an application's own class, a closure).
struct KeyedArchiveEncodingError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

extension KeyedArchiveWriter {
    /// `value` as `encodeObject:` archives the Foundation value it bridges to: `String`,
    /// `Bool`, integers, `Double`/`Float`, `Decimal` (`NSDecimalNumber`), `Data`, `Date`, `UUID`,
    /// `URL`, `NSNull`, arrays, sets and dictionaries of those. The inverse of
    /// `FoundationValueDecoder`.
    mutating func foundationValue(_ value: Any?) throws -> PropertyListValue {
        guard let value else { return Self.null }
        // (Types before casts: casting a Swift collection to a class bridges it first.)
        if type(of: value) is NSNumber.Type, let decimal = value as? NSDecimalNumber { return decimalNumber(decimal.decimalValue) }
        if let number = try plainNumber(value) { return scalar(number) }
        switch value {
        case let text as String: return string(text)
        case let number as Decimal: return decimalNumber(number)
        case let bytes as Data: return scalar(.data(bytes))
        case let date as Date:
            return object(ArchivedClassChain.date, ["NS.time": .real(date.timeIntervalSinceReferenceDate)])
        case let uuid as UUID:
            return object(ArchivedClassChain.uuid, ["NS.uuidbytes": .data(withUnsafeBytes(of: uuid.uuid) { Data($0) })])
        case let url as URL:
            return object(ArchivedClassChain.url, ["NS.base": Self.null, "NS.relative": string(url.absoluteString)])
        // The collections before the classes: casting one to a class bridges it first.
        case let members as Set<AnyHashable>:
            return set(try members.map { try foundationValue($0.base) })
        case let members as [Any]:
            return array(try members.map { try foundationValue($0) })
        case let entries as [AnyHashable: Any]:
            // Sorted by the keys' descriptions, so that the same dictionary archives the same.
            let sorted = entries.sorted { String(describing: $0.key) < String(describing: $1.key) }
            return dictionary(keys: try sorted.map { try foundationValue($0.key.base) },
                              values: try sorted.map { try foundationValue($0.value) })
        case is NSNull:
            return object(ArchivedClassChain.null, [:])
        case let number as NSNumber:
            // What bridges to NSNumber without being one (CGFloat, say): archived as the object.
            return try foundationValue(number as Any)
        default:
            throw KeyedArchiveEncodingError(reason: "a value of type \(type(of: value)) cannot be archived (only Foundation's property list and value classes can)")
        }
    }

    /// `value` as a property list's number (`PropertyListValue.number(of:)`), nil when it is not
    /// one; a number the archive cannot hold is this writer's error.
    private func plainNumber(_ value: Any) throws -> PropertyListValue? {
        do {
            return try PropertyListValue.number(of: value)
        } catch let error as PropertyListEncodingError {
            throw KeyedArchiveEncodingError(reason: error.reason)
        }
    }

    /// `NSDecimalNumber`'s keys, as `FoundationValueDecoder.decimal` reads them: the mantissa's
    /// eight 16-bit words little-endian (`NS.mantissa.bo` 1), `NS.length` of them in use.
    private mutating func decimalNumber(_ number: Decimal) -> PropertyListValue {
        // Foundation on Linux keeps Decimal's own words internal: rebuild them from the
        // significand's decimal digits (at most 39 of them, which fit the eight words).
        var words = [UInt16](repeating: 0, count: 8)
        for digit in "\(number.significand)".compactMap(\.wholeNumberValue) {
            var carry = UInt32(digit)
            for index in words.indices {
                let value = UInt32(words[index]) * 10 + carry
                words[index] = UInt16(value & 0xFFFF)
                carry = value >> 16
            }
        }
        let length = (words.lastIndex { $0 != 0 } ?? -1) + 1
        return object(ArchivedClassChain.decimalNumber, [
            "NS.exponent": .integer(Int64(number.isZero ? 0 : number.exponent)),
            "NS.length": .integer(Int64(length)),
            "NS.negative": .bool(number.sign == .minus && !number.isZero),
            "NS.compact": .bool(true),
            "NS.mantissa.bo": .integer(1),
            "NS.mantissa": .data(Data(words.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
        ])
    }
}
