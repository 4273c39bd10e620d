import Foundation

/// A predicate resolved against an entity: its comparisons with their key paths as the model's
/// properties (`ResolvedKeyPath`), constants as values, and what only memory can run marked.
///
/// Made once per predicate and entity (`NSPredicate.resolved(for:)`, which keeps the last one),
/// and read by everything that runs a predicate over an entity's objects: the SQL compiler
/// renders it, and in-memory evaluation (`evaluate(with:)`) walks it — for the in-memory
/// store's rows and for a context's unsaved objects — so both start from the same checked
/// meaning and neither looks a key up by name again.
///
/// Expressions other than key paths, `SELF` and constants (functions, SUBQUERY, TERNARY,
/// aggregates, variables) are kept as expressions: they are checked against the model here,
/// and evaluated as `NSExpression` evaluates them.
package indirect enum ResolvedPredicate: @unchecked Sendable {
    // @unchecked Sendable: never changed once made; it holds the predicate's own parts (immutable,
    // as NSPredicate's conformance says) and the model's descriptions, shared as the model is.
    case truth(Bool)
    case and([ResolvedPredicate])
    case or([ResolvedPredicate])
    case not(ResolvedPredicate)
    case comparison(ResolvedComparison)
    /// A block predicate: memory runs it; SQL cannot.
    case block(NSPredicate)

    /// Resolves `predicate` against `entity`, with the errors `PredicateCheck` gives for key
    /// paths the model does not have (134091).
    package init(_ predicate: NSPredicate, for entity: NSEntityDescription) throws {
        switch predicate.resolved {
        case let compound as NSCompoundPredicate:
            let parts = try compound.subpredicates.map { try ResolvedPredicate($0, for: entity) }
            switch compound.compoundPredicateType {
            case .and: self = .and(parts)
            case .or: self = .or(parts)
            // NOT of nothing is false, as `NSCompoundPredicate.evaluate` has it.
            case .not: self = parts.first.map { .not($0) } ?? .truth(false)
            }
        case let comparison as NSComparisonPredicate:
            self = .comparison(try ResolvedComparison(comparison, for: entity))
        case let other:
            if let truth = other.constantTruth {
                self = .truth(truth)
            } else {
                self = .block(other)
            }
        }
    }

    /// Whether `object` (a managed object, an in-memory store's row, or any value a predicate
    /// reads) satisfies the predicate: the same answer as `NSPredicate.evaluate(with:)`.
    package func evaluate(with object: Any?) -> Bool {
        switch self {
        case .truth(let truth): truth
        case .and(let parts): parts.allSatisfy { $0.evaluate(with: object) }
        case .or(let parts): parts.contains { $0.evaluate(with: object) }
        case .not(let part): !part.evaluate(with: object)
        case .comparison(let comparison): comparison.evaluate(with: object)
        case .block(let predicate): predicate.evaluate(with: object)
        }
    }
}

/// A comparison whose sides are resolved.
package struct ResolvedComparison {
    package let left: ResolvedExpression
    package let right: ResolvedExpression
    /// The comparison as written: its operator, modifier and options, and its text for errors.
    package let source: NSComparisonPredicate

    package var type: NSComparisonPredicate.Operator { source.predicateOperatorType }
    package var modifier: NSComparisonPredicate.Modifier { source.comparisonPredicateModifier }
    package var options: NSComparisonPredicate.Options { source.options }

    /// Sides already resolved, for `source` (a comparison made from part of another).
    package init(left: ResolvedExpression, right: ResolvedExpression, source: NSComparisonPredicate) {
        self.left = left
        self.right = right
        self.source = source
    }

    package init(_ comparison: NSComparisonPredicate, for entity: NSEntityDescription) throws {
        // Only the left side of ANY and ALL may go through a to-many relationship.
        left = try ResolvedExpression(comparison.leftExpression, for: entity,
                                      allowsToMany: comparison.comparisonPredicateModifier != .direct, in: comparison)
        right = try ResolvedExpression(comparison.rightExpression, for: entity, allowsToMany: false, in: comparison)
        source = comparison
    }

    package func evaluate(with object: Any?) -> Bool {
        source.compare(left.value(for: object), right.value(for: object))
    }
}

/// One side of a resolved comparison.
package enum ResolvedExpression {
    case constant(Any?)
    case evaluatedObject
    case keyPath(ResolvedKeyPath)
    /// Anything else, checked against the model and evaluated as an expression.
    case computed(NSExpression)

    init(_ expression: NSExpression, for entity: NSEntityDescription, allowsToMany: Bool, in predicate: NSPredicate) throws {
        switch expression.expressionType {
        case .constantValue: self = .constant(expression.constantValue)
        case .evaluatedObject: self = .evaluatedObject
        case .keyPath: self = .keyPath(try ResolvedKeyPath(expression.keyPath, from: entity, allowsToMany: allowsToMany, in: predicate))
        default:
            try PredicateCheck.validate(expression, for: entity, allowsToMany: allowsToMany, in: predicate)
            self = .computed(expression)
        }
    }

    /// The expression as written.
    package var expression: NSExpression {
        switch self {
        case .constant(let value): NSExpression(forConstantValue: value)
        case .evaluatedObject: NSExpression.expressionForEvaluatedObject()
        case .keyPath(let path): NSExpression(forKeyPath: path.keyPath)
        case .computed(let expression): expression
        }
    }

    package func value(for object: Any?) -> Any? {
        switch self {
        case .constant(let value): value
        case .evaluatedObject: object
        case .keyPath(let path): path.value(of: object)
        case .computed(let expression): expression.value(for: object, variables: nil)
        }
    }
}
