import Foundation

/// An archive `NSKeyedArchiver` wrote, read without `NSKeyedUnarchiver` (which, on Linux,
/// knows none of Core Data's classes).
///
/// ```swift
/// let archive = try KeyedArchive(data: Data(contentsOf: momURL))
/// let model = try archive.rootObject().asObject()          // NSManagedObjectModel #1
/// let entities = try model.object(forKey: "NSEntities")   // NSMutableDictionary #2
/// ```
///
/// The layout (a property list with `$archiver`, `$version`, `$top` and `$objects`; objects as
/// dictionaries whose `$class` refers to a `{ $classname, $classes }` entry; references between
/// objects as UIDs, `$objects[0]` being `$null`) is Foundation's documented keyed-archive
/// format. The archive is read eagerly as a property list, then objects are looked at lazily:
/// following a reference is an index into `$objects`, so object graphs with cycles (entity →
/// relationship → inverse → entity) cost nothing until a caller walks them, and callers that
/// do walk them memoize by `ArchivedObject.uid`.
final class KeyedArchive: Sendable {
    // Sendable: immutable.
    /// `$objects`.
    let objects: [PropertyListValue]
    private let top: [String: PropertyListValue]

    /// Reads the archive in `data`: a binary property list (or, as a fallback for hand-written
    /// archives, an XML one) with NSKeyedArchiver's layout.
    init(data: Data) throws {
        let plist: PropertyListValue
        do {
            plist = try PropertyListValue.read(data)
        } catch let error as PropertyListError {
            throw KeyedArchiveError(reason: "it is not a keyed archive: \(error.reason)")
        }
        guard case .dictionary(let root) = plist else {
            throw KeyedArchiveError(reason: "it is not a keyed archive: the property list holds \(plist.kindName), not a dictionary")
        }
        if let archiver = root["$archiver"], archiver != .string("NSKeyedArchiver") {
            throw KeyedArchiveError(reason: "it is not an NSKeyedArchiver archive ($archiver is \(archiver))")
        }
        guard case .array(let objects)? = root["$objects"] else {
            throw KeyedArchiveError(reason: "it is not a keyed archive: it has no $objects array")
        }
        guard case .dictionary(let top)? = root["$top"] else {
            throw KeyedArchiveError(reason: "it is not a keyed archive: it has no $top dictionary")
        }
        self.objects = objects
        self.top = top
    }

    /// The object archived under `key` in `$top` (`root` for `archivedData(withRootObject:)`).
    func rootObject(forKey key: String = "root") throws -> ArchivedValue {
        guard let reference = top[key] else {
            throw KeyedArchiveError(reason: "$top has no \"\(key)\" entry")
        }
        return try resolve(reference, context: "$top.\(key)")
    }

    /// The value `$objects[uid]` holds.
    func value(at uid: Int, context: @autoclosure () -> String) throws -> ArchivedValue {
        guard uid >= 0, uid < objects.count else {
            throw KeyedArchiveError(reason: "\(context()) refers to object \(uid), but the archive has only \(objects.count) objects (a dangling UID)")
        }
        if uid == 0 { return .null }
        switch objects[uid] {
        case .string("$null"): return .null
        case .string(let text): return .string(text)
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .bool(let value): return .bool(value)
        case .data(let value): return .data(value)
        case .date(let value): return .date(value)
        case .null: return .null
        case .dictionary(let fields):
            return .object(try ArchivedObject(archive: self, uid: uid, fields: fields))
        case .uid, .array, .set:
            throw KeyedArchiveError(reason: "object \(uid) of the archive is \(objects[uid].kindName), which a keyed archive cannot hold at the top of $objects")
        }
    }

    /// `value` (a field of an archived object) with a UID followed to what it refers to.
    func resolve(_ value: PropertyListValue, context: @autoclosure () -> String) throws -> ArchivedValue {
        switch value {
        case .uid(let uid): return try self.value(at: uid, context: context())
        case .string(let text): return .string(text)
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .bool(let flag): return .bool(flag)
        case .data(let bytes): return .data(bytes)
        case .date(let date): return .date(date)
        case .null: return .null
        case .array, .set, .dictionary:
            throw KeyedArchiveError(reason: "\(context()) holds \(value.kindName) inline where an object or a scalar was expected")
        }
    }
}

