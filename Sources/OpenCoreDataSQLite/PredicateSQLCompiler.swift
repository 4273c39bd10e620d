import Foundation
import OCDSQLite
import OpenCoreDataCore

/// Turns a predicate and sort descriptors into SQL over Core Data's tables: a WHERE clause with
/// bound arguments, the joins that key paths through to-one relationships need, and an ORDER BY,
/// each an `SQLFragment` that carries its arguments with its text.
///
/// It reads the predicate resolved against the fetched entity (`ResolvedPredicate`: key paths
/// as the model's properties), the same tree in-memory evaluation reads. It decides what the
/// predicate means over the tables; `Dialect` spells it. Identifiers come only from the schema;
/// every value is a bound argument. String comparisons with options, the string operators and
/// the functions SQL has no exact equivalent for are left to the dialect, which (for SQLite)
/// calls functions that share their implementation with in-memory evaluation, so both give the
/// same answer.
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

    /// The WHERE condition for `predicate`, resolved against the entity this compiler reads.
    mutating func whereClause(for predicate: NSPredicate) throws -> SQLFragment {
        try compile(predicate)
    }

    /// `predicate` as SQL, its key paths starting from this compiler's entity (a TERNARY's or
    /// a SUBQUERY's predicate is resolved as the predicate around it is).
    mutating func compile(_ predicate: NSPredicate) throws -> SQLFragment {
        try compile(predicate.resolved(for: mapping.entity))
    }

    mutating func compile(_ predicate: ResolvedPredicate) throws -> SQLFragment {
        switch predicate {
        case .truth(let truth):
            return truth ? Dialect.alwaysTrue : Dialect.alwaysFalse
        case .and(let parts):
            return parts.isEmpty ? Dialect.alwaysTrue : "(\(try parts.map { try compile($0) }.joined(separator: " AND ")))"
        case .or(let parts):
            return parts.isEmpty ? Dialect.alwaysFalse : "(\(try parts.map { try compile($0) }.joined(separator: " OR ")))"
        case .not(let part):
            // NULL (an unknown comparison, as with a nil value or the average of nothing) counts as
            // false before it is negated, as in memory.
            return "NOT \(Dialect.knownTrue(try compile(part)))"
        case .comparison(let comparison):
            return try compile(comparison)
        case .block(let block):
            throw PredicateCheck.invalid("block predicates can only be evaluated in memory, not by \(Dialect.storeName)", block)
        }
    }

    private mutating func compile(_ comparison: ResolvedComparison) throws -> SQLFragment {
        let source = comparison.source
        try refuseExternalDataComparison(comparison)
        if comparison.modifier != .direct {
            return try compileToMany(comparison)
        }
        var left = comparison.left
        var right = comparison.right
        var type = comparison.type
        let leftReadsRow = readsRow(left)
        // Neither side reads the row (`YES == YES`, `now() > %@`): the comparison is a constant.
        if !leftReadsRow && !readsRow(right) { return source.evaluate(with: nil) ? Dialect.alwaysTrue : Dialect.alwaysFalse }
        // Put what reads the row on the left where the operator allows it (`5 < age` → `age > 5`).
        if !leftReadsRow, let mirrored = type.mirrored {
            swap(&left, &right)
            type = mirrored
        }
        let column = try operand(left, in: source)
        if readsRow(right) {
            let other = try operand(right, in: source)
            return try compile(column, type, other, options: comparison.options, in: source)
        }
        // A constant, or what memory computes once for every row (`now()`, `{1, 2}`).
        let constant: Any? = if case .constant(let value) = right { value } else { right.value(for: nil) }
        try checkConstant(constant, comparedWith: column, type, in: source)
        return try compile(column: column, type, constant: constant, options: comparison.options, in: source)
    }

    /// A comparison reading an attribute whose values may be kept in external files, other than
    /// with nil, is refused: its column holds a marker byte and, for a large value, a file name,
    /// not the value itself (see Differences: external binary data).
    private func refuseExternalDataComparison(_ comparison: ResolvedComparison) throws {
        func externalAttribute(_ expression: ResolvedExpression) -> NSAttributeDescription? {
            guard case .keyPath(let path) = expression, case .property(let property)? = path.steps.last,
                  let attribute = property as? NSAttributeDescription, attribute.storesDataExternally else { return nil }
            return attribute
        }
        guard let attribute = externalAttribute(comparison.left) ?? externalAttribute(comparison.right) else { return }
        let withNil = [comparison.left, comparison.right].contains { side in
            if case .constant(let value) = side { isNilOrNull(value) } else { false }
        }
        if withNil && (comparison.type == .equalTo || comparison.type == .notEqualTo) { return }
        throw PredicateCheck.invalid("'\(attribute.name)' allows external storage, so \(Dialect.storeName) can only compare it with nil; compare its values in memory",
                                     comparison.source)
    }

    /// `left <operator> right`, both reading the row.
    private mutating func compile(_ left: SQLOperand, _ type: NSComparisonPredicate.Operator, _ right: SQLOperand,
                                  options: NSComparisonPredicate.Options, in predicate: NSPredicate) throws -> SQLFragment {
        if left.computed == nil && right.computed == nil {
            guard let symbol = type.sqlSymbol else {
                throw PredicateCheck.invalid("comparing two key paths with \(type.formatName) is not supported by \(Dialect.storeName) yet", predicate)
            }
            // `==` is NULL-safe, so that nil == nil holds as in memory; `!=` keeps SQL's answer
            // for NULL, as with constants (see Differences: `!=` and nil).
            if type == .equalTo { return Dialect.nullSafeEqual(try folded(left.sql, options), try folded(right.sql, options)) }
            return "\(try folded(left.sql, options)) \(raw: symbol) \(try folded(right.sql, options))"
        }
        try checkComparable(left, right, type, in: predicate)
        switch type {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            // `==` between computed values is NULL-safe: nil == nil holds in memory too.
            if type == .equalTo { return Dialect.nullSafeEqual(try folded(left.sql, options, for: left), try folded(right.sql, options, for: right)) }
            return "\(try folded(left.sql, options, for: left)) \(raw: type.sqlSymbol!) \(try folded(right.sql, options, for: right))"
        case .beginsWith, .endsWith, .contains, .like, .matches:
            return try Dialect.stringComparison(left.sql, type, right.sql, options: options)
        case .in, .between, .customSelector:
            throw PredicateCheck.invalid("\(type.formatName) with a computed value on its right is not supported by \(Dialect.storeName)", predicate)
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
            return "\(try folded(column.sql, options, for: column)) \(raw: type.sqlSymbol!) \(placeholder)"
        case .between:
            let bounds = ValueComparison.elements(of: constant)
            guard bounds.count == 2 else {
                throw PredicateCheck.invalid("BETWEEN needs a collection of two bounds, got \(PredicateFormatting.literal(constant))", predicate)
            }
            let low = try bind(bounds[0], for: column, options: options, in: predicate)
            let high = try bind(bounds[1], for: column, options: options, in: predicate)
            return "\(try folded(column.sql, options, for: column)) BETWEEN \(low) AND \(high)"
        case .in:
            if let text = ValueComparison.string(constant) {
                return try stringFunction(.in, column: column, text: text, options: options)
            }
            let elements = ValueComparison.elements(of: constant)
            if elements.isEmpty { return Dialect.alwaysFalse }
            let values = try elements.map { try sqliteValue($0, for: column, options: options, in: predicate) }
            return "\(try folded(column.sql, options, for: column)) IN (\(SQLFragment.list(values)))"
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard let text = ValueComparison.string(constant) else {
                if type == .contains, isNil { return Dialect.alwaysFalse }
                throw PredicateCheck.invalid("\(type.formatName) needs a string, got \(PredicateFormatting.literal(constant))", predicate)
            }
            return try stringFunction(type, column: column, text: text, options: options)
        case .customSelector:
            throw PredicateCheck.invalid("custom selectors are not supported by \(Dialect.storeName)", predicate)
        }
    }

    mutating func stringFunction(_ type: NSComparisonPredicate.Operator, column: SQLOperand, text: String,
                                 options: NSComparisonPredicate.Options) throws -> SQLFragment {
        try Dialect.stringComparison(column.sql, type, .bind(.text(text)), options: options)
    }

    /// The folding a comparison's options ask for: none with `[n]`, which says the strings are
    /// already normalized and supersedes `[c]` and `[d]` (as in Apple's documentation, and as
    /// in-memory evaluation does).
    static func foldingOptions(_ options: NSComparisonPredicate.Options) -> NSComparisonPredicate.Options {
        options.contains(.normalized) ? [] : options
    }

    /// The value folded when the comparison ignores case or diacritics on strings.
    func folded(_ sql: SQLFragment, _ options: NSComparisonPredicate.Options, for operand: SQLOperand? = nil) throws -> SQLFragment {
        let foldable = Self.foldingOptions(options)
        guard !foldable.isEmpty, operand?.attribute.map({ $0.attributeType == .stringAttributeType }) ?? true else { return sql }
        return try Dialect.fold(sql, foldable)
    }

    // MARK: To-many relationships

    /// `ANY rel.key op value` as `EXISTS (SELECT … WHERE member matches)`, `ALL` as `NOT EXISTS
    /// (… WHERE member does not match)`; the members are found through the inverse's foreign key
    /// or the join table. An empty relationship makes ANY false and ALL true, as in memory.
    private mutating func compileToMany(_ comparison: ResolvedComparison) throws -> SQLFragment {
        let source = comparison.source
        // `ANY $x.members.name == …` inside a SUBQUERY: the to-many belongs to the member `$x`,
        // whose compiler (scope) knows its table; the right-hand side must not read the row.
        if case .receiverKeyPath(_, .variable(let variable), let path, let resolved) = comparison.left, var scope = variableScopes[variable] {
            guard source.rightExpression.expressionType == .constantValue || source.rightExpression.expressionType == .aggregate else {
                throw PredicateCheck.invalid("\(comparison.modifier == .all ? "ALL" : "ANY") over a SUBQUERY variable's to-many must compare with a constant in \(Dialect.storeName)", source)
            }
            let rewritten = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: path), rightExpression: source.rightExpression,
                                                  modifier: comparison.modifier, type: comparison.type, options: comparison.options)
            let member = try resolved.map { ResolvedComparison(left: .keyPath($0), right: comparison.right, source: rewritten) }
                ?? ResolvedComparison(rewritten, for: scope.mapping.entity)
            let sql = try scope.compileToMany(member)
            variableScopes[variable] = scope
            return sql
        }
        // The path's first to-many, after any to-ones (`owner.clubs.name`): the to-ones are
        // joined, and the to-many's members are looked up from the joined table.
        guard case .keyPath(let path) = comparison.left, let (toOnes, relationship, rest) = path.firstToMany,
              let destination = relationship.destinationEntity.flatMap(schema.mapping(for:)) else {
            // ANY/ALL over something that is not a collection compares it directly.
            return try compile(NSComparisonPredicate(leftExpression: source.leftExpression, rightExpression: source.rightExpression,
                                                     modifier: .direct, type: comparison.type, options: comparison.options))
        }
        let (ownerAlias, _) = try joinedTable(through: toOnes, in: source)
        subqueryCount += 1
        let member = "\(alias)_s\(subqueryCount)"
        // Each member is compared directly: the rest of the path is the member's (`name` in
        // `ANY pets.name`), or the member itself.
        let memberPath = path.keyPath.split(separator: ".").dropFirst(toOnes.count + 1).joined(separator: ".")
        let memberLeft: ResolvedExpression = rest.isEmpty ? .evaluatedObject : .keyPath(ResolvedKeyPath(memberPath, steps: Array(rest)))
        let condition = NSComparisonPredicate(leftExpression: memberLeft.expression, rightExpression: source.rightExpression,
                                              modifier: .direct, type: comparison.type, options: comparison.options)
        var inner = PredicateSQLCompiler(schema: schema, mapping: destination, alias: member)
        let conditionSQL: SQLFragment
        switch comparison.right {
        case .keyPath, .evaluatedObject:
            // The right-hand key path belongs to the fetched object, not to the member.
            let memberOperand = try inner.operand(memberLeft, in: source)
            let ownerOperand = try operand(comparison.right, in: source)
            guard let symbol = comparison.type.sqlSymbol else {
                throw PredicateCheck.invalid("comparing members with a key path using \(comparison.type.formatName) is not supported by \(Dialect.storeName) yet", source)
            }
            conditionSQL = "\(try folded(memberOperand.sql, comparison.options)) \(raw: symbol) \(try folded(ownerOperand.sql, comparison.options))"
        case let right where readsRow(right):
            // A value computed from the fetched object (`ANY pets.weight > age / 2`), as memory
            // computes it: over the fetched row, compared with each member.
            let memberOperand = try inner.operand(memberLeft, in: source)
            let ownerOperand = try operand(right, in: source)
            conditionSQL = try compile(memberOperand, comparison.type, ownerOperand, options: comparison.options, in: source)
        default:
            conditionSQL = try inner.compile(ResolvedComparison(left: memberLeft, right: comparison.right, source: condition))
        }
        let joins: SQLFragment = inner.joins.isEmpty ? .empty : " \(inner.joins.joined(separator: " "))"

        var (from, correlation) = try members(of: relationship, in: destination, as: member, ownerAlias: ownerAlias, in: source)
        from += joins
        if comparison.modifier == .all {
            return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(correlation) AND NOT \(Dialect.knownTrue(conditionSQL)))"
        }
        return "EXISTS (SELECT 1 FROM \(from) WHERE \(correlation) AND (\(conditionSQL)))"
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
            throw PredicateCheck.invalid("relationship '\(relationship.name)' can't be queried by \(Dialect.storeName)", predicate)
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
    mutating func aggregateOperand(_ path: ResolvedKeyPath, nilWithoutOwner: Bool = true, in predicate: NSPredicate?) throws -> SQLOperand {
        guard case .collectionOperator(let name, let aggregated) = path.steps.last,
              let (toOnes, relationship, rest) = path.firstToMany, rest.count == 1,
              let destination = relationship.destinationEntity.flatMap(schema.mapping(for:)) else {
            throw PredicateCheck.invalid("the collection operator in \(path.keyPath) must follow a to-many relationship", predicate)
        }
        let operation = name.lowercased()
        // To-one relationships before the to-many one are joined (`owner.pets.@count`).
        let (ownerAlias, _) = try joinedTable(through: toOnes, in: predicate)
        subqueryCount += 1
        let member = "\(alias)_a\(subqueryCount)"
        var inner = PredicateSQLCompiler(schema: schema, mapping: destination, alias: member)
        let valueSQL: SQLFragment
        var attribute: NSAttributeDescription?
        var computed: ValueKind?
        switch operation {
        case "@count":
            guard aggregated == nil else {
                throw PredicateCheck.invalid("@count takes no key after it", predicate)
            }
            valueSQL = "COUNT(*)"
            computed = .number(isInteger: true)
        case "@sum", "@avg", "@min", "@max":
            guard let aggregated else { throw PredicateCheck.invalid("\(operation) needs a key to aggregate", predicate) }
            let operand = try inner.keyPathOperand(aggregated, in: predicate)
            switch operation {
            case "@sum": valueSQL = "COALESCE(SUM(\(operand.sql)), 0)"; computed = .number(isInteger: false)
            case "@avg": valueSQL = "AVG(\(operand.sql))"; computed = .number(isInteger: false)
            case "@min": valueSQL = "MIN(\(operand.sql))"; attribute = operand.attribute
            default: valueSQL = "MAX(\(operand.sql))"; attribute = operand.attribute
            }
        case "@median:", "@stddev:":
            // Computed by the same code as in memory, where the dialect can.
            guard let aggregated else { throw PredicateCheck.invalid("\(operation.dropFirst()) needs a key to aggregate", predicate) }
            let operand = try inner.keyPathOperand(aggregated, in: predicate)
            guard operand.kind == .number(isInteger: true) || operand.kind == .number(isInteger: false) || operand.kind == .null else {
                throw PredicateCheck.invalid("\(operation.dropFirst()) needs numbers, not \(operand.kind.name)", predicate)
            }
            valueSQL = try Dialect.statistic(String(operation.dropFirst()), of: operand.sql)
            computed = .number(isInteger: false)
        default:
            throw PredicateCheck.invalid("the collection operator \(name) is not supported by \(Dialect.storeName)", predicate)
        }
        let (source, correlation) = try members(of: relationship, in: destination, as: member, ownerAlias: ownerAlias, in: predicate)
        let joins: SQLFragment = inner.joins.isEmpty ? .empty : " \(inner.joins.joined(separator: " "))"
        var sql: SQLFragment = "(SELECT \(valueSQL) FROM \(source)\(joins) WHERE \(correlation))"
        if nilWithoutOwner && !toOnes.isEmpty { sql = "(CASE WHEN \(raw: ownerAlias).Z_PK IS NULL THEN NULL ELSE \(sql) END)" }
        return SQLOperand(sql: sql, attribute: attribute, isObjectReference: false, computed: computed)
    }

    // MARK: Operands

    /// The SQL for a value: a column, `SELF`, or a computed expression.
    mutating func operand(_ expression: ResolvedExpression, in predicate: NSPredicate) throws -> SQLOperand {
        switch expression {
        case .evaluatedObject: SQLOperand(sql: "\(raw: alias).Z_PK", attribute: nil, isObjectReference: true)
        case .keyPath(let path): try keyPathOperand(path, in: predicate)
        default: try computedOperand(expression, in: predicate)
        }
    }

    /// The column of a key path written as text (a sort key, a dictionary column, a member's
    /// key in a SUBQUERY), resolved from this compiler's entity.
    mutating func keyPathOperand(_ keyPath: String, in predicate: NSPredicate?) throws -> SQLOperand {
        try keyPathOperand(ResolvedKeyPath(keyPath, from: mapping.entity, allowsToMany: false, in: predicate), in: predicate)
    }

    /// The column of a key path, joining the tables of the to-one relationships it walks; a
    /// collection operator's sub-select. A string attribute's `length` (`name.length`) is its
    /// length in UTF-16 units, as in memory.
    mutating func keyPathOperand(_ path: ResolvedKeyPath, in predicate: NSPredicate?) throws -> SQLOperand {
        switch path.steps.last {
        case nil:
            return SQLOperand(sql: "\(raw: alias).Z_PK", attribute: nil, isObjectReference: true)
        case .collectionOperator:
            return try aggregateOperand(path, in: predicate)
        case .length:
            return try Self.length(of: try keyPathOperand(ResolvedKeyPath(path.keyPath, steps: path.steps.dropLast()), in: predicate))
        case .property(let property):
            // Resolution let only to-one relationships come before the last step, or before a
            // composite attribute and the elements after it.
            let relationships = path.steps.dropLast().compactMap { step -> NSRelationshipDescription? in
                if case .property(let property) = step { property as? NSRelationshipDescription } else { nil }
            }
            let (alias, current) = try joinedTable(through: relationships, in: predicate)
            if let (composite, elementPath) = Self.compositeElement(of: path) {
                guard let column = current.attributeColumns[composite.attributeSlot] else {
                    throw PredicateCheck.invalid("transient attribute '\(composite.name)' can't be used in a fetch from \(Dialect.storeName)", predicate)
                }
                return SQLOperand(sql: try Dialect.compositeElement("\(raw: alias).\(raw: column)", elementPath),
                                  attribute: property as? NSAttributeDescription, isObjectReference: false, isCompositeElement: true)
            }
            switch property {
            case let attribute as NSAttributeDescription:
                guard let column = current.attributeColumns[attribute.attributeSlot] else {
                    throw PredicateCheck.invalid("transient attribute '\(attribute.name)' can't be used in a fetch from \(Dialect.storeName)", predicate)
                }
                return SQLOperand(sql: "\(raw: alias).\(raw: column)", attribute: attribute, isObjectReference: false)
            case let relationship as NSRelationshipDescription:
                guard let foreignKey = current.toOneColumns[relationship.relationshipSlot] else {
                    throw PredicateCheck.invalid("relationship '\(relationship.name)' can't be used in a fetch from \(Dialect.storeName)", predicate)
                }
                return SQLOperand(sql: "\(raw: alias).\(raw: foreignKey)", attribute: nil, isObjectReference: true)
            default:
                throw PredicateCheck.invalid("'\(property.name)' can't be used in a fetch from \(Dialect.storeName)", predicate)
            }
        }
    }

    /// The composite attribute a path reads an element of, and the names of the elements from
    /// it to the one read (`magnitude.richter`); nil for any other path.
    static func compositeElement(of path: ResolvedKeyPath) -> (NSCompositeAttributeDescription, [String])? {
        for (index, step) in path.steps.enumerated() {
            guard case .property(let property) = step, let composite = property as? NSCompositeAttributeDescription else { continue }
            let elements = path.steps[(index + 1)...].compactMap { step -> String? in
                if case .property(let element) = step { element.name } else { nil }
            }
            return elements.isEmpty ? nil : (composite, elements)
        }
        return nil
    }

    /// The alias and mapping of the table reached through the to-one relationships named
    /// `keys` (a path written as text, from a SUBQUERY's collection).
    mutating func joinedTable<Keys: Collection<String>>(through keys: Keys, in predicate: NSPredicate?) throws
        -> (alias: String, mapping: SQLiteSchema.EntityMapping) {
        var relationships: [NSRelationshipDescription] = []
        var current = mapping.entity
        for key in keys {
            guard let relationship = current.layout.propertiesByName[key] as? NSRelationshipDescription, !relationship.isToMany,
                  let destination = relationship.destinationEntity else {
                throw PredicateCheck.invalid("'\(key)' is not a to-one relationship of \(current.name ?? "?")", predicate)
            }
            relationships.append(relationship)
            current = destination
        }
        return try joinedTable(through: relationships, in: predicate)
    }

    /// The alias and mapping of the table reached through the to-one `relationships`, joined
    /// with LEFT OUTER JOINs (each path joined once).
    mutating func joinedTable(through relationships: [NSRelationshipDescription], in predicate: NSPredicate?) throws
        -> (alias: String, mapping: SQLiteSchema.EntityMapping) {
        var alias = self.alias
        var current = mapping
        var path = ""
        for relationship in relationships {
            guard !relationship.isToMany else {
                throw PredicateCheck.invalid("'\(relationship.name)' is not a to-one relationship of \(current.entity.name ?? "?")", predicate)
            }
            guard let foreignKey = current.toOneColumns[relationship.relationshipSlot] else {
                throw PredicateCheck.invalid("relationship '\(relationship.name)' can't be used in a fetch from \(Dialect.storeName)", predicate)
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
        if operand.isCompositeElement {
            // As the composite's JSON holds the element (`CompositeValue.jsonValue`).
            switch CompositeValue.jsonValue(of: value as Any, type: attribute.attributeType) {
            // Only a string element is folded, as only its side is (`[c]` on a UUID compares it as it is).
            case let text as String:
                return .text(attribute.attributeType == .stringAttributeType ? ValueComparison.fold(text, Self.foldingOptions(options)) : text)
            case let number as NSNumber: return SQLiteValueCoding.sqliteValue(ofComputed: number)
            default: throw PredicateCheck.invalid("\(attribute.name) is \(attribute.attributeType.modelName): \(PredicateFormatting.literal(value)) is not such a value", predicate)
            }
        }
        let primitive: PrimitiveValue
        do {
            primitive = try PrimitiveValue(value, for: attribute.attributeType)
        } catch {
            throw PredicateCheck.invalid("\(attribute.name) is \(attribute.attributeType.modelName): \(error.reason)", predicate)
        }
        let converted: SQLiteValue
        do {
            converted = try Dialect.argument(primitive, of: attribute)
        } catch let failure as ValueConversionFailure {
            throw PredicateCheck.invalid("\(attribute.name) is \(attribute.attributeType.modelName): \(failure.reason)", predicate)
        }
        if case .text(let text) = converted, !Self.foldingOptions(options).isEmpty, attribute.attributeType != .compositeAttributeType {
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
            if let attribute = operand.attribute, attribute.storesDataExternally {
                throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                         "Can't sort by '\(key)': it allows external storage, so \(Dialect.storeName) can't order its values")
            }
            var sql = operand.sql
            if operand.attribute?.attributeType == .stringAttributeType {
                sql = try Dialect.sortKey(sql, descriptor.stringOrdering)
            }
            return Dialect.sortTerm(sql, ascending: descriptor.ascending)
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
