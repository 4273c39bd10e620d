import Foundation
import Synchronization

/// The name a value transformer is registered under.
///
/// ```swift
/// extension NSValueTransformerName {
///     static let colorTransformerName = NSValueTransformerName("ColorTransformer")
/// }
/// ```
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

extension NSValueTransformerName {
    /// Turns a boolean `NSNumber` into its negation.
    public static let negateBooleanTransformerName = NSValueTransformerName("NSNegateBoolean")
    /// Answers whether the value is nil (an `NSNumber` holding a boolean).
    public static let isNilTransformerName = NSValueTransformerName("NSIsNil")
    /// Answers whether the value is not nil (an `NSNumber` holding a boolean).
    public static let isNotNilTransformerName = NSValueTransformerName("NSIsNotNil")
    /// Deprecated by Apple: unarchives data without checking classes (Apple's uses the
    /// non-keyed `NSUnarchiver`, which Linux does not have; here it reads keyed archives).
    public static let unarchiveFromDataTransformerName = NSValueTransformerName("NSUnarchiveFromData")
    /// Deprecated by Apple: unarchives data with `NSKeyedUnarchiver`, without checking classes.
    public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")
    /// `NSSecureUnarchiveFromDataTransformer`: unarchives data with `NSKeyedUnarchiver`, allowing
    /// only its `allowedTopLevelClasses`.
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
}

/// Turns values into other values and back; transformable attributes use one (named by
/// `valueTransformerName`) to turn their values into `Data` for storage.
///
/// Foundation on Linux has no `ValueTransformer`; this is Foundation's, with the same API: an
/// `NSObject` subclass, the named registry with Foundation's built-in transformers
/// (`NSNegateBoolean`, `NSIsNil`, `NSIsNotNil`, `NSKeyedUnarchiveFromData`,
/// `NSSecureUnarchiveFromData`) and `ValueTransformer(forName:)`.
/// ```swift
/// final class ColorTransformer: ValueTransformer {
///     override class func transformedValueClass() -> AnyClass { NSData.self }
///     override func transformedValue(_ value: Any?) -> Any? { … Data … }
///     override func reverseTransformedValue(_ value: Any?) -> Any? { … Color … }
/// }
/// ValueTransformer.setValueTransformer(ColorTransformer(), forName: .init("ColorTransformer"))
/// let transformer = ValueTransformer(forName: .init("ColorTransformer"))
/// ```
/// A transformer is registered once and must not change afterwards: contexts on any thread use
/// it, as on Apple's platforms.
open class ValueTransformer: NSObject {
    public override init() {}

    /// A registered transformer; Sendable because registered transformers are stateless (as
    /// Foundation requires of them) and never change once registered.
    private struct Registered: @unchecked Sendable {
        let transformer: ValueTransformer
    }

    private static let registry = Mutex<[NSValueTransformerName: Registered]>(builtIns())

    private static func builtIns() -> [NSValueTransformerName: Registered] {
        [.negateBooleanTransformerName: Registered(transformer: NegateBooleanTransformer()),
         .isNilTransformerName: Registered(transformer: IsNilTransformer(nilAnswer: true)),
         .isNotNilTransformerName: Registered(transformer: IsNilTransformer(nilAnswer: false)),
         .unarchiveFromDataTransformerName: Registered(transformer: KeyedUnarchiveFromDataTransformer()),
         .keyedUnarchiveFromDataTransformerName: Registered(transformer: KeyedUnarchiveFromDataTransformer()),
         .secureUnarchiveFromDataTransformerName: Registered(transformer: NSSecureUnarchiveFromDataTransformer())]
    }

    /// Registers `transformer` under `name` (nil removes the registration).
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        registry.withLock { $0[name] = transformer.map(Registered.init) }
    }

    /// The transformer registered under `name`. Apple's Swift API spells it
    /// `ValueTransformer(forName:)`, which is here too; this form is an OpenCoreData addition.
    public class func valueTransformer(forName name: NSValueTransformerName) -> ValueTransformer? {
        registry.withLock { $0[name]?.transformer }
    }

    /// The names of every registered transformer, Foundation's built-in ones included.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        registry.withLock { Array($0.keys) }
    }

    /// The class of the values `transformedValue(_:)` returns.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether `reverseTransformedValue(_:)` is supported.
    open class func allowsReverseTransformation() -> Bool { true }

    /// The transformed value.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The value `transformedValue(_:)` came from.
    open func reverseTransformedValue(_ value: Any?) -> Any? { value }
}