/// An archive that cannot be read: a dangling UID, a missing `$top`, a value of the wrong type.
struct KeyedArchiveError: Error, CustomStringConvertible {
    /// What is wrong, naming the object (`NSAttributeDescription #16`) and key when known.
    let reason: String
    /// Set when the archive is fine but holds an object of a class this reader does not decode.
    var unsupportedClass: String? = nil
    var description: String { reason }
}

/// A value found in a keyed archive: nil, a scalar, or an archived object.
enum ArchivedValue {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case object(ArchivedObject)

    var isNull: Bool { if case .null = self { true } else { false } }

    /// A short name of the kind of value, for messages.
    var kindName: String {
        switch self {
        case .null: "nil"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .real: "a real number"
        case .string: "a string"
        case .data: "data"
        case .date: "a date"
        case .object(let object): "an \(object.className)"
        }
    }

    /// The archived object, or an error saying what was found instead.
    func asObject(_ context: @autoclosure () -> String = "the value") throws -> ArchivedObject {
        guard case .object(let object) = self else {
            throw KeyedArchiveError(reason: "\(context()) is \(kindName), not an archived object")
        }
        return object
    }
}

/// One object of a keyed archive: its class and its keyed fields.
struct ArchivedObject: CustomStringConvertible {
    let archive: KeyedArchive
    /// The object's index in `$objects`: its identity within the archive.
    let uid: Int
    /// The fields as archived (values are UIDs or inline scalars).
    let fields: [String: PropertyListValue]
    /// `$classname`.
    let className: String
    /// `$classes`: the class and its superclasses, most specific first.
    let classChain: [String]

    init(archive: KeyedArchive, uid: Int, fields: [String: PropertyListValue]) throws {
        self.archive = archive
        self.uid = uid
        self.fields = fields
        guard case .uid(let classUID)? = fields["$class"] else {
            throw KeyedArchiveError(reason: "object \(uid) of the archive has no $class")
        }
        guard classUID > 0, classUID < archive.objects.count,
              case .dictionary(let classInfo) = archive.objects[classUID],
              case .string(let name)? = classInfo["$classname"] else {
            throw KeyedArchiveError(reason: "object \(uid) of the archive has a $class (\(classUID)) that is not a class description")
        }
        className = name
        switch classInfo["$classes"] {
        case nil:
            classChain = [name]
        case .array(let chain)?:
            classChain = try chain.map { element in
                guard case .string(let name) = element else {
                    throw KeyedArchiveError(reason: "the $classes of object \(uid)'s class \(name) holds \(element.kindName), not a class name")
                }
                return name
            }
        case let other?:
            throw KeyedArchiveError(reason: "the $classes of object \(uid)'s class \(name) is \(other.kindName), not an array")
        }
    }

    var description: String { "\(className) #\(uid)" }

    /// Whether the object's class is `name` or a subclass of it.
    func isKind(of name: String) -> Bool { className == name || classChain.contains(name) }

    /// Whether the object has a field `key`.
    func contains(_ key: String) -> Bool { fields[key] != nil }

    /// The value of `key`, UIDs followed; `.null` when the key is absent, as
    /// `decodeObject(forKey:)` gives nil.
    func value(forKey key: String) throws -> ArchivedValue {
        guard let field = fields[key] else { return .null }
        return try archive.resolve(field, context: "\(self), key \(key)")
    }

    /// The object `key` refers to, or nil when it is absent or `$null`.
    func object(forKey key: String) throws -> ArchivedObject? {
        let value = try value(forKey: key)
        if value.isNull { return nil }
        return try value.asObject("\(self), key \(key)")
    }

    /// The string of `key` (an archived `NSString` or `NSMutableString`), or nil.
    func string(forKey key: String) throws -> String? {
        let value = try value(forKey: key)
        if value.isNull { return nil }
        guard let text = try value.stringValue() else {
            throw wrongType(key, "a string", found: value)
        }
        return text
    }

    /// `decodeBool(forKey:)`: false when absent.
    func bool(forKey key: String) throws -> Bool {
        switch try value(forKey: key) {
        case .null: return false
        case .bool(let flag): return flag
        case .integer(let number): return number != 0
        case let other: throw wrongType(key, "a boolean", found: other)
        }
    }

