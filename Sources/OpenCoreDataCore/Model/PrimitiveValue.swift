import Foundation

/// A property value as OpenCoreData keeps it in objects and row snapshots: a closed set of
/// value types, so that reading one is a switch rather than a dynamic cast, and snapshots can be
/// shared across threads.
///
/// The attribute's type says how a value is presented: `.integer` is an `Int16`, `Int32` or
/// `Int64` attribute; `.double` is a `Double` or `Float`.
@usableFromInline package enum PrimitiveValue: Sendable {
    case null
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case string(String)
    case date(Date)
    case data(Data)
    /// A binary value its store keeps outside the row, read at first use (`ExternalBinaryData`).
    case externalData(ExternalBinaryData)
    case uuid(UUID)
    case url(URL)
    indirect case decimal(Decimal)
    /// A value of a transformable attribute, as the application gave it.
    case transformable(TransformableValue)

    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// A transformable attribute's value: any Swift value, compared with `==` when it is `Hashable`.
@usableFromInline package struct TransformableValue: @unchecked Sendable {
    // @unchecked Sendable: Core Data treats attribute values as immutable values; an application
    // that mutates a shared reference type stored in a transformable attribute is already outside
    // Core Data's contract (changes are only noticed when a new value is set).

    /// Boxed, so that `PrimitiveValue` stays 17 bytes (an `Any` inline would make every value
    /// of every attribute 33).
    private final class Box {
        let value: Any
        init(_ value: Any) { self.value = value }
    }

    private let box: Box

    package init(value: Any) { box = Box(value) }

    package var value: Any { box.value }
}

extension PrimitiveValue: Equatable {
    /// Value equality with `isEqual:` semantics: numbers compare by value.
    @usableFromInline package static func == (lhs: PrimitiveValue, rhs: PrimitiveValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.integer(a), .integer(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.integer(a), .double(b)), let (.double(b), .integer(a)): return Double(a) == b
        case let (.bool(a), .bool(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.externalData(a), .externalData(b)):
            if a === b { return true }
            let (left, right) = (a.dataIfReadable, b.dataIfReadable)
            // One file, read by both or by neither (then equal as the same missing value).
            if a.location == b.location { return (left == nil) == (right == nil) }
            guard let left, let right else { return false }
            return left == right
        case let (.externalData(a), .data(b)), let (.data(b), .externalData(a)):
            return a.dataIfReadable == b
        case let (.uuid(a), .uuid(b)): return a == b
        case let (.url(a), .url(b)): return a == b
        case let (.decimal(a), .decimal(b)): return a == b
        case let (.transformable(a), .transformable(b)):
            if let a = a.value as? AnyHashable, let b = b.value as? AnyHashable { return a == b }
            if let a = a.value as? NSObject, let b = b.value as? NSObject { return a.isEqual(b) }
            // A composite attribute's value.
            if let a = a.value as? [String: Any], let b = b.value as? [String: Any] { return CompositeValue.areEqual(a, b) }
            return false
        default: return false
        }
    }
}

extension PrimitiveValue: Hashable {
    /// Consistent with `==`: an integer hashes as the double it equals, and a transformable value
    /// by its own hash when it has one.
    @usableFromInline package func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .integer(let value): hasher.combine(Double(value))
        case .double(let value): hasher.combine(value)
        case .bool(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .date(let value): hasher.combine(value)
        case .data(let value): hasher.combine(value)
        case .externalData(let value):
            // As the bytes, so that it hashes as the `.data` it equals.
            if let data = value.dataIfReadable { hasher.combine(data) } else { hasher.combine(value.location) }
        case .uuid(let value): hasher.combine(value)
        case .url(let value): hasher.combine(value)
        case .decimal(let value): hasher.combine(value)
        case .transformable(let box):
            if let value = box.value as? AnyHashable { hasher.combine(value) }
        }
    }
}
