import Foundation

/// Turns archived `NSPredicate` / `NSExpression` objects (Foundation's private classes such as
/// `NSComparisonPredicate`, `NSEqualityPredicateOperator`, `NSKeyPathExpression`) into
/// OpenCoreData's predicate tree.
///
/// What compiled models and model caches hold, and what it becomes:
/// - `NSComparisonPredicate`: `NSLeftExpression`, `NSRightExpression` and an operator object
///   (`NSEqualityPredicateOperator`, `NSComparisonPredicateOperator`, `NSInPredicateOperator`,
///   `NSLikePredicateOperator`, …) with `NSOperatorType` (Foundation's raw value), `NSModifier`
///   and the comparison options in `NSOptions` (or, for `NSInPredicateOperator`, `NSFlags`:
///   `comment CONTAINS[c] …` archives `NSFlags` 1). `CONTAINS` is an `NSInPredicateOperator`
///   with operator type 99.
/// - `NSCompoundPredicate`: `NSCompoundPredicateType` and `NSSubpredicates`.
/// - `NSTruePredicate`, `NSFalsePredicate`.
/// - `key` is an `NSKeyPathExpression` (`valueForKey:` on `NSSelfExpression` with an
///   `NSKeyPathSpecifierExpression` argument); `$FETCH_SOURCE.alias` is the same class with
///   expression type 4, `valueForKeyPath:` on an `NSVariableExpression`.
/// - `pages.@count` is archived as the function `count:(pages)` (`NSFunctionExpression` on the
///   constant class `_NSPredicateUtilities`); it comes back as the key path `pages.@count`, the
///   form the stores run.
///
/// - Core Data's `NSFetchRequestExpression` (`FETCH(request, context, countOnly)`, a mapping
///   model's source expression): `NSFRExpression`, `NSMOCExpression`, `NSCountOnlyFlag`.
///
/// Any other predicate or expression class (block predicates, subqueries, ternaries, …) and
/// custom-selector comparisons are errors that name the class: they are never dropped.
struct KeyedArchivePredicateDecoder {
    private var inProgress: Set<Int> = []

    /// The predicate archived as `object`.
    mutating func predicate(_ object: ArchivedObject) throws -> NSPredicate {
        try enter(object)
        defer { inProgress.remove(object.uid) }
        if object.isKind(of: "NSTruePredicate") { return NSPredicate(value: true) }
        if object.isKind(of: "NSFalsePredicate") { return NSPredicate(value: false) }
        if object.isKind(of: "NSCompoundPredicate") {
            let rawType = try object.integer(forKey: "NSCompoundPredicateType")
            guard rawType >= 0, let type = NSCompoundPredicate.LogicalType(rawValue: UInt(rawType)) else {
                throw KeyedArchiveError(reason: "\(object) has the unknown compound type \(rawType)")
            }
            guard let list = try object.object(forKey: "NSSubpredicates") else {
                throw KeyedArchiveError(reason: "\(object) has no NSSubpredicates")
            }
            let subpredicates = try list.collectionElements().map { try predicate($0.asObject("a subpredicate of \(object)")) }
            if type == .not && subpredicates.count != 1 {
                throw KeyedArchiveError(reason: "\(object) is a NOT with \(subpredicates.count) subpredicates")
            }
            return NSCompoundPredicate(type: type, subpredicates: subpredicates)
        }
        if object.isKind(of: "NSComparisonPredicate") {
            return try comparison(object)
        }
        throw KeyedArchiveError(reason: "\(object): the predicate class \(object.className) cannot be decoded yet")
    }

    private mutating func comparison(_ object: ArchivedObject) throws -> NSPredicate {
        guard let leftObject = try object.object(forKey: "NSLeftExpression"),
              let rightObject = try object.object(forKey: "NSRightExpression") else {
            throw KeyedArchiveError(reason: "\(object) lacks NSLeftExpression or NSRightExpression")
        }
        guard let operatorObject = try object.object(forKey: "NSPredicateOperator") else {
            throw KeyedArchiveError(reason: "\(object) has no NSPredicateOperator")
        }
        let rawType = try operatorObject.integer(forKey: "NSOperatorType")
        guard rawType >= 0, let type = NSComparisonPredicate.Operator(rawValue: UInt(rawType)) else {
            throw KeyedArchiveError(reason: "\(operatorObject) has the unknown operator type \(rawType)")
        }
        if type == .customSelector {
            let selector = (try? operatorObject.string(forKey: "NSSelectorName")) ?? nil
            throw KeyedArchiveError(reason: "\(object): comparisons by a custom selector\(selector.map { " (\($0))" } ?? "") cannot be decoded yet")
        }
        let rawModifier = try operatorObject.integer(forKey: "NSModifier")
        guard rawModifier >= 0, let modifier = NSComparisonPredicate.Modifier(rawValue: UInt(rawModifier)) else {
            throw KeyedArchiveError(reason: "\(operatorObject) has the unknown modifier \(rawModifier)")
        }
        let rawOptions = operatorObject.contains("NSOptions")
            ? try operatorObject.integer(forKey: "NSOptions") : try operatorObject.integer(forKey: "NSFlags")
        let options = NSComparisonPredicate.Options(rawValue: UInt(truncatingIfNeeded: rawOptions) & 0x7)
        return NSComparisonPredicate(leftExpression: try expression(leftObject), rightExpression: try expression(rightObject),
                                     modifier: modifier, type: type, options: options)
    }