    /// `decodeInteger(forKey:)`: 0 when absent.
    func integer(forKey key: String) throws -> Int {
        switch try value(forKey: key) {
        case .null: return 0
        case .integer(let number): return Int(number)
        case .bool(let flag): return flag ? 1 : 0
        case .real(let number) where number.rounded() == number && abs(number) < 1e18: return Int(number)
        case let other: throw wrongType(key, "an integer", found: other)
        }
    }

    /// The UIDs of an inline array field (`NS.objects`, `NS.keys`), each followed.
    func inlineArray(forKey key: String) throws -> [ArchivedValue] {
        guard let field = fields[key] else { return [] }
        guard case .array(let elements) = field else {
            throw KeyedArchiveError(reason: "\(self), key \(key): expected an inline array, found \(field.kindName)")
        }
        return try elements.enumerated().map { index, element in
            try archive.resolve(element, context: "\(self), key \(key)[\(index)]")
        }
    }

    func wrongType(_ key: String, _ expected: String, found: ArchivedValue) -> KeyedArchiveError {
        KeyedArchiveError(reason: "\(self), key \(key): expected \(expected), found \(found.kindName)")
    }
}

extension PropertyListValue {
    /// The value as Foundation's `PropertyListSerialization` would give it: `Bool`, `Int`,
    /// `Double`, `Date`, `Data`, `String`, arrays and `[String: Any]` dictionaries (a set as
    /// an array, a UID as its number, the null object as `NSNull`).
    package var foundationValue: Any {
        switch self {
        case .bool(let flag): flag
        case .integer(let number): Int(exactly: number) ?? number
        case .real(let number): number
        case .date(let date): date
        case .data(let data): data
        case .string(let text): text
        case .uid(let index): index
        case .array(let values), .set(let values): values.map(\.foundationValue)
        case .dictionary(let entries): entries.mapValues(\.foundationValue)
        case .null: NSNull()
        }
    }

    /// Reads a property list: the binary format with `BinaryPropertyList`, anything else (XML)
    /// with Foundation, whose XML reader gives UIDs as `CF$UID` dictionaries.
    package static func read(_ data: Data) throws -> PropertyListValue {
        if BinaryPropertyList.isBinaryPropertyList(data) { return try BinaryPropertyList.read(data) }
        guard data.starts(with: Array("<?xml".utf8)) || data.starts(with: Array("<plist".utf8)) else {
            throw PropertyListError(reason: "it is neither a binary nor an XML property list")
        }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw PropertyListError(reason: "the XML property list cannot be read (\(error.localizedDescription))")
        }
        return try PropertyListValue(foundationObject: object)
    }

    /// Converts what `PropertyListSerialization` returns.
    private init(foundationObject object: Any) throws {
        // Exact type checks first: on Linux a bridged number may also cast to Bool.
        switch object {
        case let flag as Bool where type(of: object) == Bool.self: self = .bool(flag)
        case let number as Int where type(of: object) == Int.self: self = .integer(Int64(number))
        case let number as Double where type(of: object) == Double.self: self = .real(number)
        case let text as String: self = .string(text)
        case let bytes as Data: self = .data(bytes)
        case let date as Date: self = .date(date)
        case let array as [Any]: self = .array(try array.map(PropertyListValue.init(foundationObject:)))
        case let dictionary as [String: Any]:
            if dictionary.count == 1, let uid = dictionary["CF$UID"] as? Int {
                self = .uid(uid)
            } else {
                self = .dictionary(try dictionary.mapValues(PropertyListValue.init(foundationObject:)))
            }
        case let number as NSNumber:
            self = ["f", "d"].contains(String(cString: number.objCType)) ? .real(number.doubleValue) : .integer(number.int64Value)
        default:
            // swift-corelibs-foundation turns `CF$UID` dictionaries into its internal
            // `_NSKeyedArchiverUID`, whose only way out is its stored `value`.
            if String(describing: type(of: object)) == "_NSKeyedArchiverUID",
               let value = Mirror(reflecting: object).children.first(where: { $0.label == "value" })?.value as? UInt32 {
                self = .uid(Int(value))
                return
            }
            throw PropertyListError(reason: "the property list holds a value of type \(type(of: object))")
        }
    }
}
