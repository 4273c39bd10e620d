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
        try self.init(predicate, in: ResolutionScope(entity: entity))
    }

    /// Resolves `predicate` in `scope`: key paths from its entity, `$x.key` from the entity of
    /// the SUBQUERY member `$x`.
    package init(_ predicate: NSPredicate, in scope: ResolutionScope) throws {
        switch predicate.resolved {
        case let compound as NSCompoundPredicate:
            let parts = try compound.subpredicates.map { try ResolvedPredicate($0, in: scope) }
            switch compound.compoundPredicateType {
            case .and: self = .and(parts)
            case .or: self = .or(parts)
            // NOT of nothing is NOT TRUEPREDICATE, as `NSCompoundPredicate` prints and evaluates it.
            case .not: self = parts.first.map { .not($0) } ?? .truth(false)
            }
        case let comparison as NSComparisonPredicate:
            self = .comparison(try ResolvedComparison(comparison, in: scope))
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
    package func evaluate(with object: Any?, variables: [String: Any]? = nil) -> Bool {
        switch self {
        case .truth(let truth): truth
        case .and(let parts): parts.allSatisfy { $0.evaluate(with: object, variables: variables) }
        case .or(let parts): parts.contains { $0.evaluate(with: object, variables: variables) }
        case .not(let part): !part.evaluate(with: object, variables: variables)
        case .comparison(let comparison): comparison.evaluate(with: object, variables: variables)
        case .block(let predicate): predicate.evaluate(with: object, substitutionVariables: variables)
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
        try self.init(comparison, in: ResolutionScope(entity: entity))
    }

    package init(_ comparison: NSComparisonPredicate, in scope: ResolutionScope) throws {
        // Only the left side of ANY and ALL may go through a to-many relationship.
        left = try ResolvedExpression(comparison.leftExpression, in: scope,
                                      allowsToMany: comparison.comparisonPredicateModifier != .direct, in: comparison)
        right = try ResolvedExpression(comparison.rightExpression, in: scope, allowsToMany: false, in: comparison)
        source = comparison
    }

    package func evaluate(with object: Any?, variables: [String: Any]? = nil) -> Bool {
        source.compare(left.value(for: object, variables: variables), right.value(for: object, variables: variables))
    }
}

/// Where a predicate is resolved: the entity its key paths start from, and the entities of the
/// SUBQUERY members (`$x`) in scope.
package struct ResolutionScope {
    package let entity: NSEntityDescription
    package var variables: [String: NSEntityDescription] = [:]

    package init(entity: NSEntityDescription, variables: [String: NSEntityDescription] = [:]) {
        self.entity = entity
        self.variables = variables
    }
}
