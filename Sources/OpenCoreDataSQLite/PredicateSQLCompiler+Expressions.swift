import Foundation
import OCDSQLite
import OpenCoreDataCore

/// What a SQL value is, so that SQL compares and computes only what it computes as memory does.
package enum ValueKind: Equatable {
    case number(isInteger: Bool)
    /// A decimal attribute: stored as a double, so compared but not computed with.
    case decimal
    case string, date, object
    /// A nil constant: compatible with anything.
    case null
    /// Data, UUIDs, URIs, transformable values.
    case other

    init(_ type: NSAttributeType) {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            self = .number(isInteger: true)
        case .doubleAttributeType, .floatAttributeType: self = .number(isInteger: false)
        case .decimalAttributeType: self = .decimal
        case .stringAttributeType: self = .string
        case .dateAttributeType: self = .date
        default: self = .other
        }
    }

    init(of value: Any?) {
        switch value {
        case nil, is NSNull: self = .null
        case is String, is NSString, is Substring: self = .string
        case is Date: self = .date
        case is NSManagedObject, is NSManagedObjectID: self = .object
        default:
            if let number = PredicateNumber(value) {
                if case .integer = number { self = .number(isInteger: true) } else { self = .number(isInteger: false) }
            } else {
                self = .other
            }
        }
    }

    var isNumeric: Bool {
        switch self {
        case .number, .decimal: true
        default: false
        }
    }

    /// Whether SQL compares values of these kinds as memory does.
    func isComparable(with other: ValueKind) -> Bool {
        switch (self, other) {
        case (.null, _), (_, .null): true
        case (.number, .number), (.number, .decimal), (.decimal, .number), (.decimal, .decimal): true
        case (.string, .string), (.date, .date), (.object, .object): true
        default: false
        }
    }

    var name: String {
        switch self {
        case .number, .decimal: "a number"
        case .string: "a string"
        case .date: "a date"
        case .object: "an object"
        case .null: "nil"
        case .other: "a value SQL can't compute with"
        }
    }
}

/// Arithmetic, functions, TERNARY and SUBQUERY in SQL.
///
/// - `+ - *` on numbers; `/` in floating point (`7 / 2` is 3.5, as in memory); `modulus:by:`
///   on integers only (SQLite's `%` truncates doubles); unary minus. A nil operand, or a
///   division by zero, is NULL, as it is nil in memory. Decimal attributes (stored as doubles)
///   and dates are refused: their arithmetic would differ from memory's.
/// - `abs:`; `uppercase:`, `lowercase:` and `length:` / `.length` through the dialect's
///   `function` (for SQLite, the same Swift string code as memory); `count:`, `sum:`, `min:`, `max:`, `average:` of a
///   to-many key path (as the collection operators); `CAST` between numbers and dates; `[SIZE]`
///   of a to-many relationship; `noindex:`.
/// - `TERNARY(predicate, a, b)` as `CASE WHEN … THEN a ELSE b END`.
/// - `SUBQUERY(toMany, $x, predicate)` followed by `.@count` (or `@sum.key`, `@avg.key`,
///   `@min.key`, `@max.key`), or inside `count:`, as a correlated sub-select. In its
///   predicate `$x.key` is the member's key and other key paths the fetched object's.
/// - Anything that reads nothing of the row (`now()`, `FUNCTION(now(), 'dateByAddingTimeInterval:',
///   -60)`, `2 * %@`) is evaluated once, in memory, and bound.
///
/// Everything else (other functions, set expressions, a SUBQUERY used as a collection, a
/// comparison of a number with a string) is an error naming it.
extension PredicateSQLCompiler {
    /// Whether the value of `expression` depends on the row (or on a SUBQUERY member); if not,
    /// it is computed once in memory.
    func readsRow(_ expression: ResolvedExpression) -> Bool {
        switch expression {
        case .constant: false
        case .evaluatedObject, .keyPath, .subquery: true
        // A variable is either a SUBQUERY's member or has not been substituted: either way SQL
        // handles it (or refuses it).
        case .variable: true
        case .receiverKeyPath(_, let receiver, _, _): readsRow(receiver)
        case .function(_, let arguments): arguments.contains(where: readsRow)
        case .aggregate(_, let members): members.contains(where: readsRow)
        case .conditional(_, let condition, let whenTrue, let whenFalse):
            readsRow(condition) || readsRow(whenTrue) || readsRow(whenFalse)
        case .computed(let expression): readsRow(expression)
        }
    }

