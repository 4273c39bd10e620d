import Foundation

/// Why a value cannot be stored in an attribute.
package struct ValueConversionFailure: Error {
    package let reason: String

    init(expected: NSAttributeType, value: Any) {
        reason = "expected a value of type \(expected.modelName), got \(type(of: value)) (\(value))"
    }

    init(reason: String) {
        self.reason = reason
    }
}

extension PrimitiveValue {
    /// Converts an application value for `attribute`: as for its type, and a composite's
    /// dictionary element by element (`CompositeValue.normalized`).
    package init(_ value: Any?, for attribute: NSAttributeDescription) throws(ValueConversionFailure) {
        if attribute.attributeType == .compositeAttributeType, let composite = attribute as? NSCompositeAttributeDescription,
           let value, !isNilOrNull(value) {
            self = .transformable(TransformableValue(value: try CompositeValue.normalized(value, for: composite)))
            return
        }
        try self.init(value, for: attribute.attributeType)
    }

    /// Converts an application value (Swift or Foundation type) for an attribute of `type`.
    package init(_ value: Any?, for type: NSAttributeType) throws(ValueConversionFailure) {
        guard let value, !isNilOrNull(value) else {
            self = .null
            return
        }
        let converted: PrimitiveValue? =
            switch type {
            case .integer16AttributeType: Self.integer(from: value, in: Int64(Int16.min)...Int64(Int16.max))
            case .integer32AttributeType: Self.integer(from: value, in: Int64(Int32.min)...Int64(Int32.max))
            case .integer64AttributeType: Self.integer(from: value, in: Int64.min...Int64.max)
            case .doubleAttributeType, .floatAttributeType: Self.double(from: value).map { .double($0) }
            case .decimalAttributeType: Self.decimal(from: value).map { .decimal($0) }
            case .booleanAttributeType: Self.bool(from: value).map { .bool($0) }
            case .stringAttributeType: Self.string(from: value).map { .string($0) }
            case .dateAttributeType: (value as? Date).map { .date($0) }
            case .binaryDataAttributeType: Self.data(from: value).map { .data($0) }
            case .UUIDAttributeType: ((value as? UUID) ?? (value as? String).flatMap(UUID.init(uuidString:))).map { .uuid($0) }
            case .URIAttributeType: ((value as? URL) ?? (value as? String).flatMap { URL(string: $0) }).map { .url($0) }
            case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType:
                .transformable(TransformableValue(value: value))
            case .objectIDAttributeType: (value as? NSManagedObjectID).map { .transformable(TransformableValue(value: $0)) }
            }
        guard let converted else { throw ValueConversionFailure(expected: type, value: value) }
        self = converted
    }

    /// The value as Core Data hands it out: numbers and Booleans as `NSNumber` (so `as? Int`,
    /// `as? Double` and `as? Bool` all work, as on Apple's platforms), the rest as Swift values.
    package func objectValue(for type: NSAttributeType) -> Any? {
        switch self {
        case .null: return nil
        case .integer(let value):
            switch type {
            case .integer16AttributeType: return NSNumber(value: Int16(truncatingIfNeeded: value))
            case .integer32AttributeType: return NSNumber(value: Int32(truncatingIfNeeded: value))
            default: return NSNumber(value: value)
            }
        case .double(let value):
            return type == .floatAttributeType ? NSNumber(value: Float(value)) : NSNumber(value: value)
        case .bool(let value): return NSNumber(value: value)
        case .string(let value): return value
        case .date(let value): return value
        case .data(let value): return value
        case .externalData(let value): return value.dataIfReadable
        case .uuid(let value): return value
        case .url(let value): return value
        case .decimal(let value): return value
        case .transformable(let box): return box.value
        }
    }

    private static func integer(from value: Any, in range: ClosedRange<Int64>) -> PrimitiveValue? {
        let number: Int64?
        switch value {
        case let value as Int: number = Int64(value)
        case let value as Int64: number = value
        case let value as Int32: number = Int64(value)
        case let value as Int16: number = Int64(value)
        case let value as Int8: number = Int64(value)
        case let value as UInt: number = Int64(exactly: value)
        case let value as UInt64: number = Int64(exactly: value)
        case let value as UInt32: number = Int64(value)
        case let value as UInt16: number = Int64(value)
        case let value as UInt8: number = Int64(value)
        case let value as Bool: number = value ? 1 : 0
        case let value as Double: number = Int64(exactly: value)
        case let value as Float: number = Int64(exactly: value)
        case let value as NSNumber: number = Int64(exactly: value.doubleValue) ?? value.int64Value
        default: number = nil
        }
        guard let number, range.contains(number) else { return nil }
        return .integer(number)
    }

    private static func double(from value: Any) -> Double? {
        switch value {
        case let value as Double: value
        case let value as Float: Double(value)
        case let value as Int: Double(value)
        case let value as Int64: Double(value)
        case let value as Int32: Double(value)
        case let value as Int16: Double(value)
        case let value as Decimal: value.nearestDouble
        case let value as NSNumber: value.doubleValue
        default: nil
        }
    }

    private static func decimal(from value: Any) -> Decimal? {
        switch value {
        case let value as Decimal: value
        case let value as Int: Decimal(value)
        case let value as Int64: Decimal(value)
        case let value as Double: Decimal(value)
        case let value as NSNumber: value.decimalValue
        default: nil
        }
    }

    private static func bool(from value: Any) -> Bool? {
        switch value {
        case let value as Bool: value
        case let value as Int: value != 0
        case let value as NSNumber: value.boolValue
        default: nil
        }
    }

    private static func string(from value: Any) -> String? {
        switch value {
        case let value as String: value
        case let value as Substring: String(value)
        case let value as NSString: value as String
        default: nil
        }
    }

    private static func data(from value: Any) -> Data? {
        switch value {
        case let value as Data: value
        case let value as [UInt8]: Data(value)
        default: nil
        }
    }
}
