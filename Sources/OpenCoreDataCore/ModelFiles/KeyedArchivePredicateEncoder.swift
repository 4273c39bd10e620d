import Foundation

/// Archives predicates, expressions, sort descriptors and fetch requests as Foundation and
/// Core Data archive them in a model (validation rules, fetch indexes, fetched properties,
/// derived attributes, fetch request templates): the inverse of `KeyedArchivePredicateDecoder`,
/// covering what it decodes.
///
/// The classes and keys are those of the model caches Apple's Core Data wrote into the corpus
/// stores: `NSComparisonPredicate` with an operator object (`NSEqualityPredicateOperator` with
/// `NSNegate`, `NSComparisonPredicateOperator` with `NSVariant`, `NSInPredicateOperator` with
/// `NSFlags`), `key` as an `NSKeyPathExpression` calling `valueForKey:` on `NSSelfExpression`,
/// `pages.@count` as the function `count:` on `_NSPredicateUtilities`. The string operators
/// (`LIKE`, `MATCHES`, `BEGINSWITH`, `ENDSWITH`) and `BETWEEN` appear in no corpus archive:
/// their class names follow Foundation's pattern and they carry `NSOptions`, which the decoder
/// reads.
///
/// What the decoder cannot read back (block predicates, subqueries, conditionals, set
/// expressions, comparisons by a custom selector, nesting deeper than the readers accept) is an
/// error naming it, never dropped.
struct KeyedArchivePredicateEncoder {
    /// The predicate as an archived object.
    static func predicate(_ predicate: NSPredicate, into writer: inout KeyedArchiveWriter) throws -> PropertyListValue {
        try writer.enterNesting("the predicate")
        defer { writer.leaveNesting() }
        let predicate = predicate.resolved
        if let truth = predicate.constantTruth {
            return writer.object(truth ? ["NSTruePredicate", "NSPredicate", "NSObject"] : ["NSFalsePredicate", "NSPredicate", "NSObject"], [:])
        }
        if let compound = predicate as? NSCompoundPredicate {
            let subpredicates = try compound.subpredicates.map { try self.predicate($0, into: &writer) }
            return writer.object(["NSCompoundPredicate", "NSPredicate", "NSObject"], [
                "NSCompoundPredicateType": .integer(Int64(compound.compoundPredicateType.rawValue)),
                "NSSubpredicates": writer.array(subpredicates),
            ])
        }
        if let comparison = predicate as? NSComparisonPredicate {
            let left = try expression(comparison.leftExpression, into: &writer)
            let right = try expression(comparison.rightExpression, into: &writer)
            return writer.object(["NSComparisonPredicate", "NSPredicate", "NSObject"], [
                "NSLeftExpression": left,
                "NSRightExpression": right,
                "NSPredicateOperator": try predicateOperator(of: comparison, into: &writer),
            ])
        }
        throw KeyedArchiveEncodingError(reason: "the predicate \(predicate) cannot be archived (a block predicate or a predicate class of its own)")
    }

    private static func predicateOperator(of comparison: NSComparisonPredicate, into writer: inout KeyedArchiveWriter) throws -> PropertyListValue {
        let type = comparison.predicateOperatorType
        var fields: [String: PropertyListValue] = [
            "NSOperatorType": .integer(Int64(type.rawValue)),
            "NSModifier": .integer(Int64(comparison.comparisonPredicateModifier.rawValue)),
        ]
        let options = PropertyListValue.integer(Int64(comparison.options.rawValue))
        let className: String
        switch type {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            className = "NSComparisonPredicateOperator"
            fields["NSVariant"] = .integer(Int64(type.rawValue))
            fields["NSOptions"] = options
        case .equalTo, .notEqualTo:
            className = "NSEqualityPredicateOperator"
            fields["NSNegate"] = .bool(type == .notEqualTo)
            fields["NSOptions"] = options
        case .in, .contains:
            className = "NSInPredicateOperator"
            fields["NSFlags"] = options
        case .like: className = "NSLikePredicateOperator"; fields["NSOptions"] = options
        case .matches: className = "NSMatchingPredicateOperator"; fields["NSOptions"] = options
        case .beginsWith: className = "NSBeginsWithPredicateOperator"; fields["NSOptions"] = options
        case .endsWith: className = "NSEndsWithPredicateOperator"; fields["NSOptions"] = options
        case .between: className = "NSBetweenPredicateOperator"; fields["NSOptions"] = options
        case .customSelector:
            throw KeyedArchiveEncodingError(reason: "the comparison \(comparison) uses a custom selector, which cannot be archived")
        }
        let chain = type == .like || type == .matches || type == .beginsWith || type == .endsWith
            ? [className, "NSStringPredicateOperator", "NSPredicateOperator", "NSObject"]
            : [className, "NSPredicateOperator", "NSObject"]
        return writer.object(chain, fields)
    }

    /// Collection operators as the functions Foundation's parser makes of them.
    private static let collectionFunctions = ["@count": "count:", "@sum": "sum:", "@avg": "average:", "@min": "min:", "@max": "max:"]

