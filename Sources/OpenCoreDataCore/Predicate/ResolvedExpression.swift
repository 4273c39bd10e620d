import Foundation

/// An expression of a resolved predicate: key paths as the model's properties wherever they
/// are (in a function's arguments, a TERNARY's branches, a SUBQUERY's collection and predicate,
/// `$x.key` of a SUBQUERY member), with each part kept next to the expression it came from.
///
/// Evaluated in memory by `value(for:variables:)`, with the results `NSExpression.value(for:
/// variables:)` gives, and rendered as SQL by the SQLite store's compiler.
package indirect enum ResolvedExpression {
    case constant(Any?)
    case evaluatedObject
    case keyPath(ResolvedKeyPath)
    /// `$name`: a SUBQUERY's member, or a variable that was not substituted.
    case variable(String)
    /// `receiver.path`, a key path read from a computed value: `$x.name` of a SUBQUERY member,
    /// `SUBQUERY(…).@count`, `uppercase:(name).length`. `resolved` is the path from the
    /// receiver's entity, when the receiver is a member whose entity is known.
    case receiverKeyPath(NSExpression, receiver: ResolvedExpression, path: String, resolved: ResolvedKeyPath?)
    /// A function of the predicate language (`add:to:`, `count:`, `uppercase:`, …).
    case function(NSExpression, arguments: [ResolvedExpression])
    /// `TERNARY(predicate, whenTrue, whenFalse)`.
    case conditional(NSExpression, ResolvedPredicate, whenTrue: ResolvedExpression, whenFalse: ResolvedExpression)
    /// `SUBQUERY(collection, $variable, predicate)`: the members for which `predicate` holds.
    case subquery(NSExpression, collection: ResolvedExpression, variable: String, predicate: ResolvedPredicate)
    /// `{a, b, c}`.
    case aggregate(NSExpression, [ResolvedExpression])
    /// A method call (`FUNCTION(receiver, 'selector:', …)`) or a set expression (`UNION`,
    /// `INTERSECT`, `MINUS`): checked against the model, evaluated as the expression is.
    case computed(NSExpression)

    init(_ expression: NSExpression, in scope: ResolutionScope, allowsToMany: Bool, in predicate: NSPredicate) throws {
        switch expression.expressionType {
        case .constantValue:
            self = .constant(expression.constantValue)
        case .evaluatedObject:
            self = .evaluatedObject
        case .keyPath:
            self = .keyPath(try ResolvedKeyPath(expression.keyPath, from: scope.entity, allowsToMany: allowsToMany, in: predicate))
        case .variable:
            self = .variable(expression.variable)
        case .aggregate:
            self = .aggregate(expression, try expression.members.map { try ResolvedExpression($0, in: scope, allowsToMany: false, in: predicate) })
        case .function:
            self = try Self.function(expression, in: scope, in: predicate)
        case .conditional:
            self = .conditional(expression, try ResolvedPredicate(expression.predicate, in: scope),
                                whenTrue: try ResolvedExpression(expression.trueExpression, in: scope, allowsToMany: allowsToMany, in: predicate),
                                whenFalse: try ResolvedExpression(expression.falseExpression, in: scope, allowsToMany: allowsToMany, in: predicate))
        case .subquery:
            guard let collectionExpression = expression.collection as? NSExpression else {
                self = .computed(expression)
                return
            }
            // Key paths in the subquery's predicate that do not start with its variable belong to
            // the evaluated object, as everywhere else; `$x.key` to the member.
            let collection = try ResolvedExpression(collectionExpression, in: scope, allowsToMany: true, in: predicate)
            var inner = scope
            inner.variables[expression.variable] = collection.memberEntity
            self = .subquery(expression, collection: collection, variable: expression.variable,
                             predicate: try ResolvedPredicate(expression.predicate, in: inner))
        case .unionSet, .intersectSet, .minusSet, .fetchRequest:
            try PredicateCheck.validate(expression, for: scope.entity, allowsToMany: allowsToMany, in: predicate)
            self = .computed(expression)
        }
    }

    /// A function's arguments may be collections (`sum:(pets.weight)`); a key path's receiver
    /// is resolved, and its key path from the receiver's entity when that is known.
    private static func function(_ expression: NSExpression, in scope: ResolutionScope, in predicate: NSPredicate) throws -> ResolvedExpression {
        guard let target = expression.operand else {
            let arguments = try (expression.arguments ?? []).map { try ResolvedExpression($0, in: scope, allowsToMany: true, in: predicate) }
            return .function(expression, arguments: arguments)
        }
        let receiver = try ResolvedExpression(target, in: scope, allowsToMany: true, in: predicate)
        guard let path = expression.functionKeyPath else {
            // A method: its receiver is checked; it runs in memory only.
            return .computed(expression)
        }
        let resolved = try receiver.entity(in: scope).map { try ResolvedKeyPath(path, from: $0, allowsToMany: true, in: predicate) }
        return .receiverKeyPath(expression, receiver: receiver, path: path, resolved: resolved)
    }

    /// The entity of the object this expression stands for, when it is a SUBQUERY member.
    private func entity(in scope: ResolutionScope) -> NSEntityDescription? {
        if case .variable(let name) = self { return scope.variables[name] }
        return nil
    }

    /// The entity of the members of the collection this expression reads: the destination of
    /// the to-many relationship its key path ends with.
    private var memberEntity: NSEntityDescription? {
        let path: ResolvedKeyPath? = switch self {
        case .keyPath(let path): path
        case .receiverKeyPath(_, _, _, let resolved): resolved
        default: nil
        }
        guard case .property(let property)? = path?.steps.last, let relationship = property as? NSRelationshipDescription else { return nil }
        return relationship.destinationEntity
    }

    /// The expression as written.
    package var expression: NSExpression {
        switch self {
        case .constant(let value): NSExpression(forConstantValue: value)
        case .evaluatedObject: NSExpression.expressionForEvaluatedObject()
        case .keyPath(let path): NSExpression(forKeyPath: path.keyPath)
        case .variable(let name): NSExpression(forVariable: name)
        case .receiverKeyPath(let expression, _, _, _), .function(let expression, _), .conditional(let expression, _, _, _),
             .subquery(let expression, _, _, _), .aggregate(let expression, _), .computed(let expression):
            expression
        }
    }

    // MARK: Evaluation

    /// The value for `object`, with `$variables` from `variables`: what `NSExpression.value(for:
    /// variables:)` gives, read through the model's properties.
    package func value(for object: Any?, variables: [String: Any]? = nil) -> Any? {
        switch self {
        case .constant(let value):
            return value
        case .evaluatedObject:
            return object
        case .keyPath(let path):
            return path.value(of: object)
        case .variable(let name):
            return variables?[name]
        case .receiverKeyPath(_, let receiver, let path, let resolved):
            let value = receiver.value(for: object, variables: variables)
            return resolved.map { $0.value(of: value) } ?? KeyPathValue.value(of: value, keyPath: path)
        case .function(let expression, let arguments):
            return PredicateFunction.evaluate(expression.function, arguments.map { $0.value(for: object, variables: variables) })
        case .conditional(_, let condition, let whenTrue, let whenFalse):
            return (condition.evaluate(with: object, variables: variables) ? whenTrue : whenFalse).value(for: object, variables: variables)
        case .subquery(_, let collection, let variable, let predicate):
            // The members for which the predicate holds with the variable bound to them.
            var scope = variables ?? [:]
            var matches: [Any] = []
            for member in ValueComparison.elements(of: collection.value(for: object, variables: variables)) {
                scope[variable] = member ?? NSNull()
                if predicate.evaluate(with: object, variables: scope) { matches.append(member ?? NSNull()) }
            }
            return matches
        case .aggregate(_, let members):
            return members.map { $0.value(for: object, variables: variables) as Any }
        case .computed(let expression):
            return expression.value(for: object, variables: variables)
        }
    }
}
