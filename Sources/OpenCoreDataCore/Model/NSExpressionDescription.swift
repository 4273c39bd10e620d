import Foundation

/// A computed column of a dictionary fetch: an expression (an aggregate such as
/// `sum:(price)`, or a key path) with the name its value takes in the result dictionaries.
///
/// ```swift
/// let total = NSExpressionDescription()
/// total.name = "total"
/// total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "price")])
/// total.expressionResultType = .doubleAttributeType
/// request.resultType = .dictionaryResultType
/// request.propertiesToFetch = ["flag", total]
/// request.propertiesToGroupBy = ["flag"]
/// ```
/// The aggregates run in the store: `count:`, `sum:`, `average:`, `min:` and `max:` of a key
/// path (an attribute, possibly through to-one relationships).
open class NSExpressionDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: like every property description, not changed once in use.

    /// The expression whose value is fetched.
    public var expression: NSExpression?
    /// The type of the result (for example `.integer64AttributeType` for a count,
    /// `.doubleAttributeType` for an average); `.undefinedAttributeType` to take the type the
    /// aggregate gives.
    public var expressionResultType: NSAttributeType = .undefinedAttributeType

    override func emptyCopy() -> NSPropertyDescription { NSExpressionDescription(name: name) }

    override func copySettings(to copy: NSPropertyDescription) {
        super.copySettings(to: copy)
        guard let copy = copy as? NSExpressionDescription else { return }
        copy.expression = expression
        copy.expressionResultType = expressionResultType
    }
}

extension NSExpressionDescription {
    /// The type of the result: `expressionResultType` under Apple's Swift name.
    public var resultType: NSAttributeDescription.AttributeType {
        get { NSAttributeDescription.AttributeType(rawValue: expressionResultType) }
        set { expressionResultType = newValue.rawValue }
    }
}
