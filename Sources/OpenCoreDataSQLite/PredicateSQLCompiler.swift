import Foundation
import OCDSQLite
import OpenCoreDataCore

/// Turns a predicate and sort descriptors into SQL over Core Data's tables: a WHERE clause with
/// bound arguments, the joins that key paths through to-one relationships need, and an ORDER BY.
///
/// Identifiers come only from the schema; every value is a bound argument. String comparisons
/// with options, and the string operators, call SQL functions registered on the connection
/// (`SQLiteStore.registerFunctions`) that share their implementation with in-memory
/// evaluation, so both give the same answer.
///
/// Expressions beyond key paths and constants (arithmetic, functions, TERNARY, SUBQUERY) are
/// compiled in `PredicateSQLCompiler+Expressions.swift`; what SQL cannot compute exactly as
/// memory does is refused with an error (134091), never run with a different answer.
///
/// Difference from in-memory evaluation, as in Core Data: SQL's three-valued logic makes
/// `key != value` false for rows whose `key` is NULL.
struct PredicateSQLCompiler<Dialect: SQLDialect> {
    let schema: SQLiteSchema
    let mapping: SQLiteSchema.EntityMapping
    private(set) var joins: [SQLFragment] = []
    private var aliases: [String: (alias: String, mapping: SQLiteSchema.EntityMapping)] = [:]
    /// Numbers the sub-selects this compiler creates, so that their aliases are unique.
    var subqueryCount = 0
    /// The members that the iterator variables of the enclosing SUBQUERYs stand for, each as a
    /// compiler over the member's table (its joins go into that sub-select).
    var variableScopes: [String: PredicateSQLCompiler] = [:]
    /// The alias of the table the key paths start from.
    let alias: String

    init(schema: SQLiteSchema, mapping: SQLiteSchema.EntityMapping, alias: String = SQLiteSchema.rootAlias) {
        self.schema = schema
        self.mapping = mapping
        self.alias = alias
    }

    // MARK: Predicates

    mutating func whereClause(for predicate: NSPredicate) throws -> SQLFragment {
        try PredicateCheck.validate(predicate, for: mapping.entity)
        return try compile(predicate)
    }

    mutating func compile(_ predicate: NSPredicate) throws -> SQLFragment {
        switch predicate.resolved {
        case let compound as NSCompoundPredicate:
            let parts = try compound.subpredicates.map { try compile($0) }
            switch compound.compoundPredicateType {
            case .and: return parts.isEmpty ? Dialect.alwaysTrue : "(\(parts.joined(separator: " AND ")))"
            case .or: return parts.isEmpty ? Dialect.alwaysFalse : "(\(parts.joined(separator: " OR ")))"
            // NULL (an unknown comparison, as with a nil value or the average of nothing) counts as
            // false before it is negated, as in memory.
            case .not: return "NOT \(Dialect.knownTrue(parts.first ?? Dialect.alwaysTrue))"
            }
        case let comparison as NSComparisonPredicate:
            return try compile(comparison)
        default:
            if let truth = predicate.constantTruth { return truth ? Dialect.alwaysTrue : Dialect.alwaysFalse }
            throw PredicateCheck.invalid("block predicates can only be evaluated in memory, not by the SQLite store", predicate)
        }
    }

    private mutating func compile(_ comparison: NSComparisonPredicate) throws -> SQLFragment {
        if comparison.comparisonPredicateModifier != .direct {
            return try compileToMany(comparison)
        }
        var left = comparison.leftExpression
        var right = comparison.rightExpression
        var type = comparison.predicateOperatorType
        let leftReadsRow = readsRow(left)
        // Neither side reads the row (`YES == YES`, `now() > %@`): the comparison is a constant.
        if !leftReadsRow && !readsRow(right) { return comparison.evaluate(with: nil) ? Dialect.alwaysTrue : Dialect.alwaysFalse }
        // Put what reads the row on the left where the operator allows it (`5 < age` → `age > 5`).
        if !leftReadsRow, let mirrored = type.mirrored {
            swap(&left, &right)
            type = mirrored
        }
        let column = try operand(left, in: comparison)
        if readsRow(right) {
            let other = try operand(right, in: comparison)
            return try compile(column, type, other, options: comparison.options, in: comparison)
        }
        let constant = right.expressionType == .constantValue || right.expressionType == .aggregate
            ? right.constantValue : right.value(for: nil, variables: nil)
        try checkConstant(constant, comparedWith: column, type, in: comparison)
        return try compile(column: column, type, constant: constant, options: comparison.options, in: comparison)
    }

