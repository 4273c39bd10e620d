import Foundation

extension NSExpression {
    package func value(for object: Any?, variables: [String: Any]?) -> Any? {
        switch expressionType {
        case .constantValue: return constant
        case .evaluatedObject: return object
        case .keyPath: return KeyPathValue.value(of: object, keyPath: keyPath)
        case .variable: return variables?[variable]
        case .aggregate: return members.map { $0.value(for: object, variables: variables) as Any }
        case .function: return functionValue(for: object, variables: variables)
        case .conditional:
            let branch = predicate.evaluate(with: object, substitutionVariables: variables) ? trueExpression : falseExpression
            return branch.value(for: object, variables: variables)
        case .subquery:
            return subqueryValue(for: object, variables: variables)
        case .fetchRequest:
            return fetchValue(for: object, variables: variables)
        case .unionSet, .intersectSet, .minusSet:
            return setValue(left.value(for: object, variables: variables), right.value(for: object, variables: variables))
        }
    }

    private func functionValue(for object: Any?, variables: [String: Any]?) -> Any? {
        let values = (elements ?? []).map { $0.value(for: object, variables: variables) }
        guard let name else { return nil }
        if let target {
            if let path = functionKeyPath {
                return KeyPathValue.value(of: target.value(for: object, variables: variables), keyPath: path)
            }
            return PredicateMethod.invoke(name, on: target.value(for: object, variables: variables), arguments: values)
        }
        return PredicateFunction.evaluate(name, values)
    }

    /// The members of the collection for which the predicate holds with the iterator variable
    /// bound to them. The predicate's other key paths read `object`, as Core Data's do.
    private func subqueryValue(for object: Any?, variables: [String: Any]?) -> Any? {
        guard let target, let name else { return nil }
        var scope = variables ?? [:]
        var matches: [Any] = []
        for member in ValueComparison.elements(of: target.value(for: object, variables: variables)) {
            scope[name] = member ?? NSNull()
            if predicate.evaluate(with: object, substitutionVariables: scope) { matches.append(member ?? NSNull()) }
        }
        return matches
    }

    /// UNION, INTERSECT and MINUS over the members of two collections, each member once
    /// (equal as predicates compare values). An array, in the order the members first appear.
    private func setValue(_ leftValue: Any?, _ rightValue: Any?) -> [Any] {
        let leftMembers = ValueComparison.elements(of: leftValue)
        let rightMembers = ValueComparison.elements(of: rightValue)
        func isIn(_ member: Any?, _ collection: [Any?]) -> Bool {
            collection.contains { ValueComparison.isEqual($0, member) }
        }
        var result: [Any?] = []
        switch expressionType {
        case .unionSet:
            for member in leftMembers + rightMembers where !isIn(member, result) { result.append(member) }
        case .intersectSet:
            for member in leftMembers where isIn(member, rightMembers) && !isIn(member, result) { result.append(member) }
        default:
            for member in leftMembers where !isIn(member, rightMembers) && !isIn(member, result) { result.append(member) }
        }
        return result.map { $0 ?? NSNull() }
    }
}
