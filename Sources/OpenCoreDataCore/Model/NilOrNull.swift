import Foundation

/// Whether `value` is nil or `NSNull`, the two ways Core Data's APIs spell "no value".
///
/// Compares the value's class with `NSNull`'s rather than casting: on Linux, `value is NSNull`
/// asks the runtime whether a Swift value bridges to `NSNull`, which costs about a hundred
/// nanoseconds for a string or a number and a microsecond for an array, on paths that run for
/// every object a predicate looks at. (An `NSNull` subclass, which nothing makes, is not taken
/// for null.)
@inline(__always)
package func isNilOrNull(_ value: Any?) -> Bool {
    guard let value else { return true }
    return ObjectIdentifier(type(of: value)) == ObjectIdentifier(NSNull.self)
}
