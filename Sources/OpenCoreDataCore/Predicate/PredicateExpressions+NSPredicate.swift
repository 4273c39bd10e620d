import Foundation

// Each Foundation predicate node says what it is in NSPredicate terms (see PredicateConversion).

extension PredicateExpressions.Variable: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        try conversion.expression(forVariable: key)
    }
}

extension PredicateExpressions.Value: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        NSExpression(forConstantValue: Self.unwrapped(value))
    }

    /// `Optional.some(x)` as `x`, `.none` as nil.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }
}

extension PredicateExpressions.NilLiteral: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        NSExpression(forConstantValue: nil)
    }
}

extension PredicateExpressions.KeyPath: NSExpressionConvertibleNode, NSPredicateConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        let base = try conversion.expression(of: root)
        switch KeyPathName(keyPath) {
        case .property(let name): return PredicateConversion.keyPath(name, on: base)
        case .count: return PredicateConversion.keyPath("@count", on: base)
        case .length: return PredicateConversion.keyPath("length", on: base)
        case .isEmpty:
            return NSExpression(forConditional: PredicateConversion.comparison(PredicateConversion.keyPath("@count", on: base), .equalTo,
                                                                              NSExpression(forConstantValue: 0)),
                                trueExpression: NSExpression(forConstantValue: true), falseExpression: NSExpression(forConstantValue: false))
        case .unknown(let description):
            throw PredicateConversion.unsupported(self, "the key path \(description) names no stored property")
        }
    }

    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        if case .isEmpty = KeyPathName(keyPath) {
            // `$0.pets.isEmpty` as a condition: `pets.@count == 0`.
            let base = try conversion.expression(of: root)
            return PredicateConversion.comparison(PredicateConversion.keyPath("@count", on: base), .equalTo, NSExpression(forConstantValue: 0))
        }
        return PredicateConversion.comparison(try nsExpression(&conversion), .equalTo, NSExpression(forConstantValue: true))
    }
}

/// What a Swift key path names, in predicate terms.
enum KeyPathName {
    case property(String)
    case count, length, isEmpty
    case unknown(String)

    init(_ keyPath: AnyKeyPath) {
        let description = String(describing: keyPath)
        let rootType = type(of: keyPath).rootType
        let valueType = type(of: keyPath).valueType
        if description.contains("<computed") {
            // A `@Managed` property (computed, through its wrapper): named by the model.
            if let name = ManagedClassRegistry.propertyName(of: keyPath) { self = .property(name); return }
            // Swift names computed properties by address only; the collection's `count` and
            // `isEmpty` (and a string's `count`) are the ones predicates use.
            if rootType is String.Type || rootType is Substring.Type, valueType is Int.Type { self = .length; return }
            if rootType is any Collection.Type {
                if valueType is Int.Type { self = .count; return }
                if valueType is Bool.Type { self = .isEmpty; return }
            }
            self = .unknown(description)
            return
        }
        // `\Person.owner?.name?` → `owner.name`: drop the root type and optional-chaining marks.
        let components = description.dropFirst().split(separator: ".").dropFirst()
            .map { $0.replacingOccurrences(of: "?", with: "").replacingOccurrences(of: "!", with: "") }
        guard !components.isEmpty, components.allSatisfy({ !$0.isEmpty && !$0.contains("<") }) else {
            self = .unknown(description)
            return
        }
        self = .property(components.joined(separator: "."))
    }
}

extension PredicateExpressions.Equal: NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        PredicateConversion.comparison(try conversion.expression(of: lhs), .equalTo, try conversion.expression(of: rhs))
    }
}

extension PredicateExpressions.NotEqual: NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        PredicateConversion.comparison(try conversion.expression(of: lhs), .notEqualTo, try conversion.expression(of: rhs))
    }
}

extension PredicateExpressions.Comparison: NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        let type: NSComparisonPredicate.Operator = switch op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqualTo
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqualTo
        @unknown default: throw PredicateConversion.unsupported(self, "unknown comparison operator")
        }
        return PredicateConversion.comparison(try conversion.expression(of: lhs), type, try conversion.expression(of: rhs))
    }
}

extension PredicateExpressions.Conjunction: NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        NSCompoundPredicate(andPredicateWithSubpredicates: [try conversion.predicate(of: lhs), try conversion.predicate(of: rhs)])
    }
}

extension PredicateExpressions.Disjunction: NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        NSCompoundPredicate(orPredicateWithSubpredicates: [try conversion.predicate(of: lhs), try conversion.predicate(of: rhs)])
    }
}

extension PredicateExpressions.Negation: NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        NSCompoundPredicate(notPredicateWithSubpredicate: try conversion.predicate(of: wrapped))
    }
}

