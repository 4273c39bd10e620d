import Foundation

/// Prints expressions and constants the way `predicateFormat` and `description` do, in a form
/// the format parser reads back to the same tree.
package enum PredicateFormatting {
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

    package static func literal(_ value: Any?) -> String {
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
        case let symbol as PredicateIndexSymbol: return symbol.rawValue
        default: return "\(value!)"
        }
    }

    // MARK: Expressions

    /// `expression` in format-string syntax.
    static func format(_ expression: NSExpression) -> String {
        switch expression.expressionType {
        case .constantValue: return literal(expression.constantValue)
        case .evaluatedObject: return "SELF"
        case .keyPath: return keyPath(expression.keyPath)
        case .variable: return "$\(expression.variable)"
        case .aggregate: return "{" + expression.members.map(format).joined(separator: ", ") + "}"
        case .function: return function(expression)
        case .unionSet: return infixOperand(expression.left) + " UNION " + infixOperand(expression.right)
        case .intersectSet: return infixOperand(expression.left) + " INTERSECT " + infixOperand(expression.right)
        case .minusSet: return infixOperand(expression.left) + " MINUS " + infixOperand(expression.right)
        case .subquery:
            let collection = (expression.collection as? NSExpression).map(format) ?? "nil"
            return "SUBQUERY(\(collection), $\(expression.variable), \(expression.predicate.predicateFormat))"
        case .conditional:
            return "TERNARY(\(expression.predicate.predicateFormat), \(format(expression.trueExpression)), "
                + "\(format(expression.falseExpression)))"
        case .fetchRequest:
            guard let (request, context, countOnly) = expression.fetchParts else { return "FETCH()" }
            return "FETCH(\(format(request)), \(format(context)), \(countOnly ? "YES" : "NO"))"
        }
    }

    private static func function(_ expression: NSExpression) -> String {
        let name = expression.function
        let arguments = expression.arguments ?? []
        if let target = expression.operand {
            if let path = expression.functionKeyPath {
                // `SELF.key` is the key path `key`.
                if target.expressionType == .evaluatedObject { return keyPath(path) }
                return "\(postfixOperand(target)).\(keyPath(path))"
            }
            return "FUNCTION(" + ([format(target), literal(name)] + arguments.map(format)).joined(separator: ", ") + ")"
        }
        if arguments.count == 2 {
            if let symbol = PredicateFunction.infixOperators[name] {
                // A negative number raised to a power keeps its parentheses: `-2 ** 2` is -(2 ** 2).
                let base = name == "raise:toPower:" && isNegativeNumber(arguments[0]) ? "(\(format(arguments[0])))" : infixOperand(arguments[0])
                return "\(base) \(symbol) \(infixOperand(arguments[1]))"
            }
            if name == "objectFrom:withIndex:" { return "\(postfixOperand(arguments[0]))[\(index(arguments[1]))]" }
            if name == "castObject:toType:", arguments[1].expressionType == .constantValue, arguments[1].constantValue is String {
                return "CAST(\(format(arguments[0])), \(format(arguments[1])))"
            }
        }
        return "\(name)(\(arguments.map(format).joined(separator: ", ")))"
    }

    /// Whether `expression` prints as `a <operator> b`, and so needs parentheses inside another
    /// operator, before `[…]` or before `.key`.
    private static func isInfix(_ expression: NSExpression) -> Bool {
        if expression.isSetExpression { return true }
        return expression.expressionType == .function && expression.operand == nil && expression.arguments?.count == 2
            && PredicateFunction.infixOperators[expression.function] != nil
    }

    private static func isNegativeNumber(_ expression: NSExpression) -> Bool {
        guard expression.expressionType == .constantValue, !(expression.constantValue is Bool) else { return false }
        return ValueComparison.number(expression.constantValue).map { $0.double < 0 } ?? false
    }

    /// An operand of an infix operator: parenthesized when it is itself an operation, so that
    /// the printed form never depends on precedence (`(a + b) * c`, `a + (b * c)`).
    private static func infixOperand(_ expression: NSExpression) -> String {
        isInfix(expression) ? "(\(format(expression)))" : format(expression)
    }

    /// What `[index]` or `.key` follows.
    private static func postfixOperand(_ expression: NSExpression) -> String {
        isInfix(expression) || isNegativeNumber(expression) ? "(\(format(expression)))" : format(expression)
    }

    /// An index: `FIRST`, `LAST`, `SIZE`, or an expression (a key path named like one of those
    /// words escaped with `#`).
    private static func index(_ expression: NSExpression) -> String {
        if expression.expressionType == .keyPath,
           let first = expression.keyPath.split(separator: ".").first,
           PredicateIndexSymbol(rawValue: first.uppercased()) != nil {
            return "#" + format(expression)
        }
        return format(expression)
    }
}
