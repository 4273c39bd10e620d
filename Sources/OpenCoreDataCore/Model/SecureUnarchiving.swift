import Foundation

/// Secure coding for keyed archives, checked before Foundation decodes anything: what
/// `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)` and
/// `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding: true)` promise, without
/// their failure mode on Linux — Foundation there stops the program on a class not allowed, or
/// not `NSSecureCoding`, rather than throwing.
///
/// Every class the archive names is resolved as the unarchiver resolves it (its `$classname`)
/// and checked by its real superclass chain, never by the class names the archive claims.
/// The root object must be of one of the top-level classes; a nested object of one of those or
/// of the nested classes (Apple checks a nested object against what its container's
/// `init(coder:)` asks for, which cannot be known before decoding).
package enum SecureUnarchiving {
    package struct Refused: Error, CustomStringConvertible {
        package let reason: String
        package var description: String { reason }
    }

    /// The data is not a keyed archive at all (bytes an attribute holds as they are).
    package struct NotAnArchive: Error, CustomStringConvertible {
        package var description: String { "the data is not a keyed archive" }
    }

    /// Foundation's property-list classes: what `NSSecureUnarchiveFromDataTransformer` allows
    /// by default, and what an archived container's contents may be.
    package static let propertyListClasses: [AnyClass] = [
        NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self,
        NSURL.self, NSUUID.self, NSNull.self,
    ]

    /// Whether `data` is a keyed archive (a property list with `$objects`), rather than other
    /// bytes an attribute holds as they are.
    package static func isKeyedArchive(_ data: Data) -> Bool {
        guard data.starts(with: Array("bplist00".utf8)),
              let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else { return false }
        return plist["$objects"] is [Any]
    }

    /// The archive's root object, when the archive holds only allowed classes.
    package static func object(from data: Data, topLevel: [AnyClass], nested: [AnyClass] = propertyListClasses) throws -> Any? {
        try checkClasses(in: data) { resolved in
            guard isKind(resolved, ofAny: topLevel + nested) else {
                throw Refused(reason: "the archive holds an object of class \(NSStringFromClass(resolved)), which is not allowed")
            }
        }
        let object = try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data)
        guard let object else { return nil }
        guard let root = object as? NSObject, isKind(type(of: root), ofAny: topLevel) else {
            throw Refused(reason: "the archive's root object, of class \(type(of: object)), is not one of the allowed classes")
        }
        return object
    }

    /// `value` archived, when every class it is archived as supports secure coding; nil when
    /// one does not, or the value cannot be archived at all.
    package static func archive(_ value: Any) -> Data? {
        // A value that is not `NSCoding` (a Swift struct), even inside a collection, would stop
        // the archiver.
        guard isCodable(value),
              let data = try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false)
        else { return nil }
        do {
            try checkClasses(in: data) { resolved in
                guard (resolved as? NSSecureCoding.Type)?.supportsSecureCoding == true else {
                    throw Refused(reason: "\(NSStringFromClass(resolved)) does not support secure coding")
                }
            }
            return data
        } catch {
            return nil
        }
    }

    /// Whether `value`, and every value inside it when it is a collection, is `NSCoding`.
    private static func isCodable(_ value: Any) -> Bool {
        switch value {
        case let array as [Any]: return array.allSatisfy(isCodable)
        case let dictionary as [AnyHashable: Any]: return dictionary.allSatisfy { isCodable($0.key.base) && isCodable($0.value) }
        case let set as Set<AnyHashable>: return set.allSatisfy { isCodable($0.base) }
        case let array as NSArray: return array.allSatisfy(isCodable)
        case let dictionary as NSDictionary: return dictionary.allSatisfy { isCodable($0.key) && isCodable($0.value) }
        case let set as NSSet: return set.allSatisfy(isCodable)
        default: return (value as AnyObject) is NSCoding
        }
    }

    /// Resolves each class descriptor of the archive and hands its class to `check`. A
    /// descriptor without a `$classname`, with `$classhints` (other classes the unarchiver
    /// would fall back to), or naming a class this process does not have is refused.
    private static func checkClasses(in data: Data, _ check: (AnyClass) throws -> Void) throws {
        guard data.starts(with: Array("bplist00".utf8)),
              let archive = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let objects = archive["$objects"] as? [Any] else { throw NotAnArchive() }
        for case let entry as [String: Any] in objects 
            where entry["$classes"] != nil || entry["$classname"] != nil || entry["$classhints"] != nil {
            guard let name = entry["$classname"] as? String, entry["$classhints"] == nil else {
                throw Refused(reason: "the archive describes a class in a way this check does not accept")
            }
            guard let resolved = NSKeyedUnarchiver.class(forClassName: name) ?? NSClassFromString(name) else {
                throw Refused(reason: "the archive holds an object of class \(name), which this process does not have")
            }
            try check(resolved)
            // The class the unarchiver builds instead, when the resolved one names another.
            if let substitute = (resolved as? NSObject.Type)?.classForKeyedUnarchiver(),
               ObjectIdentifier(substitute) != ObjectIdentifier(resolved) {
                try check(substitute)
            }
        }
    }

    /// Whether `candidate` is one of `classes` or inherits from one other than `NSObject`
    /// (which every class inherits from: listing it allows nothing more).
    private static func isKind(_ candidate: AnyClass, ofAny classes: [AnyClass]) -> Bool {
        var current: AnyClass? = candidate
        while let type = current, ObjectIdentifier(type) != ObjectIdentifier(NSObject.self) {
            if classes.contains(where: { ObjectIdentifier($0) == ObjectIdentifier(type) }) { return true }
            current = _getSuperclass(type)
        }
        return false
    }
}
