import Foundation

/// The expressions a batch update can compute for each row: arithmetic, functions and
/// conditionals over constants and the attributes of the row itself, such as
/// `NSExpression(format: "price * 1.1")` or `uppercase:(name)`.
///
/// They are evaluated in memory on each row's values as the store returns them, with the same
/// evaluation as `NSExpression.expressionValue(with:context:)`; a result the attribute cannot
/// hold is error 1550 naming the object. Key paths through relationships, variables,
/// subqueries and set operations are refused before any row is read.
enum BatchComputedValue {
    struct Unsupported: Error {
        let message: String
    }

    /// The attributes of `entity` that `expression` reads; throws `Unsupported` for what a row
    /// alone cannot answer.
    static func sources(of expression: NSExpression, in entity: NSEntityDescription) throws -> [NSAttributeDescription] {
        var names: [String] = []
        try collectKeys(of: expression, into: &names)
        return try names.map { name in
            guard let attribute = entity.layout.propertiesByName[name] as? NSAttributeDescription, !attribute.isTransient else {
                throw Unsupported(message: "'\(name)' is not a stored attribute of \(entity.name ?? "?")")
            }
            return attribute
        }
    }

    private static func collectKeys(of expression: NSExpression, into names: inout [String]) throws {
        switch expression.expressionType {
        case .constantValue:
            break
        case .keyPath:
            let key = expression.keyPath
            guard !key.contains("."), !key.hasPrefix("@") else {
                throw Unsupported(message: "the key path '\(key)' leaves the object (only its own attributes can be read)")
            }
            if !names.contains(key) { names.append(key) }
        case .function:
            if let operand = expression.operand, operand.expressionType != .evaluatedObject {
                try collectKeys(of: operand, into: &names)
            }
            for argument in expression.arguments ?? [] { try collectKeys(of: argument, into: &names) }
        case .aggregate:
            for member in expression.members { try collectKeys(of: member, into: &names) }
        case .conditional:
            try collectKeys(of: expression.predicate, into: &names)
            try collectKeys(of: expression.trueExpression, into: &names)
            try collectKeys(of: expression.falseExpression, into: &names)
        case .variable:
            throw Unsupported(message: "the variable $\(expression.variable) has no value")
        case .evaluatedObject:
            throw Unsupported(message: "SELF is the object, not a value")
        case .subquery, .unionSet, .intersectSet, .minusSet:
            throw Unsupported(message: "collections are not computed per row")
        case .fetchRequest:
            throw Unsupported(message: "a FETCH is not computed per row")
        }
    }

    private static func collectKeys(of predicate: NSPredicate, into names: inout [String]) throws {
        switch predicate.resolved {
        case let compound as NSCompoundPredicate:
            for subpredicate in compound.subpredicates { try collectKeys(of: subpredicate, into: &names) }
        case let comparison as NSComparisonPredicate:
            guard comparison.comparisonPredicateModifier == .direct else {
                throw Unsupported(message: "ANY and ALL need a to-many relationship")
            }
            try collectKeys(of: comparison.leftExpression, into: &names)
            try collectKeys(of: comparison.rightExpression, into: &names)
        default:
            break
        }
    }

    /// `expression` evaluated on `row`, as a value of `attribute`.
    static func value(of expression: NSExpression, sources: [NSAttributeDescription], row: RowSnapshot,
                      for attribute: NSAttributeDescription) throws -> PrimitiveValue {
        var object: [String: Any] = [:]
        let layout = row.entity.layout
        for source in sources {
            guard let slot = layout.attributeSlot(of: source) else { continue }
            if let value = try row.values[slot].readingExternalData().objectValue(for: source.attributeType) { object[source.name] = value }
        }
        let result = expression.expressionValue(with: object, context: nil)
        do {
            return try PrimitiveValue(result, for: attribute)
        } catch {
            throw CoreDataError.make(.managedObjectValidation,
                                     "The batch update computes \(expression) for \(attribute.entity?.name ?? "?").\(attribute.name) of \(row.objectID.uriRepresentation().absoluteString), which gives \(result.map { "\($0)" } ?? "nil"): \(error.reason)",
                                     [NSValidationKeyErrorKey: attribute.name])
        }
    }
}