    func readsRow(_ predicate: ResolvedPredicate) -> Bool {
        switch predicate {
        case .truth: false
        case .and(let parts), .or(let parts): parts.contains(where: readsRow)
        case .not(let part): readsRow(part)
        case .comparison(let comparison): readsRow(comparison.left) || readsRow(comparison.right)
        case .block: true
        }
    }

    /// For what stays an expression (a method, a set expression): whether it reads the row.
    private func readsRow(_ expression: NSExpression) -> Bool {
        switch expression.expressionType {
        case .constantValue: false
        // A FETCH runs a context's fetch: never while a store compiles a fetch of its own.
        case .evaluatedObject, .keyPath, .subquery, .variable, .fetchRequest: true
        case .aggregate, .unionSet, .intersectSet, .minusSet: (expression.elements ?? []).contains(where: readsRow)
        case .function: expression.operand.map(readsRow) == true || (expression.arguments ?? []).contains(where: readsRow)
        case .conditional: true
        }
    }

    /// The SQL for an expression other than a key path or `SELF`.
    mutating func computedOperand(_ expression: ResolvedExpression, in predicate: NSPredicate) throws -> SQLOperand {
        guard readsRow(expression) else { return try boundConstant(expression.value(for: nil), in: predicate) }
        switch expression {
        case .constant, .evaluatedObject, .keyPath:
            return try operand(expression, in: predicate)
        case .variable(let name):
            guard let scope = variableScopes[name] else {
                throw PredicateCheck.invalid("the variable $\(name) has no value (substitute it first)", predicate)
            }
            return SQLOperand(sql: "\(raw: scope.alias).Z_PK", attribute: nil, isObjectReference: true)
        case .function(let function, let arguments):
            return try functionOperand(function, arguments, in: predicate)
        case .receiverKeyPath(_, let receiver, let path, let resolved):
            return try keyPathOperand(path, resolved, of: receiver, in: predicate)
        case .conditional(_, let condition, let whenTrue, let whenFalse):
            let conditionSQL = try compile(condition)
            let trueOperand = try operand(whenTrue, in: predicate)
            let falseOperand = try operand(whenFalse, in: predicate)
            guard trueOperand.kind.isComparable(with: falseOperand.kind), trueOperand.kind != .other else {
                throw PredicateCheck.invalid("TERNARY gives \(trueOperand.kind.name) or \(falseOperand.kind.name): \(Dialect.storeName) needs both of one kind", predicate)
            }
            let kind = trueOperand.kind == .null ? falseOperand.kind : trueOperand.kind
            // CASE WHEN NULL takes the ELSE branch: an unknown condition is false, as in memory.
            return SQLOperand(sql: "(CASE WHEN \(conditionSQL) THEN \(trueOperand.sql) ELSE \(falseOperand.sql) END)", attribute: nil,
                              isObjectReference: kind == .object, computed: kind)
        case .subquery:
            throw PredicateCheck.invalid("a SUBQUERY is a collection: \(Dialect.storeName) compares its count (SUBQUERY(…).@count)", predicate)
        case .computed(let expression) where expression.expressionType == .fetchRequest:
            throw PredicateCheck.invalid("\(expression): a FETCH is only evaluated in memory, not by \(Dialect.storeName)", predicate)
        case .computed(let expression) where expression.expressionType == .function:
            throw PredicateCheck.invalid("\(expression): methods are only called in memory, not by \(Dialect.storeName)", predicate)
        case .aggregate(let expression, _), .computed(let expression):
            throw PredicateCheck.invalid("\(expression) is a collection \(Dialect.storeName) can't compute", predicate)
        }
    }

