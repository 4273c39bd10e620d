import Foundation

/// How a set-valued property changes, as the set-mutation brackets of `NSManagedObject` name it
/// (`willChangeValue(forKey:withSetMutation:using:)`); raw values as Foundation's on Apple's
/// platforms, where this type is Foundation's. Foundation on Linux has no key-value observing and
/// no such type, so OpenCoreData declares it for Core Data code (an app's to-many accessors)
/// that names it.
///
/// ```swift
/// willChangeValue(forKey: "tags", withSetMutation: .union, using: [tag])
/// primitiveTags.insert(tag)
/// didChangeValue(forKey: "tags", withSetMutation: .union, using: [tag])
/// ```
public enum NSKeyValueSetMutationKind: UInt, Sendable {
    /// Objects added (`union(_:)`).
    case union = 1
    /// Objects removed (`subtract(_:)`).
    case minus = 2
    /// Objects kept only if in the given set (`formIntersection(_:)`).
    case intersect = 3
    /// The set replaced.
    case set = 4
}