    /// The expression as an archived object.
    static func expression(_ expression: NSExpression, into writer: inout KeyedArchiveWriter) throws -> PropertyListValue {
        try writer.enterNesting("the expression")
        defer { writer.leaveNesting() }
        switch expression.expressionType {
        case .constantValue:
            return writer.object(["NSConstantValueExpression", "NSExpression", "NSObject"], [
                "NSExpressionType": .integer(0),
                "NSConstantValue": try writer.foundationValue(expression.constantValue),
            ])
        case .evaluatedObject:
            return selfExpression(into: &writer)
        case .variable:
            return writer.object(["NSVariableExpression", "NSExpression", "NSObject"], [
                "NSExpressionType": .integer(2), "NSVariable": writer.string(expression.variable),
            ])
        case .keyPath:
            return try keyPath(expression.keyPath, into: &writer)
        case .aggregate:
            let members = try expression.members.map { try self.expression($0, into: &writer) }
            return writer.object(["NSAggregateExpression", "NSExpression", "NSObject"], [
                "NSExpressionType": .integer(14), "NSCollection": writer.array(members),
            ])
        case .function:
            return try function(expression, into: &writer)
        case .fetchRequest:
            guard let (request, context, countOnly) = expression.fetchParts else { fallthrough }
            return writer.object(["NSFetchRequestExpression", "NSExpression", "NSObject"], [
                "NSExpressionType": .integer(50),
                "NSFRExpression": try self.expression(request, into: &writer),
                "NSMOCExpression": try self.expression(context, into: &writer),
                "NSCountOnlyFlag": .bool(countOnly),
            ])
        default:
            throw KeyedArchiveEncodingError(reason: "the expression \(expression) cannot be archived yet (only constants, SELF, variables, key paths, aggregates and functions can)")
        }
    }

    /// `SELF`, one object shared by every expression, as Foundation keeps a single instance.
    private static func selfExpression(into writer: inout KeyedArchiveWriter) -> PropertyListValue {
        writer.shared("NSSelfExpression") { $0.object(["NSSelfExpression", "NSExpression", "NSObject"], ["NSExpressionType": .integer(1)]) }
    }

    /// `key` or `a.b` (`valueForKey:` / `valueForKeyPath:` on SELF); `items.@count` and
    /// `items.@sum.price` as the collection functions `count:(items)` and `sum:(items.price)`.
    private static func keyPath(_ path: String, into writer: inout KeyedArchiveWriter) throws -> PropertyListValue {
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if keys.count >= 2, keys.last == "@count", !keys.dropLast().contains(where: { $0.hasPrefix("@") }) {
            return try predicateFunction("count:", arguments: [keyPathOnSelf(keys.dropLast().joined(separator: "."), into: &writer)], into: &writer)
        }
        if keys.count == 3, let function = collectionFunctions[keys[1]], keys[1] != "@count",
           !keys[0].hasPrefix("@"), !keys[2].hasPrefix("@") {
            return try predicateFunction(function, arguments: [keyPathOnSelf(keys[0] + "." + keys[2], into: &writer)], into: &writer)
        }
        return keyPathOnSelf(path, into: &writer)
    }

    private static func keyPathOnSelf(_ path: String, into writer: inout KeyedArchiveWriter) -> PropertyListValue {
        let operand = selfExpression(into: &writer)
        return keyPathExpression(operand: operand, path: path, expressionType: 3, into: &writer)
    }

    private static func keyPathExpression(operand: PropertyListValue, path: String, expressionType: Int64,
                                          into writer: inout KeyedArchiveWriter) -> PropertyListValue {
        let specifier = writer.object(["NSKeyPathSpecifierExpression", "NSExpression", "NSObject"], [
            "NSExpressionType": .integer(10), "NSKeyPath": writer.string(path),
        ])
        return writer.object(["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"], [
            "NSExpressionType": .integer(expressionType),
            "NSOperand": operand,
            "NSSelectorName": writer.string(path.contains(".") || expressionType == 4 ? "valueForKeyPath:" : "valueForKey:"),
            "NSArguments": writer.array([specifier], mutable: true),
        ])
    }

    /// A function of the predicate language: a method of `_NSPredicateUtilities`.
    private static func predicateFunction(_ selector: String, arguments: [PropertyListValue],
                                          into writer: inout KeyedArchiveWriter) throws -> PropertyListValue {
        let utilities = writer.object(["NSConstantValueExpression", "NSExpression", "NSObject"], [
            "NSExpressionType": .integer(0), "NSConstantValueClassName": writer.string("_NSPredicateUtilities"),
        ])
        return writer.object(["NSFunctionExpression", "NSExpression", "NSObject"], [
            "NSExpressionType": .integer(4),
            "NSOperand": utilities,
            "NSSelectorName": writer.string(selector),
            "NSArguments": writer.array(arguments),
        ])
    }