    /// A value computed in memory, bound as an argument.
    private mutating func boundConstant(_ value: Any?, in predicate: NSPredicate) throws -> SQLOperand {
        let kind = ValueKind(of: value)
        var operand = SQLOperand(sql: .empty, attribute: nil, isObjectReference: kind == .object, computed: kind)
        guard kind != .other else {
            throw PredicateCheck.invalid("\(Dialect.storeName) can't compute with \(PredicateFormatting.literal(value))", predicate)
        }
        operand.sql = .bind(try sqliteValue(value, for: operand, options: [], in: predicate))
        return operand
    }

    // MARK: Functions

    private mutating func functionOperand(_ expression: NSExpression, _ arguments: [ResolvedExpression],
                                          in predicate: NSPredicate) throws -> SQLOperand {
        let name = expression.function
        if let arity = PredicateFunction.arities[name], arity != arguments.count {
            throw PredicateCheck.invalid("\(expression): \(name) takes \(arity) argument\(arity == 1 ? "" : "s"), not \(arguments.count)", predicate)
        }
        switch name {
        case "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:":
            let left = try numericOperand(arguments[0], for: name, in: predicate)
            let right = try numericOperand(arguments[1], for: name, in: predicate)
            let integers = left.kind != .number(isInteger: false) && right.kind != .number(isInteger: false)
            let sql: SQLFragment
            switch name {
            case "add:to:": sql = "(\(left.sql) + \(right.sql))"
            case "from:subtract:": sql = "(\(left.sql) - \(right.sql))"
            case "multiply:by:": sql = "(\(left.sql) * \(right.sql))"
            // Division in floating point, as in memory (SQLite divides integers as integers).
            case "divide:by:": sql = Dialect.floatingDivision(left.sql, right.sql)
            default:
                guard integers else {
                    throw PredicateCheck.invalid("modulus:by: of a non-integer is only computed in memory, not by \(Dialect.storeName)", predicate)
                }
                sql = Dialect.integerRemainder(left.sql, right.sql)
            }
            let isInteger = integers && name != "divide:by:"
            return SQLOperand(sql: sql, attribute: nil, isObjectReference: false, computed: .number(isInteger: isInteger))
        case "abs:":
            let value = try numericOperand(arguments[0], for: name, in: predicate)
            return SQLOperand(sql: "abs(\(value.sql))", attribute: nil, isObjectReference: false, computed: value.kind)
        case "trunc:":
            // Toward zero, as in memory (NULL stays NULL).
            let value = try numericOperand(arguments[0], for: name, in: predicate)
            // An integer is its own truncation (a round trip through a double would lose digits).
            return SQLOperand(sql: value.kind == .number(isInteger: true) ? value.sql : Dialect.truncatedToInteger(value.sql),
                              attribute: nil, isObjectReference: false, computed: .number(isInteger: true))
        case "uppercase:", "lowercase:", "length:":
            let value = try operand(arguments[0], in: predicate)
            guard value.kind == .string || value.kind == .null else {
                throw PredicateCheck.invalid("\(name) needs a string, not \(value.kind.name)", predicate)
            }
            if name == "length:" { return try Self.length(of: value) }
            return SQLOperand(sql: try Dialect.function(name, [value.sql]), attribute: nil, isObjectReference: false, computed: .string)
        case "count:", "sum:", "min:", "max:", "average:", "median:", "stddev:":
            return try collectionFunctionOperand(name, arguments[0], in: predicate)
        case "castObject:toType:":
            let value = try operand(arguments[0], in: predicate)
            let type: String? = if case .constant(let type) = arguments[1] { type as? String } else { nil }
            switch (type, value.kind) {
            case ("NSNumber", .number), ("NSNumber", .date), ("NSNumber", .null):
                // A date is stored as its seconds since 2001, which is what CAST(date, "NSNumber") is.
                return SQLOperand(sql: value.sql, attribute: nil, isObjectReference: false, computed: value.kind == .date ? .number(isInteger: false) : value.kind)
            case ("NSDate", .number), ("NSDate", .date), ("NSDate", .null):
                return SQLOperand(sql: value.sql, attribute: nil, isObjectReference: false, computed: .date)
            default:
                throw PredicateCheck.invalid("\(expression) is only computed in memory, not by \(Dialect.storeName)", predicate)
            }
        case "objectFrom:withIndex:":
            // `toMany[SIZE]` is its count; other indexes need the collection in memory.
            if case .constant(let index) = arguments[1], index as? PredicateIndexSymbol == .size, case .keyPath(let path) = arguments[0] {
                return try keyPathOperand(path.appending(.collectionOperator("@count", members: nil), named: "@count"), in: predicate)
            }
            throw PredicateCheck.invalid("\(expression): indexing is only evaluated in memory, not by \(Dialect.storeName)", predicate)
        case "noindex:":
            return try operand(arguments[0], in: predicate)
        case _ where Dialect.numericFunctions.contains(name):
            // Run by the same Swift code as in memory where the dialect can, so both give the
            // same answer.
            let values = try arguments.map { try numericOperand($0, for: name, in: predicate) }
            let kind: ValueKind = switch name {
            case "ceiling:", "floor:": values[0].kind
            case "sqrt:", "log:", "ln:", "exp:", "raise:toPower:": .number(isInteger: false)
            default: .number(isInteger: true)
            }
            return SQLOperand(sql: try Dialect.function(name, values.map(\.sql)), attribute: nil,
                              isObjectReference: false, computed: kind)
        default:
            throw PredicateCheck.invalid("the function \(name) is only evaluated in memory, not by \(Dialect.storeName)", predicate)
        }
    }

