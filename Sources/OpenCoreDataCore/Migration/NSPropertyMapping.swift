import Foundation

/// How one property of a destination instance gets its value during a migration.
///
/// ```swift
/// let title = NSPropertyMapping()
/// title.name = "title"
/// title.valueExpression = NSExpression(format: "FUNCTION($source, 'valueForKey:', 'name')")
/// ```
/// An inferred mapping's expressions read the source instance's property of the same element
/// (`FUNCTION($source, "valueForKey:", "oldName")` for an attribute, and
/// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "oldName", $source.oldName)`
/// for a relationship); a property new in the model has no expression.
open class NSPropertyMapping: NSObject {

    /// The destination property's name.
    open var name: String?
    /// The value of the destination property, evaluated with `$source`, `$manager` and
    /// `$entityPolicy`; nil leaves the property at its default.
    open var valueExpression: NSExpression? {
        didSet { cachedSourceKey = nil }
    }
    /// `sourceKey`, worked out once per expression (a migration asks for every object).
    private var cachedSourceKey: String??
    open var userInfo: [AnyHashable: Any]?

    public override init() {}

    /// The source property an inferred (or equally simple) expression reads: the key of
    /// `FUNCTION($source, "valueForKey:", key)`, of `$source.key`, or the relationship named by
    /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", key, …)`.
    /// Nil when the expression computes something else, or there is none.
    package var sourcePropertyName: String? {
        guard let expression = valueExpression else { return nil }
        switch expression.expressionType {
        case .keyPath:
            // `$source.key`, parsed as a key path on the variable.
            let parts = expression.keyPath.split(separator: ".")
            return parts.count == 2 && parts[0] == "$source" ? String(parts[1]) : nil
        case .function:
            let arguments = expression.arguments ?? []
            switch (expression.operand?.expressionType, expression.operand?.variable, expression.function) {
            case (.variable?, "source", "valueForKey:"):
                return arguments.count == 1 ? arguments[0].constantValue as? String : nil
            case (.variable?, "manager", "destinationInstancesForSourceRelationshipNamed:sourceInstances:"):
                return arguments.first?.constantValue as? String
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// The key of the source instance an expression only reads (`$source.key`,
    /// `FUNCTION($source, "valueForKey:", key)`), which a migration reads directly, without
    /// evaluating the expression; nil for any other expression.
    package var sourceKey: String? {
        if let cachedSourceKey { return cachedSourceKey }
        let key = plainSourceKey
        cachedSourceKey = .some(key)
        return key
    }

    private var plainSourceKey: String? {
        guard let expression = valueExpression, expression.expressionType == .function,
              let operand = expression.operand, operand.expressionType == .variable, operand.variable == "source" else { return nil }
        let key = expression.functionKeyPath ?? (expression.function == "valueForKey:" ? expression.arguments?.first?.constantValue as? String : nil)
        guard let key, !key.isEmpty, !key.contains("."), !key.hasPrefix("@") else { return nil }
        return key
    }

    /// A mapping of `name` whose value is the source's property `sourceName`, as inference makes it.
    package static func copying(attribute sourceName: String, to name: String) -> NSPropertyMapping {
        let mapping = NSPropertyMapping()
        mapping.name = name
        mapping.valueExpression = NSExpression(forFunction: NSExpression(forVariable: "source"), selectorName: "valueForKey:",
                                               arguments: [NSExpression(forConstantValue: sourceName)])
        return mapping
    }

    /// A mapping of the relationship `name` to the destinations of the source's `sourceName`.
    package static func copying(relationship sourceName: String, to name: String) -> NSPropertyMapping {
        let mapping = NSPropertyMapping()
        mapping.name = name
        let sourceValue = NSExpression(forFunction: NSExpression(forVariable: "source"), selectorName: "valueForKey:",
                                       arguments: [NSExpression(forConstantValue: sourceName)])
        mapping.valueExpression = NSExpression(forFunction: NSExpression(forVariable: "manager"),
                                               selectorName: "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
                                               arguments: [NSExpression(forConstantValue: sourceName), sourceValue])
        return mapping
    }

    /// A mapping of a property new in the destination model.
    package static func adding(_ name: String) -> NSPropertyMapping {
        let mapping = NSPropertyMapping()
        mapping.name = name
        return mapping
    }
}