    private static func function(_ expression: NSExpression, into writer: inout KeyedArchiveWriter) throws -> PropertyListValue {
        let arguments = expression.arguments ?? []
        guard let operand = expression.operand else {
            return try predicateFunction(expression.function, arguments: arguments.map { try self.expression($0, into: &writer) }, into: &writer)
        }
        // `$FETCH_SOURCE.alias`: a key path read from something other than SELF.
        if ["valueForKey:", "valueForKeyPath:"].contains(expression.function), arguments.count == 1,
           arguments[0].expressionType == .keyPath {
            return keyPathExpression(operand: try self.expression(operand, into: &writer), path: arguments[0].keyPath,
                                     expressionType: 4, into: &writer)
        }
        return writer.object(["NSFunctionExpression", "NSExpression", "NSObject"], [
            "NSExpressionType": .integer(4),
            "NSOperand": try self.expression(operand, into: &writer),
            "NSSelectorName": writer.string(expression.function),
            "NSArguments": writer.array(try arguments.map { try self.expression($0, into: &writer) }),
        ])
    }

    /// A sort descriptor (`NSKey`, `NSAscending`, `NSSelector`, `NSReverseNullOrder`).
    static func sortDescriptor(_ descriptor: NSSortDescriptor, into writer: inout KeyedArchiveWriter) -> PropertyListValue {
        writer.object(["NSSortDescriptor", "NSObject"], [
            "NSKey": writer.string(descriptor.key),
            "NSAscending": .bool(descriptor.ascending),
            "NSSelector": writer.string(descriptor.selectorName),
            "NSReverseNullOrder": .bool(false),
        ])
    }

    /// A fetch request of a fetched property or a template, its entity given as `entity`.
    ///
    /// `NSFetchRequestFlags` is 30 with `NSHasFetchRequestFlags`, the value every fetch request
    /// of the corpus archives carries, all of them with the default switches; which bit stands
    /// for which switch is not documented, so a request with other switches is refused rather
    /// than archived as the defaults. So is one whose entity is not the model's, and one that
    /// fetches expressions.
    static func fetchRequest(_ request: NSFetchRequest<NSFetchRequestResult>, entity: PropertyListValue,
                             into writer: inout KeyedArchiveWriter) throws -> PropertyListValue {
        let predicate = try request.predicate.map { try self.predicate($0, into: &writer) } ?? KeyedArchiveWriter.null
        let sorts = request.sortDescriptors.map { descriptors in
            writer.array(descriptors.map { sortDescriptor($0, into: &writer) })
        } ?? KeyedArchiveWriter.null
        let prefetching = request.relationshipKeyPathsForPrefetching.map { paths in
            writer.array(paths.map { writer.string($0) })
        } ?? KeyedArchiveWriter.null
        guard entity != KeyedArchiveWriter.null else {
            throw KeyedArchiveEncodingError(reason: "a fetch request for \(request.entityName ?? "no entity") names no entity of the model")
        }
        // The switches the archive's NSFetchRequestFlags hold: only the defaults are written (see
        // above), so a request with others cannot be archived faithfully.
        guard request.includesSubentities, request.includesPendingChanges, request.returnsObjectsAsFaults,
              request.includesPropertyValues, !request.returnsDistinctResults, !request.shouldRefreshRefetchedObjects else {
            throw KeyedArchiveEncodingError(reason: "a fetch request for \(request.entityName ?? "?") with switches other than the defaults cannot be archived yet")
        }
        let valuesToFetch = try request.propertiesToFetch.map { properties in
            writer.array(try properties.map { property in
                guard !(property is NSExpressionDescription),
                      let name = (property as? NSPropertyDescription)?.name ?? property as? String else {
                    throw KeyedArchiveEncodingError(reason: "a fetch request fetches \(property), which cannot be archived (only property names can)")
                }
                return writer.string(name)
            })
        } ?? KeyedArchiveWriter.null
        if request.propertiesToGroupBy != nil || request.havingPredicate != nil {
            throw KeyedArchiveEncodingError(reason: "a fetch request that groups results cannot be archived yet")
        }
        return writer.object(["NSFetchRequest", "NSPersistentStoreRequest", "NSObject"], [
            "NSEntity": entity,
            "NSPredicate": predicate,
            "NSSortDescriptors": sorts,
            "NSValuesToFetch": valuesToFetch,
            "NSValuesToGroupBy": KeyedArchiveWriter.null,
            "NSHavingPredicate": KeyedArchiveWriter.null,
            "NSRelationshipKeyPathsForPrefetching": prefetching,
            "NSFetchLimit": .integer(Int64(request.fetchLimit)),
            "NSFetchOffset": .integer(Int64(request.fetchOffset)),
            "NSBatchSize": .integer(Int64(request.fetchBatchSize)),
            "NSResultType": .integer(Int64(request.resultType.rawValue)),
            "NSHasFetchRequestFlags": .bool(true),
            "NSFetchRequestFlags": .integer(30),
            "NSAllocationType": .integer(0),
        ])
    }
}
