import Foundation

/// The value of an aggregate as a dictionary fetch returns it, the same for every store: a
/// count as an integer, a sum as an integer when its attribute is one (else a double), an
/// average as a double, a minimum or maximum in its attribute's type; then converted to the
/// description's `expressionResultType` when one is given.
package enum AggregateValue {
    /// From an aggregate computed in memory (or read from SQL): `value` is an Int64, a Double,
    /// a Decimal, a String or a Date.
    package static func make(_ function: AggregateFunction, value: Any?, attribute: NSAttributeDescription?,
                     resultType: NSAttributeType) -> Any? {
        guard let value else { return nil }
        let attributeType = attribute?.attributeType ?? .undefinedAttributeType
        var natural: Any = value
        switch function {
        case .count:
            natural = NSNumber(value: integer(value))
        case .average:
            natural = NSNumber(value: double(value))
        case .sum:
            natural = attributeType.isInteger || attributeType == .booleanAttributeType
                ? NSNumber(value: integer(value)) : NSNumber(value: double(value))
        case .min, .max:
            switch attributeType {
            case .dateAttributeType: natural = (value as? Date) ?? Date(timeIntervalSinceReferenceDate: double(value))
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
                natural = NSNumber(value: integer(value))
            case .doubleAttributeType, .floatAttributeType, .decimalAttributeType: natural = NSNumber(value: double(value))
            default: natural = value
            }
        }
        return convert(natural, to: resultType)
    }

    private static func convert(_ value: Any, to type: NSAttributeType) -> Any {
        guard let number = value as? NSNumber else { return value }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return NSNumber(value: Int64(number.doubleValue.rounded(.towardZero)))
        case .doubleAttributeType, .floatAttributeType: return NSNumber(value: number.doubleValue)
        case .decimalAttributeType: return Decimal(string: "\(number.doubleValue)") ?? Decimal(number.doubleValue)
        case .booleanAttributeType: return NSNumber(value: number.doubleValue != 0)
        case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: number.doubleValue)
        default: return number
        }
    }

    private static func integer(_ value: Any) -> Int64 {
        switch value {
        case let value as Int64: value
        case let value as Double: Int64(value.rounded(.towardZero))
        case let value as NSNumber: value.int64Value
        case let value as Decimal: Int64(value.nearestDouble.rounded(.towardZero))
        default: 0
        }
    }

    /// A number, decimal or date as a double (a date as seconds since the reference date, as
    /// SQL stores it); anything else as 0, as SQL's SUM and AVG count text.
    static func double(_ value: Any) -> Double {
        switch value {
        case let value as Int64: Double(value)
        case let value as Int: Double(value)
        case let value as Double: value
        case let value as NSNumber: value.doubleValue
        case let value as Decimal: value.nearestDouble
        case let value as Date: value.timeIntervalSinceReferenceDate
        default: 0
        }
    }
}