    /// An operand of arithmetic: a number, or nil.
    private mutating func numericOperand(_ expression: ResolvedExpression, for function: String, in predicate: NSPredicate) throws -> SQLOperand {
        let value = try operand(expression, in: predicate)
        switch value.kind {
        case .number, .null:
            return value
        case .decimal:
            throw PredicateCheck.invalid("\(function) on the decimal \(expression.expression) is only computed in memory: \(Dialect.storeName) keeps decimals as doubles", predicate)
        default:
            throw PredicateCheck.invalid("\(function) needs numbers, not \(value.kind.name) (\(expression.expression))", predicate)
        }
    }

    /// `count:(pets)`, `sum:(pets.weight)`, … as the collection operators `pets.@count`,
    /// `pets.@sum.weight`; `count:(SUBQUERY(…))` as the subquery's count.
    private mutating func collectionFunctionOperand(_ name: String, _ argument: ResolvedExpression, in predicate: NSPredicate) throws -> SQLOperand {
        // `median:` and `stddev:` have no key-path operator; their tokens (with a colon, which no
        // key path can contain) stand for them inside the compiler only.
        let collectionOperator = ["count:": "@count", "sum:": "@sum", "min:": "@min", "max:": "@max", "average:": "@avg",
                                  "median:": "@median:", "stddev:": "@stddev:"][name]!
        if case .subquery = argument, name == "count:" {
            return try subqueryOperand(argument, path: "@count", in: predicate)
        }
        guard case .keyPath(let path) = argument else {
            throw PredicateCheck.invalid("\(name) of \(argument.expression) is only evaluated in memory, not by \(Dialect.storeName)", predicate)
        }
        let aggregated: ResolvedKeyPath
        if name == "count:" {
            aggregated = path.appending(.collectionOperator(collectionOperator, members: nil), named: collectionOperator)
        } else {
            // `sum:(pets.weight)`: the operator goes before the members' key.
            guard path.steps.count >= 2, let last = path.steps.last, case .property(let key) = last else {
                throw PredicateCheck.invalid("\(name) needs a to-many relationship and a key of its members, as in \(name)(items.price)", predicate)
            }
            let members = ResolvedKeyPath(key.name, steps: [last])
            aggregated = ResolvedKeyPath(path.keyPath, steps: path.steps.dropLast() + [.collectionOperator(collectionOperator, members: members)])
        }
        // A nil owner (`count:(owner.pets)` of a pet without owner) has no members: 0, as in memory.
        return try aggregateOperand(aggregated, nilWithoutOwner: false, in: predicate)
    }