    /// The expression archived as `object`.
    mutating func expression(_ object: ArchivedObject) throws -> NSExpression {
        try enter(object)
        defer { inProgress.remove(object.uid) }
        if object.isKind(of: "NSConstantValueExpression") {
            var values = FoundationValueDecoder()
            return NSExpression(forConstantValue: try values.decode(object.value(forKey: "NSConstantValue")))
        }
        if object.isKind(of: "NSSelfExpression") {
            return NSExpression.expressionForEvaluatedObject()
        }
        if object.isKind(of: "NSVariableExpression") {
            guard let name = try object.string(forKey: "NSVariable") else {
                throw KeyedArchiveError(reason: "\(object) has no NSVariable")
            }
            return NSExpression(forVariable: name)
        }
        if object.isKind(of: "NSKeyPathSpecifierExpression") {
            guard let path = try object.string(forKey: "NSKeyPath") else {
                throw KeyedArchiveError(reason: "\(object) has no NSKeyPath")
            }
            return NSExpression(forKeyPath: path)
        }
        if object.isKind(of: "NSAggregateExpression") {
            guard let collection = try object.object(forKey: "NSCollection") else {
                throw KeyedArchiveError(reason: "\(object) has no NSCollection")
            }
            return NSExpression(forAggregate: try collection.collectionElements().map {
                try expression($0.asObject("a member of \(object)"))
            })
        }
        if object.isKind(of: "NSFunctionExpression") {  // NSKeyPathExpression is a subclass
            return try function(object)
        }
        if object.isKind(of: "NSFetchRequestExpression") {
            // Core Data's class (a mapping model's source expression): the request and context
            // expressions and the count flag.
            guard let request = try object.object(forKey: "NSFRExpression"), let context = try object.object(forKey: "NSMOCExpression") else {
                throw KeyedArchiveError(reason: "\(object) has no NSFRExpression or no NSMOCExpression")
            }
            return NSFetchRequestExpression.expression(forFetch: try expression(request), context: try expression(context),
                                                       countOnly: try object.bool(forKey: "NSCountOnlyFlag"))
        }
        throw KeyedArchiveError(reason: "\(object): the expression class \(object.className) cannot be decoded yet")
    }

    /// Collection functions Foundation's parser makes of key paths with collection operators.
    private static let collectionOperators = ["count:": "@count", "sum:": "@sum", "average:": "@avg", "min:": "@min", "max:": "@max"]

    private mutating func function(_ object: ArchivedObject) throws -> NSExpression {
        guard let selector = try object.string(forKey: "NSSelectorName") else {
            throw KeyedArchiveError(reason: "\(object) has no NSSelectorName")
        }
        let arguments: [NSExpression] = try object.object(forKey: "NSArguments").map { list in
            try list.collectionElements().map { try expression($0.asObject("an argument of \(object)")) }
        } ?? []
        let operandObject = try object.object(forKey: "NSOperand")

        // `key` or `operand.key`.
        if selector == "valueForKey:" || selector == "valueForKeyPath:", arguments.count == 1,
           let path = Self.keyPath(of: arguments[0]) {
            guard let operandObject, !operandObject.isKind(of: "NSSelfExpression") else {
                return NSExpression(forKeyPath: path)
            }
            let operand = try expression(operandObject)
            switch operand.expressionType {
            case .evaluatedObject: return NSExpression(forKeyPath: path)
            case .keyPath: return NSExpression(forKeyPath: operand.keyPath + "." + path)
            default: return NSExpression(forFunction: operand, selectorName: selector, arguments: [NSExpression(forKeyPath: path)])
            }
        }

        // The predicate language's functions are methods of the class `_NSPredicateUtilities`.
        if let operandObject, operandObject.isKind(of: "NSConstantValueExpression"),
           try operandObject.string(forKey: "NSConstantValueClassName") == "_NSPredicateUtilities" {
            if let collectionOperator = Self.collectionOperators[selector], arguments.count == 1,
               arguments[0].expressionType == .keyPath {
                let keys = arguments[0].keyPath.split(separator: ".").map(String.init)
                if collectionOperator == "@count" {
                    return NSExpression(forKeyPath: (keys + ["@count"]).joined(separator: "."))
                }
                if keys.count == 2 {
                    // `sum:(items.price)` is `items.@sum.price`: the operator follows the to-many key.
                    return NSExpression(forKeyPath: [keys[0], collectionOperator, keys[1]].joined(separator: "."))
                }
            }
            return NSExpression(forFunction: selector, arguments: arguments)
        }

        guard let operandObject else {
            return NSExpression(forFunction: selector, arguments: arguments)
        }
        return NSExpression(forFunction: try expression(operandObject), selectorName: selector, arguments: arguments)
    }

    /// The key path an argument of `valueForKey(Path):` names.
    private static func keyPath(of argument: NSExpression) -> String? {
        switch argument.expressionType {
        case .keyPath: argument.keyPath
        case .constantValue: argument.constantValue as? String
        default: nil
        }
    }

    private mutating func enter(_ object: ArchivedObject) throws {
        guard !inProgress.contains(object.uid) else {
            throw KeyedArchiveError(reason: "\(object) contains itself")
        }
        guard inProgress.count < BinaryPropertyList.maximumDepth else {
            throw KeyedArchiveError(reason: "\(object) is nested more than \(BinaryPropertyList.maximumDepth) levels deep")
        }
        inProgress.insert(object.uid)
    }
}
