import Foundation

/// A value in a predicate: a constant, a key path, the evaluated object, a variable, a
/// collection of expressions, a function, a subquery, a conditional or a set operation.
///
/// ```swift
/// NSExpression(forKeyPath: "owner.name")
/// NSExpression(forConstantValue: 42)
/// NSExpression(format: "age + 2 * %d", 3)
/// NSExpression(forSubquery: NSExpression(forKeyPath: "pets"), usingIteratorVariable: "pet",
///              predicate: NSPredicate(format: "$pet.weight > 5"))
/// ```
/// `expressionValue(with:context:)` evaluates an expression in memory (see
/// `NSExpression+Evaluation.swift`); the SQLite store turns the ones SQL can express into SQL.
open class NSExpression: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: immutable once built.

    /// The kinds of expression. Raw values as Foundation's.
    public enum ExpressionType: UInt, Sendable {
        case constantValue = 0
        case evaluatedObject = 1
        case variable = 2
        case keyPath = 3
        case function = 4
        case unionSet = 5
        case intersectSet = 6
        case minusSet = 7
        case subquery = 13
        case aggregate = 14
        case conditional = 20
        /// A fetch (`FETCH(request, context, countOnly)`, an `NSFetchRequestExpression`): Core
        /// Data's `NSFetchRequestExpressionType`, which Foundation's enumeration does not list.
        case fetchRequest = 50
    }

    public let expressionType: ExpressionType
    let constant: Any?
    /// The key path, the variable name (also a subquery's iterator variable) or the function name.
    let name: String?
    /// An aggregate's members, a function's arguments, a set operation's two sides, a
    /// conditional's two branches, or a fetch's request and context.
    package let elements: [NSExpression]?
    /// The target of a function called as a method (`FUNCTION(target, "selector", …)`), or a
    /// subquery's collection.
    let target: NSExpression?
    /// A subquery's or a conditional's predicate.
    let condition: NSPredicate?

    // Internal, not private: `NSFetchRequestExpression` builds itself with it.
    init(type: ExpressionType, constant: Any? = nil, name: String? = nil, elements: [NSExpression]? = nil,
         target: NSExpression? = nil, condition: NSPredicate? = nil) {
        self.expressionType = type
        self.constant = constant
        self.name = name
        self.elements = elements
        self.target = target
        self.condition = condition
    }

    /// A constant: a number, string, date, object, `nil`, or an array of such.
    public convenience init(forConstantValue value: Any?) {
        self.init(type: .constantValue, constant: value)
    }

    /// A key path (`"age"`, `"owner.name"`) read from the evaluated object.
    public convenience init(forKeyPath keyPath: String) {
        self.init(type: .keyPath, name: keyPath)
    }

    /// The key path of a Swift key path: `NSExpression(forKeyPath: \Product.price)`.
    ///
    /// A `@Managed` property's key path is resolved through its class's entity, as
    /// `NSSortDescriptor(keyPath:ascending:)` resolves it; one that names no property stops the
    /// program, as Core Data's does for a key path Objective-C cannot see.
    public convenience init<Root, Value>(forKeyPath keyPath: KeyPath<Root, Value>) {
        self.init(forKeyPath: NSSortDescriptor.key(of: keyPath))
    }

    /// A `$variable` replaced through `withSubstitutionVariables(_:)`.
    public convenience init(forVariable name: String) {
        self.init(type: .variable, name: name)
    }

    /// A collection of expressions (`{1, 2, 3}`).
    public convenience init(forAggregate subexpressions: [NSExpression]) {
        self.init(type: .aggregate, elements: subexpressions)
    }

    /// One of the predicate language's built-in functions applied to `parameters` (expressions;
    /// other values become constants): `now`, `sum:`, `add:to:`, `uppercase:`, … (the list is
    /// `PredicateFunction.arities`; Core Data's names).
    ///
    /// ```swift
    /// NSExpression(forFunction: "multiply:by:", arguments: [NSExpression(forKeyPath: "price"), 2])
    /// ```
    /// Evaluated in memory as Core Data does, with the differences noted in
    /// `PredicateFunction`. The SQLite store runs arithmetic, `abs:`, `length:`,
    /// `uppercase:`, `lowercase:`, `now` and the collection functions over a to-many key path;
    /// other functions are an error there unless they read nothing of the fetched object.
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        self.init(type: .function, name: name, elements: parameters.map(Self.expression(wrapping:)))
    }

    /// The method `selectorName` called on what `target` evaluates to, with `arguments`
    /// (`FUNCTION(target, "selector", …)` in a format string).
    ///
    /// ```swift
    /// // $FETCH_SOURCE.alias, as Core Data archives it:
    /// NSExpression(forFunction: NSExpression(forVariable: "FETCH_SOURCE"), selectorName: "valueForKeyPath:",
    ///              arguments: [NSExpression(forKeyPath: "alias")])
    /// ```
    /// Linux has no selectors, so only the methods `PredicateMethod` lists are evaluated
    /// (`valueForKey:`, `valueForKeyPath:`, `dateByAddingTimeInterval:`, `length`, …); other
    /// selectors evaluate to nil. Once the target is a constant (a variable substituted), a key
    /// path read from it is folded into a constant.
    public convenience init(forFunction target: NSExpression, selectorName name: String, arguments parameters: [Any]?) {
        self.init(type: .function, name: name, elements: (parameters ?? []).map(Self.expression(wrapping:)), target: target)
    }

    /// `TERNARY(predicate, trueExpression, falseExpression)`: `trueExpression` for objects that
    /// satisfy `predicate`, `falseExpression` for the others.
    public convenience init(forConditional predicate: NSPredicate, trueExpression: NSExpression, falseExpression: NSExpression) {
        self.init(type: .conditional, elements: [trueExpression, falseExpression], condition: predicate)
    }

    /// `SUBQUERY(collection, $variable, predicate)`: the members of `expression` for which
    /// `predicate` holds, each member bound to `$variable` in turn.
    ///
    /// ```swift
    /// // SUBQUERY(pets, $pet, $pet.weight > 5).@count > 0
    /// ```
    /// As in Core Data, key paths in `predicate` that do not start with the variable are read
    /// from the object the whole predicate is evaluated against, not from the member.
    public convenience init(forSubquery expression: NSExpression, usingIteratorVariable variable: String, predicate: NSPredicate) {
        self.init(type: .subquery, name: variable, target: expression, condition: predicate)
    }

    /// `left UNION right`: the members of either collection, each once.
    public convenience init(forUnionSet left: NSExpression, with right: NSExpression) {
        self.init(type: .unionSet, elements: [left, right])
    }

    /// `left INTERSECT right`: the members of `left` that are also in `right`.
    public convenience init(forIntersectSet left: NSExpression, with right: NSExpression) {
        self.init(type: .intersectSet, elements: [left, right])
    }

    /// `left MINUS right`: the members of `left` that are not in `right`.
    public convenience init(forMinusSet left: NSExpression, with right: NSExpression) {
        self.init(type: .minusSet, elements: [left, right])
    }

    /// A copy of `other` (how the format initializers hand back what the parser built). A
    /// fetch stays a fetch, but of this class: its parts are read through `fetchParts`.
    convenience init(copying other: NSExpression) {
        self.init(type: other.expressionType, constant: other.constant, name: other.name, elements: other.elements,
                  target: other.target, condition: other.condition)
    }

    private static func expression(wrapping value: Any) -> NSExpression {
        value as? NSExpression ?? NSExpression(forConstantValue: value)
    }

    /// The evaluated object itself (`SELF`).
    public class func expressionForEvaluatedObject() -> NSExpression {
        NSExpression(type: .evaluatedObject)
    }

    // MARK: Parts

    /// The constant of a constant expression (the array of values of an aggregate of constants).
    public var constantValue: Any? {
        if expressionType == .aggregate { return elements?.map { $0.constantValue as Any } }
        if expressionType == .fetchRequest { return nil }  // `constant` holds its count-only flag
        return constant
    }

    /// The key path of a key-path expression.
    public var keyPath: String { expressionType == .keyPath ? name ?? "" : "" }

    /// The name of a variable expression, or a subquery's iterator variable.
    public var variable: String { expressionType == .variable || expressionType == .subquery ? name ?? "" : "" }

    /// The subexpressions of an aggregate expression (`[NSExpression]`), or a subquery's
    /// collection (an `NSExpression`). An empty array for other expressions.
    public var collection: Any {
        if expressionType == .subquery, let target { return target }
        return members
    }

    /// The subexpressions of an aggregate expression.
    package var members: [NSExpression] { expressionType == .aggregate ? elements ?? [] : [] }

    /// The function (or selector) name of a function expression.
    public var function: String { expressionType == .function ? name ?? "" : "" }

    /// The arguments of a function expression; nil for other expressions.
    public var arguments: [NSExpression]? { expressionType == .function ? elements ?? [] : nil }

    /// The target of a function expression made with `init(forFunction:selectorName:arguments:)`;
    /// nil for other expressions.
    public var operand: NSExpression? { expressionType == .function ? target : nil }

    /// The predicate of a subquery or conditional expression. For other expressions (where Core
    /// Data raises an exception), `TRUEPREDICATE`.
    public var predicate: NSPredicate { condition ?? NSPredicate(value: true) }

    /// What a conditional expression gives for objects that satisfy its predicate; for other
    /// expressions (where Core Data raises), a nil constant.
    public var trueExpression: NSExpression { expressionType == .conditional ? elements![0] : NSExpression(forConstantValue: nil) }

    /// What a conditional expression gives for the other objects; a nil constant for other expressions.
    public var falseExpression: NSExpression { expressionType == .conditional ? elements![1] : NSExpression(forConstantValue: nil) }

    /// The left side of a set expression (`UNION`, `INTERSECT`, `MINUS`); a nil constant for others.
    public var left: NSExpression { isSetExpression ? elements![0] : NSExpression(forConstantValue: nil) }

    /// The right side of a set expression; a nil constant for others.
    public var right: NSExpression { isSetExpression ? elements![1] : NSExpression(forConstantValue: nil) }

    /// A fetch expression's request and context expressions and whether it only counts; nil
    /// for other expressions.
    package var fetchParts: (request: NSExpression, context: NSExpression, countOnly: Bool)? {
        guard expressionType == .fetchRequest, let elements, elements.count == 2 else { return nil }
        return (elements[0], elements[1], constant as? Bool ?? false)
    }

    var isSetExpression: Bool {
        expressionType == .unionSet || expressionType == .intersectSet || expressionType == .minusSet
    }

    /// Whether this is `target.keyPath`: `valueForKey:` or `valueForKeyPath:` with one argument.
    package var isKeyPathFunction: Bool {
        expressionType == .function && target != nil && (name == "valueForKeyPath:" || name == "valueForKey:")
            && elements?.count == 1
    }

    /// The key path argument of a key-path function (a key-path expression or a string constant).
    package var functionKeyPath: String? {
        guard isKeyPathFunction, let argument = elements?.first else { return nil }
        return argument.expressionType == .keyPath ? argument.keyPath : argument.constant as? String
    }

    /// The value of the expression for `object` (a managed object, a dictionary, a plain value),
    /// with `$variables` read from `context`.
    ///
    /// ```swift
    /// NSExpression(format: "4 + 5 - 2**3").expressionValue(with: nil, context: nil) // 1
    /// ```
    /// Numbers follow NSNumber arithmetic: integers stay integers while exact (a quotient that
    /// is not whole, or an overflow, gives a `Double`), a `Decimal` operand makes the result a
    /// `Decimal`. An operand that is nil or not a number gives nil (Core Data raises an
    /// exception for a non-number), as does a division by zero.
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        value(for: object, variables: context.map(Self.variables(in:)))
    }

    // MARK: Variables

    /// The string-keyed entries of an evaluation context.
    private static func variables(in context: NSMutableDictionary) -> [String: Any] {
        var variables: [String: Any] = [:]
        for (key, value) in context {
            if let key = ValueComparison.string(key) { variables[key] = value }
        }
        return variables
    }


    func substituting(_ variables: [String: Any]) -> NSExpression {
        switch expressionType {
        case .variable:
            guard let value = variables[variable] else { return self }
            return NSExpression(forConstantValue: value)
        case .aggregate, .unionSet, .intersectSet, .minusSet:
            return NSExpression(type: expressionType, elements: elements?.map { $0.substituting(variables) })
        case .conditional:
            return NSExpression(forConditional: predicate.withSubstitutionVariables(variables),
                                trueExpression: trueExpression.substituting(variables),
                                falseExpression: falseExpression.substituting(variables))
        case .subquery:
            // The iterator variable belongs to the subquery: it is never substituted.
            var inner = variables
            inner.removeValue(forKey: variable)
            return NSExpression(forSubquery: target!.substituting(variables), usingIteratorVariable: variable,
                                predicate: predicate.withSubstitutionVariables(inner))
        case .function:
            let substituted = NSExpression(type: .function, name: name, elements: elements?.map { $0.substituting(variables) },
                                           target: target?.substituting(variables))
            // `$FETCH_SOURCE.alias` with the object known reads nothing of the evaluated object:
            // fold it to a constant, which is what the stores compare against.
            if substituted.isKeyPathFunction, substituted.target?.expressionType == .constantValue {
                return NSExpression(forConstantValue: substituted.value(for: nil, variables: nil))
            }
            return substituted
        case .fetchRequest:
            guard let (request, context, countOnly) = fetchParts else { return self }
            return NSFetchRequestExpression(request: request.substituting(variables), context: context.substituting(variables), countOnly: countOnly)
        case .constantValue, .evaluatedObject, .keyPath:
            return self
        }
    }

    // MARK: Format

    /// The expression in format-string syntax; it parses back to the same expression.
    public var description: String { PredicateFormatting.format(self) }
}