extension PredicateExpressions.CollectionContainsCollection: NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        PredicateConversion.comparison(try conversion.expression(of: base), .contains, try conversion.expression(of: other))
    }
}

extension PredicateExpressions.SequenceStartsWith: NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        PredicateConversion.comparison(try conversion.expression(of: base), .beginsWith, try conversion.expression(of: prefix))
    }
}

extension PredicateExpressions.SequenceContains: NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        let collection = try conversion.expression(of: sequence)
        let member = try conversion.expression(of: element)
        // A constant list: `["a", "b"].contains($0.name)` is `name IN {"a", "b"}`; otherwise the
        // collection is the object's (a to-many): `pets CONTAINS %@`.
        if collection.expressionType == .constantValue {
            return PredicateConversion.comparison(member, .in, collection)
        }
        return PredicateConversion.comparison(collection, .contains, member)
    }
}

extension PredicateExpressions.SequenceContainsWhere: NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        // Some member passes: `SUBQUERY(c, $x, test).@count > 0`.
        try conversion.subqueryCount(over: sequence, variable: variable.key, test: test, negated: false, .greaterThan)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: NSPredicateConvertibleNode {
    func nsPredicate(_ conversion: inout PredicateConversion) throws -> NSPredicate {
        // No member fails: `SUBQUERY(c, $x, NOT test).@count == 0`.
        try conversion.subqueryCount(over: sequence, variable: variable.key, test: test, negated: true, .equalTo)
    }
}

extension PredicateConversion {
    /// `SUBQUERY(sequence, $x, [NOT] test).@count <operator> 0`, with `variable` standing for `$x`.
    mutating func subqueryCount(over sequence: Any, variable: PredicateExpressions.VariableID, test: Any, negated: Bool,
                                _ type: NSComparisonPredicate.Operator) throws -> NSPredicate {
        let collection = try expression(of: sequence)
        let name = newVariableName()
        var condition = try with(variable, as: NSExpression(forVariable: name)) { try $0.predicate(of: test) }
        if negated { condition = NSCompoundPredicate(notPredicateWithSubpredicate: condition) }
        let subquery = NSExpression(forSubquery: collection, usingIteratorVariable: name, predicate: condition)
        return Self.comparison(Self.keyPath("@count", on: subquery), type, NSExpression(forConstantValue: 0))
    }
}

extension PredicateExpressions.OptionalFlatMap: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        // Key paths already read nil through a nil object: `$0.owner?.name` is `owner.name`.
        let unwrapped = try conversion.expression(of: wrapped)
        return try conversion.with(variable.key, as: unwrapped) { try $0.expression(of: self.transform) }
    }
}

extension PredicateExpressions.ForcedUnwrap: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        try conversion.expression(of: inner)
    }
}

extension PredicateExpressions.NilCoalesce: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        let value = try conversion.expression(of: lhs)
        return NSExpression(forConditional: PredicateConversion.comparison(value, .notEqualTo, NSExpression(forConstantValue: nil)),
                            trueExpression: value, falseExpression: try conversion.expression(of: rhs))
    }
}

extension PredicateExpressions.Arithmetic: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        let function = switch op {
        case .add: "add:to:"
        case .subtract: "from:subtract:"
        case .multiply: "multiply:by:"
        @unknown default: ""
        }
        guard !function.isEmpty else { throw PredicateConversion.unsupported(self, "unknown arithmetic operator") }
        return NSExpression(forFunction: function, arguments: [try conversion.expression(of: lhs), try conversion.expression(of: rhs)])
    }
}

extension PredicateExpressions.UnaryMinus: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        NSExpression(forFunction: "from:subtract:", arguments: [NSExpression(forConstantValue: 0), try conversion.expression(of: wrapped)])
    }
}

extension PredicateExpressions.Conditional: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        NSExpression(forConditional: try conversion.predicate(of: test), trueExpression: try conversion.expression(of: trueBranch),
                     falseExpression: try conversion.expression(of: falseBranch))
    }
}

extension PredicateExpressions.FloatDivision: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        NSExpression(forFunction: "divide:by:", arguments: [try conversion.expression(of: lhs), try conversion.expression(of: rhs)])
    }
}

extension PredicateExpressions.IntRemainder: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        NSExpression(forFunction: "modulus:by:", arguments: [try conversion.expression(of: lhs), try conversion.expression(of: rhs)])
    }
}

extension PredicateExpressions.IntDivision: NSExpressionConvertibleNode {
    func nsExpression(_ conversion: inout PredicateConversion) throws -> NSExpression {
        // Swift's integer division truncates toward zero: `trunc:(divide:by:(a, b))`.
        let quotient = NSExpression(forFunction: "divide:by:",
                                    arguments: [try conversion.expression(of: lhs), try conversion.expression(of: rhs)])
        return NSExpression(forFunction: "trunc:", arguments: [quotient])
    }
}
