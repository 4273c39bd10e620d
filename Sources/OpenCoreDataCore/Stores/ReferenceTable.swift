import Foundation

/// The reference objects of an `NSIncrementalStore`'s object IDs. An object ID names its row by
/// a 64-bit key (what uniquing and the registry are built on); for a store of your own, whose
/// rows are known by strings, numbers or other values, this table gives each (entity, reference)
/// pair a key of its own and keeps the reference to give back.
final class ReferenceTable: @unchecked Sendable {
    // @unchecked Sendable: every field is touched only under `lock`.
    private let lock = NSLock()
    private var keys: [Entry: Int64] = [:]
    private var references: [Int64: Any] = [:]
    private var lastKey: Int64 = 0

    private struct Entry: Hashable {
        let entity: ObjectIdentifier
        let reference: AnyHashable
    }

    /// The key of `reference` for `entity`, made on first use.
    func key(for reference: Any, entity: NSEntityDescription) -> Int64 {
        let entry = Entry(entity: ObjectIdentifier(entity), reference: Self.normalized(reference))
        return lock.withLock {
            if let key = keys[entry] { return key }
            lastKey += 1
            keys[entry] = lastKey
            references[lastKey] = reference
            return lastKey
        }
    }

    /// The reference a key was made for.
    func reference(for key: Int64) -> Any? {
        lock.withLock { references[key] }
    }

    /// The reference as a URI shows it: integers in decimal, anything else by its description,
    /// percent-encoded (a `/` included).
    func uriComponent(for key: Int64) -> String? {
        guard let reference = reference(for: key) else { return nil }
        if case let number as Int64 = Self.normalized(reference).base { return String(number) }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        let text = (reference as? String) ?? "\(reference)"
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The reference a URI's (decoded) component names for `entity`: the string, when the
    /// store already knows it as a string; else an integer when it reads as one (and writes
    /// back the same way), else the string.
    func reference(fromURIComponent text: String, entity: NSEntityDescription) -> Any {
        let knownAsText = lock.withLock { keys[Entry(entity: ObjectIdentifier(entity), reference: AnyHashable(text))] != nil }
        if !knownAsText, let number = Int64(text), String(number) == text { return number }
        return text
    }

    /// One hashable form for equal references: integers of every width (and integral numbers)
    /// as `Int64`, so that `7`, `Int64(7)` and `NSNumber(7)` name one row.
    static func normalized(_ reference: Any) -> AnyHashable {
        switch reference {
        case let text as String: return AnyHashable(text)
        case let number as Int: return AnyHashable(Int64(number))
        case let number as Int64: return AnyHashable(number)
        case let number as Int32: return AnyHashable(Int64(number))
        case let number as Int16: return AnyHashable(Int64(number))
        case let number as UInt32: return AnyHashable(Int64(number))
        case let number as NSNumber where Double(number.int64Value) == number.doubleValue: return AnyHashable(number.int64Value)
        case let hashable as AnyHashable: return hashable
        default:
            preconditionFailure("A reference object must be hashable (a string, a number, …), not \(type(of: reference))")
        }
    }
}

/// A store whose object IDs stand for reference objects of its own (`NSIncrementalStore`, and
/// `NSAtomicStore`s of your own): their URIs carry the references.
protocol ReferenceObjectStore: NSPersistentStore {
    /// The store's references; nil when its keys are its references (the built-in atomic stores).
    var referenceTable: ReferenceTable? { get }
    /// The ID of the object of `entity` known by `reference`.
    func objectID(for entity: NSEntityDescription, reference: Any) -> NSManagedObjectID
}

extension NSIncrementalStore: ReferenceObjectStore {
    var referenceTable: ReferenceTable? { references }
    func objectID(for entity: NSEntityDescription, reference: Any) -> NSManagedObjectID { newObjectID(for: entity, referenceObject: reference) }
}

extension NSAtomicStore: ReferenceObjectStore {
    var referenceTable: ReferenceTable? { builtInFile == nil ? references : nil }
    func objectID(for entity: NSEntityDescription, reference: Any) -> NSManagedObjectID { objectID(for: entity, withReferenceObject: reference) }
}