    /// `left <operator> right`, both reading the row.
    private mutating func compile(_ left: SQLOperand, _ type: NSComparisonPredicate.Operator, _ right: SQLOperand,
                                  options: NSComparisonPredicate.Options, in predicate: NSPredicate) throws -> SQLFragment {
        if left.computed == nil && right.computed == nil {
            guard let symbol = type.sqlSymbol else {
                throw PredicateCheck.invalid("comparing two key paths with \(type.formatName) is not supported by the SQLite store yet", predicate)
            }
            // `==` is NULL-safe, so that nil == nil holds as in memory; `!=` keeps SQL's answer
            // for NULL, as with constants (see Differences: `!=` and nil).
            if type == .equalTo { return Dialect.nullSafeEqual(folded(left.sql, options), folded(right.sql, options)) }
            return "\(folded(left.sql, options)) \(raw: symbol) \(folded(right.sql, options))"
        }
        try checkComparable(left, right, type, in: predicate)
        switch type {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            // `==` between computed values is NULL-safe: nil == nil holds in memory too.
            if type == .equalTo { return Dialect.nullSafeEqual(folded(left.sql, options, for: left), folded(right.sql, options, for: right)) }
            return "\(folded(left.sql, options, for: left)) \(raw: type.sqlSymbol!) \(folded(right.sql, options, for: right))"
        case .beginsWith, .endsWith, .contains, .like, .matches:
            return Dialect.stringComparison(left.sql, type, right.sql, options: options)
        case .in, .between, .customSelector:
            throw PredicateCheck.invalid("\(type.formatName) with a computed value on its right is not supported by the SQLite store", predicate)
        }
    }

    private mutating func compile(column: SQLOperand, _ type: NSComparisonPredicate.Operator, constant: Any?,
                                  options: NSComparisonPredicate.Options, in predicate: NSPredicate) throws -> SQLFragment {
        let isNil = isNilOrNull(constant)
        switch type {
        case .equalTo where isNil: return "\(column.sql) IS NULL"
        case .notEqualTo where isNil: return "\(column.sql) IS NOT NULL"
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            let placeholder = try bind(constant, for: column, options: options, in: predicate)
            return "\(folded(column.sql, options, for: column)) \(raw: type.sqlSymbol!) \(placeholder)"
        case .between:
            let bounds = ValueComparison.elements(of: constant)
            guard bounds.count == 2 else {
                throw PredicateCheck.invalid("BETWEEN needs a collection of two bounds, got \(PredicateFormatting.literal(constant))", predicate)
            }
            let low = try bind(bounds[0], for: column, options: options, in: predicate)
            let high = try bind(bounds[1], for: column, options: options, in: predicate)
            return "\(folded(column.sql, options, for: column)) BETWEEN \(low) AND \(high)"
        case .in:
            if let text = ValueComparison.string(constant) {
                return try stringFunction(.in, column: column, text: text, options: options)
            }
            let elements = ValueComparison.elements(of: constant)
            if elements.isEmpty { return Dialect.alwaysFalse }
            let placeholders = try elements.map { try bind($0, for: column, options: options, in: predicate) }
            return "\(folded(column.sql, options, for: column)) IN (\(placeholders.joined(separator: ", ")))"
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard let text = ValueComparison.string(constant) else {
                if type == .contains, isNil { return Dialect.alwaysFalse }
                throw PredicateCheck.invalid("\(type.formatName) needs a string, got \(PredicateFormatting.literal(constant))", predicate)
            }
            return try stringFunction(type, column: column, text: text, options: options)
        case .customSelector:
            throw PredicateCheck.invalid("custom selectors are not supported by the SQLite store", predicate)
        }
    }