    /// A string's length in UTF-16 units, as `NSString.length` (SQLite's `length()` counts code
    /// points), computed by the same Swift code as in memory.
    static func length(of string: SQLOperand) throws -> SQLOperand {
        SQLOperand(sql: try Dialect.function("length:", [string.sql]), attribute: nil,
                   isObjectReference: false, computed: .number(isInteger: true))
    }

    /// `receiver.path`: a SUBQUERY member's key (`$x.name`), a SUBQUERY's count or aggregate
    /// (`SUBQUERY(…).@count`), or a computed string's `length`.
    private mutating func keyPathOperand(_ path: String, _ resolved: ResolvedKeyPath?, of receiver: ResolvedExpression,
                                         in predicate: NSPredicate) throws -> SQLOperand {
        switch receiver {
        case .variable(let variable):
            guard var scope = variableScopes[variable] else {
                throw PredicateCheck.invalid("the variable $\(variable) has no value (substitute it first)", predicate)
            }
            // Resolution allowed to-manys anywhere; in SQL a member's key is a column, so a
            // to-many on the way is refused with the error resolution gives it.
            let operand = if let resolved, !resolved.walksToMany {
                try scope.keyPathOperand(resolved, in: predicate)
            } else {
                try scope.keyPathOperand(path, in: predicate)
            }
            variableScopes[variable] = scope
            return operand
        case .subquery:
            return try subqueryOperand(receiver, path: path, in: predicate)
        default:
            let value = try operand(receiver, in: predicate)
            guard path == "length", value.kind == .string || value.kind == .null else {
                throw PredicateCheck.invalid("\(receiver.expression).\(path) is only evaluated in memory, not by \(Dialect.storeName)", predicate)
            }
            return try Self.length(of: value)
        }
    }

    // MARK: SUBQUERY

    /// `SUBQUERY(collection, $x, predicate).@count` (or `.@sum.key`, …) as
    /// `(SELECT COUNT(*) FROM members WHERE they belong to the row AND predicate)`.
    private mutating func subqueryOperand(_ subquery: ResolvedExpression, path: String, in predicate: NSPredicate) throws -> SQLOperand {
        guard case .subquery(_, let collection, let variable, let condition) = subquery else {
            throw PredicateCheck.invalid("\(subquery.expression) is not a SUBQUERY", predicate)
        }
        // What follows the SUBQUERY: a collection operator, and for all but @count the member's key.
        let keys = path.split(separator: ".", maxSplits: 1).map(String.init)
        let operation = keys.first?.lowercased() ?? ""
        guard ["@count", "@sum", "@avg", "@min", "@max"].contains(operation), keys.count == (operation == "@count" ? 1 : 2) else {
            throw PredicateCheck.invalid("SUBQUERY(…).\(path): \(Dialect.storeName) computes a SUBQUERY's @count, @sum, @avg, @min or @max", predicate)
        }
        // The owner of the to-many relationship: the fetched object (or a to-one path from it),
        // or an enclosing SUBQUERY's member (`SUBQUERY($x.children, $c, …)`).
        let collectionPath: ResolvedKeyPath?
        var ownerScope: String?
        switch collection {
        case .keyPath(let path):
            collectionPath = path
        case .receiverKeyPath(_, .variable(let name), _, let resolved):
            ownerScope = name
            collectionPath = resolved
        default:
            throw PredicateCheck.invalid("SUBQUERY over \(collection.expression): \(Dialect.storeName) runs a SUBQUERY over a to-many relationship", predicate)
        }
        guard let collectionPath, let (toOnes, relationship) = collectionPath.toOnesThenToMany,
              let destination = relationship.destinationEntity.flatMap(schema.mapping(for:)) else {
            let name = collectionPath?.keyPath ?? "\(collection.expression)"
            throw PredicateCheck.invalid("SUBQUERY over \(collection.expression): '\(name)' is not a to-many relationship", predicate)
        }
        let ownerAlias: String
        if let ownerScope {
            guard var scope = variableScopes[ownerScope] else {
                throw PredicateCheck.invalid("the variable $\(ownerScope) has no value (substitute it first)", predicate)
            }
            (ownerAlias, _) = try scope.joinedTable(through: toOnes, in: predicate)
            variableScopes[ownerScope] = scope
        } else {
            (ownerAlias, _) = try joinedTable(through: toOnes, in: predicate)
        }

        subqueryCount += 1
        let member = "\(alias)_q\(subqueryCount)"
        let enclosing = variableScopes[variable]
        variableScopes[variable] = PredicateSQLCompiler(schema: schema, mapping: destination, alias: member)
        let conditionSQL: SQLFragment
        do {
            conditionSQL = try compile(condition)
        } catch {
            variableScopes[variable] = enclosing
            throw error
        }
        var scope = variableScopes[variable]!
        variableScopes[variable] = enclosing

        let valueSQL: SQLFragment
        var attribute: NSAttributeDescription?
        var kind: ValueKind?
        if operation == "@count" {
            valueSQL = "COUNT(*)"
            kind = .number(isInteger: true)
        } else {
            let value = try scope.keyPathOperand(keys[1], in: predicate)
            switch operation {
            case "@sum": valueSQL = "COALESCE(SUM(\(value.sql)), 0)"; kind = .number(isInteger: false)
            case "@avg": valueSQL = "AVG(\(value.sql))"; kind = .number(isInteger: false)
            case "@min": valueSQL = "MIN(\(value.sql))"; attribute = value.attribute
            default: valueSQL = "MAX(\(value.sql))"; attribute = value.attribute
            }
        }
        let (source, correlation) = try members(of: relationship, in: destination, as: member, ownerAlias: ownerAlias, in: predicate)
        let joins: SQLFragment = scope.joins.isEmpty ? .empty : " \(scope.joins.joined(separator: " "))"
        return SQLOperand(sql: "(SELECT \(valueSQL) FROM \(source)\(joins) WHERE \(correlation) AND (\(conditionSQL)))", attribute: attribute,
                          isObjectReference: false, computed: kind)
    }

