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

/// Reads a value at a key path from whatever a predicate is evaluated against.
enum KeyPathValue {
    static func value(of object: Any?, keyPath: String?) -> Any? {
        guard let keyPath, !keyPath.isEmpty, keyPath != "self", keyPath != "SELF" else { return object }
        var current: Any? = object
        let keys = keyPath.split(separator: ".").map(String.init)
        for (index, key) in keys.enumerated() {
            if key.hasPrefix("@") {
                let rest = keys[(index + 1)...].joined(separator: ".")
                let members = ValueComparison.elements(of: current)
                return aggregate(key, rest.isEmpty ? members : members.map { value(of: $0, keyPath: rest) })
            }
            current = value(of: current, key: key)
            if current == nil { return nil }
        }
        return current
    }

    /// `@count`, `@sum`, `@avg`, `@min`, `@max` over the members' values. As in SQL, nil values
    /// are skipped, and the average, minimum and maximum of nothing are nil; the sum of nothing is 0.
    private static func aggregate(_ operation: String, _ values: [Any?]) -> Any? {
        let present = values.filter { $0 != nil && !($0 is NSNull) }
        switch operation.lowercased() {
        case "@count":
            return values.count
        case "@sum", "@avg":
            let numbers = present.compactMap(ValueComparison.number)
            if operation.lowercased() == "@avg" {
                return numbers.isEmpty ? nil : numbers.reduce(0.0) { $0 + $1.double } / Double(numbers.count)
            }
            if numbers.allSatisfy({ if case .integer = $0 { true } else { false } }) {
                return numbers.reduce(Int64(0)) { total, number in if case .integer(let value) = number { total + value } else { total } }
            }
            return numbers.reduce(0.0) { $0 + $1.double }
        case "@min", "@max":
            let wantsMax = operation.lowercased() == "@max"
            return present.reduce(nil as Any?) { best, value in
                guard let best else { return value }
                let order = ValueComparison.order(value, best)
                return (wantsMax ? order == .orderedDescending : order == .orderedAscending) ? value : best
            }
        default:
            return nil
        }
    }

    private static func value(of object: Any?, key: String) -> Any? {
        switch object {
        case let object as NSManagedObject: return object.value(forKey: key)
        case let dictionary as [String: Any]: return dictionary[key]
        case let dictionary as NSDictionary: return dictionary[key]
        case let source as KeyValueReadable: return source.value(forKey: key)
        case let collection as Set<NSManagedObject>:
            return collection.map { value(of: $0, key: key) as Any }
        case let rows as [StoredRow]:
            return rows.map { value(of: $0, key: key) as Any }
        default:
            return Mirror(reflecting: object as Any).children.first { $0.label == key }?.value
        }
    }
}

/// Something a predicate can read keys from (the in-memory store's rows, for instance).
protocol KeyValueReadable {
    func value(forKey key: String) -> Any?
    /// The identity of the object the values belong to, when there is one.
    var rowObjectID: NSManagedObjectID? { get }
}

/// Formats constants the way `predicateFormat` prints them.
enum PredicateFormatting {
    /// Words of the format language; a key spelled like one is printed with a `#` escape.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "ANY", "ALL",
        "NONE", "SOME", "TRUEPREDICATE", "FALSEPREDICATE", "SELF", "NIL", "NULL", "TRUE", "YES", "FALSE", "NO",
        "SUBQUERY", "FUNCTION", "CAST",
    ]

    /// A key path with reserved words escaped (`#in`).
    static func keyPath(_ path: String) -> String {
        path.split(separator: ".", omittingEmptySubsequences: false)
            .map { reservedWords.contains($0.uppercased()) ? "#\($0)" : String($0) }
            .joined(separator: ".")
    }

    static func literal(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: return "nil"
        case let string as String: return "\"" + string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case let bool as Bool: return bool ? "1" : "0"
        case let date as Date: return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case let array as [Any]: return "{" + array.map(literal).joined(separator: ", ") + "}"
        case let set as Set<AnyHashable>: return "{" + set.map { literal($0.base) }.sorted().joined(separator: ", ") + "}"
        case let uuid as UUID: return literal(uuid.uuidString)
        case let url as URL: return literal(url.absoluteString)
        case let object as NSManagedObject: return object.objectID.description
        case let number as NSNumber: return number.stringValue
        default: return "\(value!)"
        }
    }
}