extension NSExpression {
    /// An expression parsed from Core Data's format language (`"age + 2"`, `"sum:(scores)"`,
    /// `"TERNARY(age > 17, 'adult', 'minor')"`), with `%@`, `%K`, `%d`, … taken from `args`.
    ///
    /// ```swift
    /// let total = NSExpression(format: "price * %d", 3)
    /// ```
    /// As in Core Data, a malformed format stops the program; use
    /// `NSExpression(validatingFormat:_:)` to get the positioned error instead.
    public convenience init(format expressionFormat: String, _ args: Any?...) {
        self.init(format: expressionFormat, argumentArray: args.map { $0 ?? NSNull() })
    }

    /// An expression parsed from a format string with its arguments in a C variable argument
    /// list, as `withVaList` makes one (read as `NSPredicate(format:arguments:)` reads them).
    ///
    /// ```swift
    /// let total = withVaList(["price"]) { NSExpression(format: "%K * 2", arguments: $0) }
    /// ```
    public convenience init(format expressionFormat: String, arguments argList: CVaListPointer) {
        self.init(format: expressionFormat, argumentArray: FormatVarArgs.arguments(for: expressionFormat, from: argList))
    }

    /// An expression parsed from a format string with its arguments in an array.
    public convenience init(format expressionFormat: String, argumentArray arguments: [Any]) {
        do {
            try self.init(validatingFormat: expressionFormat, argumentArray: arguments)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Parses `expressionFormat`, throwing `PredicateFormatError` (naming what was expected and
    /// at which character) when it is malformed. An OpenCoreData addition.
    public convenience init(validatingFormat expressionFormat: String, _ args: Any?...) throws {
        try self.init(validatingFormat: expressionFormat, argumentArray: args.map { $0 ?? NSNull() })
    }

    /// Parses `expressionFormat` with its arguments in an array, throwing `PredicateFormatError`.
    public convenience init(validatingFormat expressionFormat: String, argumentArray arguments: [Any]) throws {
        var parser = try PredicateFormatParser(format: expressionFormat, arguments: arguments.map { Optional($0) })
        self.init(copying: try parser.parseStandaloneExpression())
    }
}
