import Foundation

/// Unarchives a keyed archive only when every class it names is allowed: what
/// `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)` promises, without its failure mode on
/// Linux — Foundation there stops the program on a class not allowed rather than throwing.
///
/// A class is allowed when it, or a class it inherits from other than `NSObject`, is one of
/// `classes` (so `NSMutableArray` is allowed by `NSArray`). Every object of the archive is
/// checked, nested ones too, against the same list — stricter than Apple's, which checks a
/// nested object against the classes its container's `init(coder:)` asks for.
package enum SecureUnarchiving {
    package struct NotAllowed: Error, CustomStringConvertible {
        package let className: String
        package var description: String { "the archive holds an object of class \(className), which is not allowed" }
    }

    package struct NotAnArchive: Error, CustomStringConvertible {
        package var description: String { "the data is not a keyed archive" }
    }

    /// The archive's root object, when every class in it is allowed.
    package static func object(from data: Data, allowing classes: [AnyClass]) throws -> Any? {
        let allowed = Set(classes.map { NSStringFromClass($0) })
        try checkClasses(in: data, allowed: allowed)
        return try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data)
    }

    /// Throws `NotAllowed` for the first class descriptor of the archive none of whose class
    /// names is allowed.
    private static func checkClasses(in data: Data, allowed: Set<String>) throws {
        guard let archive = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let objects = archive["$objects"] as? [Any] else { throw NotAnArchive() }
        for case let descriptor as [String: Any] in objects {
            guard let name = descriptor["$classname"] as? String else { continue }
            let lineage = (descriptor["$classes"] as? [String] ?? [name]).filter { $0 != "NSObject" }
            guard lineage.contains(where: allowed.contains) else { throw NotAllowed(className: name) }
        }
    }
}