    // MARK: Checks

    /// A constant compared with a computed value must be of its kind: SQL orders numbers before
    /// strings where memory finds them incomparable.
    func checkConstant(_ constant: Any?, comparedWith operand: SQLOperand, _ type: NSComparisonPredicate.Operator,
                       in predicate: NSPredicate) throws {
        guard operand.computed != nil else { return }  // columns: the attribute's type converts or refuses the value
        switch type {
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard operand.kind == .string || operand.kind == .null else {
                throw PredicateCheck.invalid("\(type.formatName) needs a string, not \(operand.kind.name)", predicate)
            }
        case .in where ValueComparison.string(constant) != nil:
            guard operand.kind == .string || operand.kind == .null else {
                throw PredicateCheck.invalid("IN a string needs a string, not \(operand.kind.name)", predicate)
            }
        case .in, .between:
            for element in ValueComparison.elements(of: constant) where !operand.kind.isComparable(with: ValueKind(of: element)) {
                throw PredicateCheck.invalid("compares \(operand.kind.name) with \(PredicateFormatting.literal(element))", predicate)
            }
        default:
            guard operand.kind.isComparable(with: ValueKind(of: constant)) else {
                throw PredicateCheck.invalid("compares \(operand.kind.name) with \(PredicateFormatting.literal(constant))", predicate)
            }
        }
    }

    func checkComparable(_ left: SQLOperand, _ right: SQLOperand, _ type: NSComparisonPredicate.Operator, in predicate: NSPredicate) throws {
        switch type {
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard left.kind.isComparable(with: .string), right.kind.isComparable(with: .string), left.kind != .other else {
                throw PredicateCheck.invalid("\(type.formatName) needs strings, not \(left.kind.name) and \(right.kind.name)", predicate)
            }
        default:
            guard left.kind.isComparable(with: right.kind), left.kind != .other, right.kind != .other else {
                throw PredicateCheck.invalid("compares \(left.kind.name) with \(right.kind.name)", predicate)
            }
        }
    }
}
