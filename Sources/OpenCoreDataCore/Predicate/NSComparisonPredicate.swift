import Foundation

/// A comparison of two expressions: `age > 30`, `name BEGINSWITH[c] "a"`, `score BETWEEN {1, 9}`.
///
/// ```swift
/// NSComparisonPredicate(key: "age", .greaterThan, 30)
/// NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "name"),
///                       rightExpression: NSExpression(forConstantValue: "a"),
///                       modifier: .direct, type: .beginsWith, options: [.caseInsensitive])
/// ```
open class NSComparisonPredicate: NSPredicate, @unchecked Sendable {
    /// The comparison. Raw values as Foundation's.
    public enum Operator: UInt, Sendable {
        case lessThan = 0, lessThanOrEqualTo = 1, greaterThan = 2, greaterThanOrEqualTo = 3
        case equalTo = 4, notEqualTo = 5, matches = 6, like = 7, beginsWith = 8, endsWith = 9
        case `in` = 10, customSelector = 11, contains = 99, between = 100
    }

    /// How a to-many left side is compared. Raw values as Foundation's.
    public enum Modifier: UInt, Sendable {
        case direct = 0, all = 1, any = 2
    }

    /// String comparison options. Raw values as Foundation's.
    public struct Options: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let caseInsensitive = Options(rawValue: 1)
        public static let diacriticInsensitive = Options(rawValue: 2)
        public static let normalized = Options(rawValue: 4)
    }

    public let leftExpression: NSExpression
    public let rightExpression: NSExpression
    public let comparisonPredicateModifier: Modifier
    public let predicateOperatorType: Operator
    public let options: Options
    /// For `IN` a constant collection: its hashed form, made once (see `MembershipIndex`).
    private let membershipIndex: MembershipIndex?

    public init(leftExpression: NSExpression, rightExpression: NSExpression, modifier: Modifier,
                type: Operator, options: Options = []) {
        self.leftExpression = leftExpression
        self.rightExpression = rightExpression
        self.comparisonPredicateModifier = modifier
        self.predicateOperatorType = type
        self.options = options
        membershipIndex = type == .in ? Self.constantCollection(of: rightExpression).flatMap { MembershipIndex($0, options: options) } : nil
        super.init()
    }

    /// The value of a constant expression or of an aggregate of constants; nil for any other.
    private static func constantCollection(of expression: NSExpression) -> Any?? {
        switch expression.expressionType {
        case .constantValue: return .some(expression.constantValue)
        case .aggregate where expression.members.allSatisfy({ $0.expressionType == .constantValue }): return .some(expression.constantValue)
        default: return nil
        }
    }

    /// `key <operator> value`: the common case, built in one call.
    public convenience init(key: String, _ type: Operator, _ value: Any?, options: Options = []) {
        self.init(leftExpression: NSExpression(forKeyPath: key), rightExpression: NSExpression(forConstantValue: value),
                  modifier: .direct, type: type, options: options)
    }

    open override func evaluate(with object: Any?, substitutionVariables variables: [String: Any]?) -> Bool {
        compare(leftExpression.value(for: object, variables: variables), rightExpression.value(for: object, variables: variables))
    }

    /// This comparison applied to values of its two sides (the right one computed only when
    /// needed), with its modifier and options.
    package func compare(_ left: Any?, _ rightValue: @autoclosure () -> Any?) -> Bool {
        if comparisonPredicateModifier == .direct, let membershipIndex, let found = membershipIndex.contains(left) { return found }
        let right = rightValue()
        switch comparisonPredicateModifier {
        case .direct:
            return ValueComparison.evaluate(left, predicateOperatorType, right, options: options)
        case .any:
            return ValueComparison.elements(of: left).contains {
                if let membershipIndex, let found = membershipIndex.contains($0) { return found }
                return ValueComparison.evaluate($0, predicateOperatorType, right, options: options)
            }
        case .all:
            return ValueComparison.elements(of: left).allSatisfy {
                ValueComparison.evaluate($0, predicateOperatorType, right, options: options)
            }
        }
    }

    open override func withSubstitutionVariables(_ variables: [String: Any]) -> NSPredicate {
        NSComparisonPredicate(leftExpression: leftExpression.substituting(variables),
                              rightExpression: rightExpression.substituting(variables),
                              modifier: comparisonPredicateModifier, type: predicateOperatorType, options: options)
    }

    open override var predicateFormat: String {
        let modifier = switch comparisonPredicateModifier {
        case .direct: ""
        case .any: "ANY "
        case .all: "ALL "
        }
        var optionText = ""
        if options.contains(.caseInsensitive) { optionText += "c" }
        if options.contains(.diacriticInsensitive) { optionText += "d" }
        if options.contains(.normalized) { optionText += "n" }
        if !optionText.isEmpty { optionText = "[\(optionText)]" }
        return "\(modifier)\(leftExpression) \(predicateOperatorType.formatName)\(optionText) \(rightExpression)"
    }
}

extension NSComparisonPredicate.Operator {
    package var formatName: String {
        switch self {
        case .lessThan: "<"
        case .lessThanOrEqualTo: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqualTo: ">="
        case .equalTo: "=="
        case .notEqualTo: "!="
        case .matches: "MATCHES"
        case .like: "LIKE"
        case .beginsWith: "BEGINSWITH"
        case .endsWith: "ENDSWITH"
        case .in: "IN"
        case .customSelector: "CUSTOM"
        case .contains: "CONTAINS"
        case .between: "BETWEEN"
        }
    }
}