/// Gives `ValueTransformer` its Swift initializer `init?(forName:)`, which answers the registered
/// transformer itself (Swift lets only a protocol extension's initializer replace `self`).
public protocol ValueTransformerLookup {}

extension ValueTransformer: ValueTransformerLookup {}

extension ValueTransformerLookup where Self: ValueTransformer {
    /// The transformer registered under `name`, or nil when none is (or it is not of this class).
    ///
    /// ```swift
    /// let negate = ValueTransformer(forName: .negateBooleanTransformerName)
    /// negate?.transformedValue(NSNumber(value: true))   // false
    /// ```
    public init?(forName name: NSValueTransformerName) {
        guard let transformer = ValueTransformer.valueTransformer(forName: name) as? Self else { return nil }
        self = transformer
    }
}

/// A transformer whose forward direction turns archived data into an object — Foundation's
/// unarchive-from-data transformers. Core Data runs them backwards for a transformable
/// attribute: `reverseTransformedValue(_:)` archives the value to store it and
/// `transformedValue(_:)` reads it back.
package protocol UnarchivingTransformer: ValueTransformer {}

/// Unarchives data with `NSKeyedUnarchiver` when its root object is of one of
/// `allowedTopLevelClasses`; archives values whose classes support secure coding.
/// The transformer Core Data's models name by default for transformable attributes.
///
/// ```swift
/// final class ColorTransformer: NSSecureUnarchiveFromDataTransformer {
///     override class var allowedTopLevelClasses: [AnyClass] { [Color.self] }
/// }
/// ValueTransformer.setValueTransformer(ColorTransformer(), forName: .init("ColorTransformer"))
/// ```
/// Name it as a transformable attribute's `valueTransformerName`: the store archives the value
/// with `reverseTransformedValue(_:)` and reads it back with `transformedValue(_:)`, which
/// answers nil for an archive whose root is of another class.
///
/// Difference from Foundation: the archive's classes are checked before anything is decoded —
/// a nested object must be of an allowed class or a property-list class (Apple checks it
/// against what its container's `init(coder:)` asks for) — because Foundation on Linux stops
/// the program on a class not allowed instead of failing.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer, UnarchivingTransformer {
    /// The classes an archive may hold at its top: Foundation's property-list classes.
    open class var allowedTopLevelClasses: [AnyClass] { SecureUnarchiving.propertyListClasses }

    open override class func allowsReverseTransformation() -> Bool { true }

    open override class func transformedValueClass() -> AnyClass { NSObject.self }

    /// The object archived in `value` (a `Data`), or nil when it is not an archive or holds a
    /// class not allowed.
    open override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? SecureUnarchiving.object(from: data, topLevel: type(of: self).allowedTopLevelClasses)
    }

    /// `value` archived, or nil when it cannot be archived with secure coding (a class that is
    /// not `NSSecureCoding`, a Swift value that is not `NSCoding`).
    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return SecureUnarchiving.archive(value)
    }
}

/// `NSKeyedUnarchiveFromData` (deprecated by Apple): unarchives any class.
private final class KeyedUnarchiveFromDataTransformer: ValueTransformer, UnarchivingTransformer {
    override class func transformedValueClass() -> AnyClass { NSObject.self }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false)
    }
}

/// `NSNegateBoolean`: a boolean's negation, both ways.
private final class NegateBooleanTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSNumber.self }

    override func transformedValue(_ value: Any?) -> Any? {
        NSNumber(value: !Self.bool(value))
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        NSNumber(value: !Self.bool(value))
    }

    private static func bool(_ value: Any?) -> Bool {
        (value as? NSNumber)?.boolValue ?? (value as? Bool) ?? false
    }
}

/// `NSIsNil` and `NSIsNotNil`: whether the value is nil; one way only.
private final class IsNilTransformer: ValueTransformer {
    private let nilAnswer: Bool

    init(nilAnswer: Bool) {
        self.nilAnswer = nilAnswer
    }

    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { false }

    override func transformedValue(_ value: Any?) -> Any? {
        NSNumber(value: (value == nil) == nilAnswer)
    }
}
