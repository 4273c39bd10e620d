import Foundation

/// A value in a predicate: a constant, a key path, the evaluated object, a variable, a
/// collection of expressions, or a function.
///
/// ```swift
/// NSExpression(forKeyPath: "owner.name")
/// NSExpression(forConstantValue: 42)
/// ```
open class NSExpression: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: immutable once built.

    /// The kinds of expression. Raw values as Foundation's.
    public enum ExpressionType: UInt, Sendable {
        case constantValue = 0
        case evaluatedObject = 1
        case variable = 2
        case keyPath = 3
        case function = 4
        case aggregate = 14
    }

    public let expressionType: ExpressionType
    private let constant: Any?
    /// The key path, variable name or function name.
    private let name: String?
    /// An aggregate's members, or a function's arguments.
    private let elements: [NSExpression]?
    /// The target of a function called as a method (`FUNCTION(target, "selector", …)`).
    private let target: NSExpression?

    private init(type: ExpressionType, constant: Any? = nil, name: String? = nil, elements: [NSExpression]? = nil,
                 target: NSExpression? = nil) {
        self.expressionType = type
        self.constant = constant
        self.name = name
        self.elements = elements
        self.target = target
    }

    /// A constant: a number, string, date, object, `nil`, or an array of such.
    public convenience init(forConstantValue value: Any?) {
        self.init(type: .constantValue, constant: value)
    }

    /// A key path (`"age"`, `"owner.name"`) read from the evaluated object.
    public convenience init(forKeyPath keyPath: String) {
        self.init(type: .keyPath, name: keyPath)
    }

    /// A `$variable` replaced through `withSubstitutionVariables(_:)`.
    public convenience init(forVariable name: String) {
        self.init(type: .variable, name: name)
    }

    /// A collection of expressions (`{1, 2, 3}`).
    public convenience init(forAggregate subexpressions: [NSExpression]) {
        self.init(type: .aggregate, elements: subexpressions)
    }

    /// A function of the predicate language applied to `arguments` (expressions; other values
    /// become constants): `now()`, `count:(pages)`.
    ///
    /// Evaluated in memory: `now` and `count:`; other functions evaluate to nil. The SQLite
    /// store does not run function expressions (a key path with a collection operator such as
    /// `pages.@count` is the form it runs).
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        self.init(type: .function, name: name, elements: parameters.map(Self.expression(wrapping:)))
    }

    /// The method `selectorName` called on what `target` evaluates to, with `arguments`.
    ///
    /// ```swift
    /// // $FETCH_SOURCE.alias, as Core Data archives it:
    /// NSExpression(forFunction: NSExpression(forVariable: "FETCH_SOURCE"), selectorName: "valueForKeyPath:",
    ///              arguments: [NSExpression(forKeyPath: "alias")])
    /// ```
    /// Only `valueForKey:` and `valueForKeyPath:` (a key path read from the target) are
    /// evaluated; other selectors evaluate to nil. Once the target is a constant (a variable
    /// substituted), the key path is read and the expression becomes a constant.
    public convenience init(forFunction target: NSExpression, selectorName name: String, arguments parameters: [Any]?) {
        self.init(type: .function, name: name, elements: (parameters ?? []).map(Self.expression(wrapping:)), target: target)
    }

    private static func expression(wrapping value: Any) -> NSExpression {
        value as? NSExpression ?? NSExpression(forConstantValue: value)
    }

    /// The evaluated object itself (`SELF`).
    public class func expressionForEvaluatedObject() -> NSExpression {
        NSExpression(type: .evaluatedObject)
    }

    /// The constant of a constant expression (the array of values of an aggregate of constants).
    public var constantValue: Any? {
        if expressionType == .aggregate { return elements?.map { $0.constantValue as Any } }
        return constant
    }

    /// The key path of a key-path expression.
    public var keyPath: String { name ?? "" }

    /// The name of a variable expression.
    public var variable: String { name ?? "" }

    /// The subexpressions of an aggregate expression.
    public var collection: [NSExpression] { elements ?? [] }

    /// The function (or selector) name of a function expression.
    public var function: String { expressionType == .function ? name ?? "" : "" }

    /// The arguments of a function expression; nil for other expressions.
    public var arguments: [NSExpression]? { expressionType == .function ? elements ?? [] : nil }

    /// The target of a function expression made with `init(forFunction:selectorName:arguments:)`;
    /// nil for other expressions.
    public var operand: NSExpression? { target }

    /// Whether this is `target.keyPath`: `valueForKey:` or `valueForKeyPath:` with one argument.
    private var isKeyPathFunction: Bool {
        expressionType == .function && target != nil && (name == "valueForKeyPath:" || name == "valueForKey:")
            && elements?.count == 1
    }

    /// The key path argument of a key-path function (a key-path expression or a string constant).
    private var functionKeyPath: String? {
        guard isKeyPathFunction, let argument = elements?.first else { return nil }
        return argument.expressionType == .keyPath ? argument.keyPath : argument.constant as? String
    }

    /// The value of the expression for `object`.
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        value(for: object, variables: nil)
    }

    func value(for object: Any?, variables: [String: Any]?) -> Any? {
        switch expressionType {
        case .constantValue: return constant
        case .evaluatedObject: return object
        case .keyPath: return KeyPathValue.value(of: object, keyPath: keyPath)
        case .variable: return variables?[variable]
        case .aggregate: return collection.map { $0.value(for: object, variables: variables) as Any }
        case .function: return functionValue(for: object, variables: variables)
        }
    }

    private func functionValue(for object: Any?, variables: [String: Any]?) -> Any? {
        if let target {
            guard let path = functionKeyPath else { return nil }
            return KeyPathValue.value(of: target.value(for: object, variables: variables), keyPath: path)
        }
        switch name {
        case "now": return Date()
        case "count:":
            guard let argument = elements?.first, elements?.count == 1 else { return nil }
            return ValueComparison.elements(of: argument.value(for: object, variables: variables)).count
        default: return nil
        }
    }

    func substituting(_ variables: [String: Any]) -> NSExpression {
        switch expressionType {
        case .variable:
            guard let value = variables[variable] else { return self }
            return NSExpression(forConstantValue: value)
        case .aggregate:
            return NSExpression(forAggregate: collection.map { $0.substituting(variables) })
        case .function:
            let substituted = NSExpression(type: .function, name: name, elements: elements?.map { $0.substituting(variables) },
                                           target: target?.substituting(variables))
            // `$FETCH_SOURCE.alias` with the object known reads nothing of the evaluated object:
            // fold it to a constant, which is what the stores compare against.
            if substituted.isKeyPathFunction, substituted.target?.expressionType == .constantValue {
                return NSExpression(forConstantValue: substituted.value(for: nil, variables: nil))
            }
            return substituted
        default:
            return self
        }
    }

    /// The expression in format-string syntax.
    public var description: String {
        switch expressionType {
        case .constantValue: return PredicateFormatting.literal(constant)
        case .evaluatedObject: return "SELF"
        case .keyPath: return PredicateFormatting.keyPath(keyPath)
        case .variable: return "$\(variable)"
        case .aggregate: return "{" + collection.map(\.description).joined(separator: ", ") + "}"
        case .function: return functionDescription
        }
    }

    private var functionDescription: String {
        let arguments = (elements ?? []).map(\.description)
        guard let target else { return "\(name ?? "FUNCTION")(\(arguments.joined(separator: ", ")))" }
        if let path = functionKeyPath { return "\(target).\(PredicateFormatting.keyPath(path))" }
        return "FUNCTION(" + ([target.description, PredicateFormatting.literal(name)] + arguments).joined(separator: ", ") + ")"
    }
}