    mutating func stringFunction(_ type: NSComparisonPredicate.Operator, column: SQLOperand, text: String,
                                 options: NSComparisonPredicate.Options) throws -> SQLFragment {
        Dialect.stringComparison(column.sql, type, .bind(.text(text)), options: options)
    }

    /// The folding a comparison's options ask for: none with `[n]`, which says the strings are
    /// already normalized and supersedes `[c]` and `[d]` (as in Apple's documentation, and as
    /// in-memory evaluation does).
    static func foldingOptions(_ options: NSComparisonPredicate.Options) -> NSComparisonPredicate.Options {
        options.contains(.normalized) ? [] : options
    }

    /// The value folded when the comparison ignores case or diacritics on strings.
    func folded(_ sql: SQLFragment, _ options: NSComparisonPredicate.Options, for operand: SQLOperand? = nil) -> SQLFragment {
        let foldable = Self.foldingOptions(options)
        guard !foldable.isEmpty, operand?.attribute.map({ $0.attributeType == .stringAttributeType }) ?? true else { return sql }
        return Dialect.fold(sql, foldable)
    }

    // MARK: To-many relationships

    /// `ANY rel.key op value` as `EXISTS (SELECT … WHERE member matches)`, `ALL` as `NOT EXISTS
    /// (… WHERE member does not match)`; the members are found through the inverse's foreign key
    /// or the join table. An empty relationship makes ANY false and ALL true, as in memory.
    private mutating func compileToMany(_ comparison: NSComparisonPredicate) throws -> SQLFragment {
        let left = comparison.leftExpression
        // `ANY $x.members.name == …` inside a SUBQUERY: the to-many belongs to the member `$x`,
        // whose compiler (scope) knows its table; the right-hand side must not read the row.
        if left.expressionType == .function, left.isKeyPathFunction, let variable = left.operand?.variable,
           !variable.isEmpty, var scope = variableScopes[variable], let path = left.functionKeyPath {
            guard comparison.rightExpression.expressionType == .constantValue || comparison.rightExpression.expressionType == .aggregate else {
                throw PredicateCheck.invalid("\(comparison.comparisonPredicateModifier == .all ? "ALL" : "ANY") over a SUBQUERY variable's to-many must compare with a constant in the SQLite store", comparison)
            }
            let rewritten = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: path), rightExpression: comparison.rightExpression,
                                                  modifier: comparison.comparisonPredicateModifier,
                                                  type: comparison.predicateOperatorType, options: comparison.options)
            let sql = try scope.compileToMany(rewritten)
            variableScopes[variable] = scope
            return sql
        }
        let keys = left.expressionType == .keyPath ? left.keyPath.split(separator: ".").map(String.init) : []
        // The path's first to-many, after any to-ones (`owner.clubs.name`): the to-ones are
        // joined, and the to-many's members are looked up from the joined table.
        var owner = mapping
        var toManyIndex: Int?
        for (index, key) in keys.enumerated() {
            guard let relationship = owner.entity.layout.propertiesByName[key] as? NSRelationshipDescription,
                  let next = relationship.destinationEntity.flatMap(schema.mapping(for:)) else { break }
            if relationship.isToMany { toManyIndex = index; break }
            owner = next
        }
        guard let toManyIndex else {
            // ANY/ALL over something that is not a collection compares it directly.
            return try compile(NSComparisonPredicate(leftExpression: left, rightExpression: comparison.rightExpression,
                                                     modifier: .direct, type: comparison.predicateOperatorType,
                                                     options: comparison.options))
        }
        let (ownerAlias, ownerMapping) = try joinedTable(through: keys[..<toManyIndex], in: comparison)
        let relationship = ownerMapping.entity.layout.propertiesByName[keys[toManyIndex]] as! NSRelationshipDescription
        guard let destination = relationship.destinationEntity.flatMap(schema.mapping(for:)) else {
            throw PredicateCheck.invalid("relationship '\(relationship.name)' has no destination", comparison)
        }
        subqueryCount += 1
        let member = "\(alias)_s\(subqueryCount)"
        let rest = keys.dropFirst(toManyIndex + 1).joined(separator: ".")
        let memberExpression = rest.isEmpty ? NSExpression.expressionForEvaluatedObject() : NSExpression(forKeyPath: rest)
        let condition = NSComparisonPredicate(leftExpression: memberExpression, rightExpression: comparison.rightExpression,
                                              modifier: .direct, type: comparison.predicateOperatorType, options: comparison.options)
        var inner = PredicateSQLCompiler(schema: schema, mapping: destination, alias: member)
        let conditionSQL: SQLFragment
        let right = comparison.rightExpression
        if right.expressionType == .keyPath || right.expressionType == .evaluatedObject {
            // The right-hand key path belongs to the fetched object, not to the member.
            let memberOperand = try inner.operand(memberExpression, in: comparison)
            let ownerOperand = try operand(right, in: comparison)
            guard let symbol = comparison.predicateOperatorType.sqlSymbol else {
                throw PredicateCheck.invalid("comparing members with a key path using \(comparison.predicateOperatorType.formatName) is not supported by the SQLite store yet", comparison)
            }
            conditionSQL = "\(folded(memberOperand.sql, comparison.options)) \(raw: symbol) \(folded(ownerOperand.sql, comparison.options))"
        } else {
            conditionSQL = try inner.compile(condition)
        }
        let joins: SQLFragment = inner.joins.isEmpty ? .empty : " \(inner.joins.joined(separator: " "))"

        var (source, correlation) = try members(of: relationship, in: destination, as: member, ownerAlias: ownerAlias, in: comparison)
        source += joins
        if comparison.comparisonPredicateModifier == .all {
            return "NOT EXISTS (SELECT 1 FROM \(source) WHERE \(correlation) AND NOT \(Dialect.knownTrue(conditionSQL)))"
        }
        return "EXISTS (SELECT 1 FROM \(source) WHERE \(correlation) AND (\(conditionSQL)))"
    }

    /// The FROM part and the correlation condition that select the members of `relationship` of
    /// the row `ownerAlias`, as rows `member` of `destination`.
    func members(of relationship: NSRelationshipDescription, in destination: SQLiteSchema.EntityMapping, as member: String,
                 ownerAlias: String, in predicate: NSPredicate?) throws -> (source: SQLFragment, correlation: SQLFragment) {
        var source: SQLFragment
        var correlation: SQLFragment
        if let join = schema.joinTables[ObjectIdentifier(relationship)] {
            source = "\(raw: join.name) \(raw: member)_j JOIN \(raw: destination.table.name) \(raw: member) ON \(raw: member).Z_PK = \(raw: member)_j.\(raw: join.destinationColumn)"
            correlation = "\(raw: member)_j.\(raw: join.sourceColumn) = \(raw: ownerAlias).Z_PK"
        } else if let inverse = relationship.inverseRelationship, let foreignKey = destination.toOneColumns[inverse.relationshipSlot] {
            source = "\(raw: destination.table.name) \(raw: member)"
            correlation = "\(raw: member).\(raw: foreignKey) = \(raw: ownerAlias).Z_PK"
        } else {
            throw PredicateCheck.invalid("relationship '\(relationship.name)' can't be queried by the SQLite store", predicate)
        }
        if let filter = destination.condition(includesSubentities: true, alias: member) {
            correlation += " AND \(filter)"
        }
        return (source, correlation)
    }

    /// `pets.@count`, `pets.@sum.weight`, `owner.pets.@count`, … as a correlated sub-select.
    ///
    /// A key path through a to-one relationship that is nil reads nil, as key-value coding does
    /// (`owner.pets.@count` of a pet without owner is nil, not 0); with `nilWithoutOwner` false the
    /// missing owner has no members instead (what `count:(owner.pets)` sees in memory).
    mutating func aggregateOperand(_ keys: [String], operatorIndex: Int, nilWithoutOwner: Bool = true,
                                   in predicate: NSPredicate?) throws -> SQLOperand {
        let operation = keys[operatorIndex].lowercased()
        guard operatorIndex >= 1 else {
            throw PredicateCheck.invalid("the collection operator \(keys[operatorIndex]) must follow a to-many relationship", predicate)
        }
        // To-one relationships before the to-many one are joined (`owner.pets.@count`).
        let (ownerAlias, owner) = try joinedTable(through: Array(keys[..<(operatorIndex - 1)]), in: predicate)
        guard let relationship = owner.entity.layout.propertiesByName[keys[operatorIndex - 1]] as? NSRelationshipDescription,
              relationship.isToMany, let destination = relationship.destinationEntity.flatMap(schema.mapping(for:)) else {
            throw PredicateCheck.invalid("the collection operator \(keys[operatorIndex]) must follow a to-many relationship", predicate)
        }
        subqueryCount += 1
        let member = "\(alias)_a\(subqueryCount)"
        var inner = PredicateSQLCompiler(schema: schema, mapping: destination, alias: member)
        let aggregated = keys[(operatorIndex + 1)...].joined(separator: ".")
        let valueSQL: SQLFragment
        var attribute: NSAttributeDescription?
        var computed: ValueKind?
        switch operation {
        case "@count":
            guard aggregated.isEmpty else {
                throw PredicateCheck.invalid("@count takes no key after it", predicate)
            }
            valueSQL = "COUNT(*)"
            computed = .number(isInteger: true)
        case "@sum", "@avg", "@min", "@max":
            guard !aggregated.isEmpty else { throw PredicateCheck.invalid("\(operation) needs a key to aggregate", predicate) }
            let operand = try inner.keyPathOperand(aggregated, in: predicate)
            switch operation {
            case "@sum": valueSQL = "COALESCE(SUM(\(operand.sql)), 0)"; computed = .number(isInteger: false)
            case "@avg": valueSQL = "AVG(\(operand.sql))"; computed = .number(isInteger: false)
            case "@min": valueSQL = "MIN(\(operand.sql))"; attribute = operand.attribute
            default: valueSQL = "MAX(\(operand.sql))"; attribute = operand.attribute
            }
        case "@median:", "@stddev:":
            // Computed by the same code as in memory, where the dialect can.
            let operand = try inner.keyPathOperand(aggregated, in: predicate)
            guard operand.kind == .number(isInteger: true) || operand.kind == .number(isInteger: false) || operand.kind == .null else {
                throw PredicateCheck.invalid("\(operation.dropFirst()) needs numbers, not \(operand.kind.name)", predicate)
            }
            valueSQL = Dialect.statistic(String(operation.dropFirst()), of: operand.sql)
            computed = .number(isInteger: false)
        default:
            throw PredicateCheck.invalid("the collection operator \(keys[operatorIndex]) is not supported by the SQLite store", predicate)
        }
        let (source, correlation) = try members(of: relationship, in: destination, as: member, ownerAlias: ownerAlias, in: predicate)
        let joins: SQLFragment = inner.joins.isEmpty ? .empty : " \(inner.joins.joined(separator: " "))"
        var sql: SQLFragment = "(SELECT \(valueSQL) FROM \(source)\(joins) WHERE \(correlation))"
        if nilWithoutOwner && operatorIndex > 1 { sql = "(CASE WHEN \(raw: ownerAlias).Z_PK IS NULL THEN NULL ELSE \(sql) END)" }
        return SQLOperand(sql: sql, attribute: attribute, isObjectReference: false, computed: computed)
    }

    // MARK: Operands

    /// The SQL for a value: a column, `SELF`, or a computed expression.
    mutating func operand(_ expression: NSExpression, in predicate: NSPredicate) throws -> SQLOperand {
        switch expression.expressionType {
        case .evaluatedObject:
            return SQLOperand(sql: "\(raw: alias).Z_PK", attribute: nil, isObjectReference: true)
        case .keyPath:
            return try keyPathOperand(expression.keyPath, in: predicate)
        default:
            return try computedOperand(expression, in: predicate)
        }
    }

    /// The column of a key path, joining the tables of the to-one relationships it walks. A
    /// string attribute's `length` (`name.length`) is its length in UTF-16 units, as in memory.
    mutating func keyPathOperand(_ keyPath: String, in predicate: NSPredicate?) throws -> SQLOperand {
        let keys = keyPath.split(separator: ".").map(String.init)
        if let operatorIndex = keys.firstIndex(where: { $0.hasPrefix("@") }) {
            return try aggregateOperand(keys, operatorIndex: operatorIndex, in: predicate)
        }
        let properties = try PredicateCheck.resolve(keyPath: keyPath, from: mapping.entity, allowsToMany: false, in: predicate)
        if properties.count == keys.count - 1 {  // `.length` after a string attribute
            let string = try keyPathOperand(keys.dropLast().joined(separator: "."), in: predicate)
            return Self.length(of: string)
        }
        let (alias, current) = try joinedTable(through: keys.dropLast(), in: predicate)
        switch properties.last {
        case let attribute as NSAttributeDescription:
            guard let column = current.attributeColumns[attribute.attributeSlot] else {
                throw PredicateCheck.invalid("transient attribute '\(attribute.name)' can't be used in a fetch from the SQLite store", predicate)
            }
            return SQLOperand(sql: "\(raw: alias).\(raw: column)", attribute: attribute, isObjectReference: false)
        case let relationship as NSRelationshipDescription:
            guard let foreignKey = current.toOneColumns[relationship.relationshipSlot] else {
                throw PredicateCheck.invalid("relationship '\(relationship.name)' can't be used in a fetch from the SQLite store", predicate)
            }
            return SQLOperand(sql: "\(raw: alias).\(raw: foreignKey)", attribute: nil, isObjectReference: true)
        default:
            return SQLOperand(sql: "\(raw: alias).Z_PK", attribute: nil, isObjectReference: true)
        }
    }

    /// The alias and mapping of the table reached through the to-one relationships `keys`,
    /// joined with LEFT OUTER JOINs (each path joined once).
    mutating func joinedTable<Keys: Collection<String>>(through keys: Keys, in predicate: NSPredicate?) throws
        -> (alias: String, mapping: SQLiteSchema.EntityMapping) {
        var alias = self.alias
        var current = mapping
        var path = ""
        for key in keys {
            guard let relationship = current.entity.layout.propertiesByName[key] as? NSRelationshipDescription, !relationship.isToMany else {
                throw PredicateCheck.invalid("'\(key)' is not a to-one relationship of \(current.entity.name ?? "?")", predicate)
            }
            guard let foreignKey = current.toOneColumns[relationship.relationshipSlot] else {
                throw PredicateCheck.invalid("relationship '\(relationship.name)' can't be used in a fetch from the SQLite store", predicate)
            }
            path += (path.isEmpty ? "" : ".") + relationship.name
            guard let destination = relationship.destinationEntity.flatMap(schema.mapping(for:)) else {
                throw PredicateCheck.invalid("relationship '\(relationship.name)' has no destination", predicate)
            }
            if let existing = aliases[path] {
                alias = existing.alias
            } else {
                let next = "\(self.alias)_\(aliases.count + 1)"
                joins.append("LEFT OUTER JOIN \(raw: destination.table.name) \(raw: next) ON \(raw: alias).\(raw: foreignKey) = \(raw: next).Z_PK")
                aliases[path] = (next, destination)
                alias = next
            }
            current = destination
        }
        return (alias, current)
    }

    // MARK: Values

    mutating func bind(_ value: Any?, for operand: SQLOperand, options: NSComparisonPredicate.Options,
                       in predicate: NSPredicate) throws -> SQLFragment {
        .bind(try sqliteValue(value, for: operand, options: options, in: predicate))
    }

    func sqliteValue(_ value: Any?, for operand: SQLOperand, options: NSComparisonPredicate.Options,
                     in predicate: NSPredicate) throws -> SQLiteValue {
        if isNilOrNull(value) { return .null }
        if operand.isObjectReference {
            let id: NSManagedObjectID? = (value as? NSManagedObject)?.objectID ?? (value as? NSManagedObjectID)
            guard let id else {
                throw PredicateCheck.invalid("\(PredicateFormatting.literal(value)) is not an object or object ID", predicate)
            }
            // An unsaved object has no row yet: it matches nothing in the store.
            return .integer(id.primaryKey ?? -1)
        }
        guard let attribute = operand.attribute else {
            // A computed value (a count, a sum, an average, arithmetic): bind numbers and strings
            // as they are, strings folded as the value is.
            switch value {
            case let date as Date: return .real(date.timeIntervalSinceReferenceDate)
            case let text as String: return .text(ValueComparison.fold(text, Self.foldingOptions(options)))
            default:
                switch ValueComparison.number(value) {
                case .integer(let integer): return .integer(integer)
                case .double(let double): return .real(double)
                case nil: return .null
                }
            }
        }
        if attribute.attributeType.isNumeric, let number = ValueComparison.number(value) {
            switch number {
            case .integer(let integer): return .integer(integer)
            case .double(let double): return .real(double)
            }
        }
        let primitive: PrimitiveValue
        do {
            primitive = try PrimitiveValue(value, for: attribute.attributeType)
        } catch {
            throw PredicateCheck.invalid("\(attribute.name) is \(attribute.attributeType.modelName): \(error.reason)", predicate)
        }
        let converted = try Dialect.argument(primitive, of: attribute)
        if case .text(let text) = converted, !Self.foldingOptions(options).isEmpty {
            return .text(ValueComparison.fold(text, Self.foldingOptions(options)))
        }
        return converted
    }

    // MARK: Sorting

    mutating func orderByClause(for descriptors: [NSSortDescriptor]) throws -> SQLFragment {
        try PredicateCheck.validate(descriptors, for: mapping.entity)
        let terms = try descriptors.map { descriptor -> SQLFragment in
            guard let key = descriptor.key else { return "\(raw: alias).Z_PK \(raw: descriptor.ascending ? "ASC" : "DESC")" }
            let operand = try keyPathOperand(key, in: nil)
            var sql = operand.sql
            if operand.attribute?.attributeType == .stringAttributeType {
                sql = Dialect.sortKey(sql, descriptor.stringOrdering)
            }
            return "\(sql) \(raw: descriptor.ascending ? "ASC" : "DESC")"
        }
        return terms.joined(separator: ", ")
    }
}

extension NSComparisonPredicate.Operator {
    /// The operator with its operands swapped (`a < b` ⇔ `b > a`), when there is one.
    var mirrored: NSComparisonPredicate.Operator? {
        switch self {
        case .equalTo, .notEqualTo: self
        case .lessThan: .greaterThan
        case .lessThanOrEqualTo: .greaterThanOrEqualTo
        case .greaterThan: .lessThan
        case .greaterThanOrEqualTo: .lessThanOrEqualTo
        default: nil
        }
    }

    var sqlSymbol: String? {
        switch self {
        case .equalTo: "="
        case .notEqualTo: "!="
        case .lessThan: "<"
        case .lessThanOrEqualTo: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqualTo: ">="
        default: nil
        }
    }
}
