import Foundation

/// A Foundation `Predicate` (from `#Predicate`) that has no `NSPredicate` equivalent, naming the
/// part that could not be translated.
public struct PredicateConversionError: Error, CustomStringConvertible, Sendable {
    /// The expression node (its Swift type) that could not be translated.
    public let expression: String
    /// Why.
    public let reason: String

    public var description: String { "Can't turn the #Predicate into an NSPredicate: \(reason) (in \(expression))" }
}

extension NSPredicate {
    /// The `NSPredicate` equivalent of a Foundation `#Predicate`, so that it runs in the store
    /// (as SQL in the SQLite store), as on Apple's platforms since iOS 17; nil when the predicate
    /// uses something that has no equivalent.
    ///
    /// ```swift
    /// request.predicate = NSPredicate(#Predicate<Person> { $0.age >= 18 && $0.name.contains("a") })
    /// ```
    /// Use `init(validating:)` to learn what could not be translated.
    public convenience init?<Input>(_ predicate: Predicate<Input>) {
        guard let converted = try? PredicateConversion.convert(predicate) else { return nil }
        self.init(wrapping: converted)
    }

    /// As `init(_:)`, throwing a `PredicateConversionError` that names the expression that has
    /// no `NSPredicate` equivalent.
    ///
    /// What translates: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`), `&&`, `||`, `!`,
    /// constants and `nil`, key paths (through optional chaining: `$0.owner?.name`), `??`,
    /// `+ - *`, `/` (integer division truncating, as Swift's), `%`, unary minus, the ternary operator, `contains` (a string's substring → CONTAINS;
    /// a constant collection's element → IN; a to-many's member → CONTAINS), `starts(with:)`
    /// (BEGINSWITH), `contains(where:)` and
    /// `allSatisfy` over a to-many (SUBQUERY), and a collection's `count` and `isEmpty`.
    ///
    /// How key paths are named: a `@Managed` property's key path is resolved through the model:
    /// its class's entity (the one `managedObjectClass` registered it for) reads the property
    /// once on an object in no context and learns which model property it is. Another stored
    /// property's key path names itself (`\Point.x` is `x`), read from Swift's description of
    /// the key path. A collection's `count` and `isEmpty`, and a string's `count`, are
    /// recognised by their types. Whether a name is a property of the fetched entity is checked
    /// when the fetch runs (134091, naming the key path).
    public convenience init<Input>(validating predicate: Predicate<Input>) throws {
        self.init(wrapping: try PredicateConversion.convert(predicate))
    }
}

/// Walks a Foundation predicate's expression tree (each node type conforms to one of the
/// protocols below) and builds the equivalent `NSPredicate`.
struct PredicateConversion {
    /// Variables and what they stand for: the predicate's input (`SELF`), a SUBQUERY's member
    /// (`$x1`), or the value an optional chain unwrapped.
    private var variables: [PredicateExpressions.VariableID: NSExpression] = [:]
    private var nextVariable = 1

    static func convert<Input>(_ predicate: Predicate<Input>) throws -> NSPredicate {
        var conversion = PredicateConversion()
        conversion.variables[predicate.variable.key] = NSExpression.expressionForEvaluatedObject()
        return try conversion.predicate(of: predicate.expression)
    }

    mutating func predicate(of node: Any) throws -> NSPredicate {
        if let convertible = node as? any NSPredicateConvertibleNode { return try convertible.nsPredicate(&self) }
        // A Boolean value used as a condition (`$0.isActive`).
        if let convertible = node as? any NSExpressionConvertibleNode {
            return NSComparisonPredicate(leftExpression: try convertible.nsExpression(&self),
                                         rightExpression: NSExpression(forConstantValue: true), modifier: .direct, type: .equalTo)
        }
        throw Self.unsupported(node)
    }

    mutating func expression(of node: Any) throws -> NSExpression {
        if let convertible = node as? any NSExpressionConvertibleNode { return try convertible.nsExpression(&self) }
        throw Self.unsupported(node)
    }

    func expression(forVariable id: PredicateExpressions.VariableID) throws -> NSExpression {
        guard let expression = variables[id] else {
            throw PredicateConversionError(expression: "a variable", reason: "the variable is not bound")
        }
        return expression
    }

    /// Runs `body` with `id` standing for `expression`.
    mutating func with<T>(_ id: PredicateExpressions.VariableID, as expression: NSExpression,
                          _ body: (inout PredicateConversion) throws -> T) rethrows -> T {
        let saved = variables[id]
        variables[id] = expression
        defer { variables[id] = saved }
        return try body(&self)
    }

    /// A fresh SUBQUERY variable name.
    mutating func newVariableName() -> String {
        defer { nextVariable += 1 }
        return "x\(nextVariable)"
    }

    static func unsupported(_ node: Any, _ reason: String? = nil) -> PredicateConversionError {
        let name = String(describing: type(of: node))
        return PredicateConversionError(expression: name, reason: reason ?? "\(name.prefix { $0 != "<" }) has no NSPredicate equivalent")
    }

    static func comparison(_ left: NSExpression, _ type: NSComparisonPredicate.Operator, _ right: NSExpression,
                           options: NSComparisonPredicate.Options = []) -> NSPredicate {
        NSComparisonPredicate(leftExpression: left, rightExpression: right, modifier: .direct, type: type, options: options)
    }

    /// `base.path` for a key path continued from `base`.
    static func keyPath(_ path: String, on base: NSExpression) -> NSExpression {
        switch base.expressionType {
        case .evaluatedObject: NSExpression(forKeyPath: path)
        case .keyPath: NSExpression(forKeyPath: base.keyPath + "." + path)
        default: NSExpression(forFunction: base, selectorName: "valueForKeyPath:", arguments: [NSExpression(forKeyPath: path)])
        }
    }
}

/// A node that is a condition.
protocol NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate
}

/// A node that is a value.
protocol NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression
}
