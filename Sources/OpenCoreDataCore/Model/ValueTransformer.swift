import Foundation
import Synchronization

/// The name a value transformer is registered under.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Turns values into other values and back; transformable attributes use one (named by
/// `valueTransformerName`) to turn their values into `Data` for storage.
///
/// Foundation on Linux has no `ValueTransformer`; this is Core Data's, with the same API:
/// ```swift
/// final class ColorTransformer: ValueTransformer {
///     override func transformedValue(_ value: Any?) -> Any? { … Data … }
///     override func reverseTransformedValue(_ value: Any?) -> Any? { … Color … }
/// }
/// ValueTransformer.setValueTransformer(ColorTransformer(), forName: .init("ColorTransformer"))
/// ```
open class ValueTransformer: @unchecked Sendable {
    // @unchecked Sendable: transformers are registered once and must be stateless, as in Foundation.

    private static let registry = Mutex<[NSValueTransformerName: ValueTransformer]>([:])

    public init() {}

    /// Registers `transformer` under `name` (nil removes the registration).
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        registry.withLock { $0[name] = transformer }
    }

    /// The transformer registered under `name`.
    public class func valueTransformer(forName name: NSValueTransformerName) -> ValueTransformer? {
        registry.withLock { $0[name] }
    }

    /// The names of every registered transformer.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        registry.withLock { Array($0.keys) }
    }

    /// Whether `reverseTransformedValue(_:)` is supported.
    open class func allowsReverseTransformation() -> Bool { true }

    /// The transformed value.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The value `transformedValue(_:)` came from.
    open func reverseTransformedValue(_ value: Any?) -> Any? { value }
}
