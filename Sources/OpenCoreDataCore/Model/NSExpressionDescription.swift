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

    public override init(name: String = "") {
        super.init(name: name)
    }

    override func emptyCopy() -> NSPropertyDescription { NSExpressionDescription(name: name) }

    /// Decodes an expression description that `encode(with:)` archived (`NSCoding`): its name,
    /// expression and result type. Nil when the coder holds none (an unarchiver then reports
    /// that the class failed to decode).
    public required init?(coder: NSCoder) {
        super.init(name: "")
        do {
            guard let name = coder.decodeObject(of: NSString.self, forKey: Keys.name) else {
                throw KeyedArchiveError(reason: "the coder holds no archived expression description (\(Keys.name))")
            }
            self.name = String(name)
            let rawType = coder.decodeInteger(forKey: Keys.resultType)
            guard rawType >= 0, let resultType = NSAttributeType(rawValue: UInt(rawType)) else {
                throw KeyedArchiveError(reason: "the archived expression description's result type \(rawType) is not an attribute type")
            }
            expressionResultType = resultType
            if coder.containsValue(forKey: Keys.expression), let archived = coder.decodeObject(of: NSData.self, forKey: Keys.expression) {
                let archive = try KeyedArchive(data: Data(archived))
                var decoder = KeyedArchivePredicateDecoder()
                expression = try decoder.expression(try archive.rootObject().asObject("the archived expression"))
            }
        } catch {
            DescriptionArchive.report(error, to: coder)
            return nil
        }
    }

    /// Archives the name, the expression (as Foundation archives an `NSExpression`) and the
    /// result type (`NSCoding`), under keys of OpenCoreData's own.
    ///
    /// Difference from Core Data: the keys differ from Apple's, and the user info and other
    /// settings every property has are not archived. An expression the archive cannot hold (a
    /// block, a subquery) encodes nothing, and decodes as nil.
    open override func encode(with coder: NSCoder) {
        var archived: Data?
        if let expression {
            var writer = KeyedArchiveWriter()
            guard case .uid(let root)? = try? KeyedArchivePredicateEncoder.expression(expression, into: &writer) else { return }
            archived = writer.archive(root: root)
        }
        coder.encode(name as NSString, forKey: Keys.name)
        coder.encode(Int(expressionResultType.rawValue), forKey: Keys.resultType)
        if let archived { coder.encode(archived as NSData, forKey: Keys.expression) }
    }

    private enum Keys {
        static let name = "OCDExpressionDescriptionName"
        static let expression = "OCDExpressionDescriptionExpression"
        static let resultType = "OCDExpressionDescriptionResultType"
    }

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
