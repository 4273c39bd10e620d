import Foundation
import OCDSQLite
import OpenCoreDataCore

/// The SELECT a SQL store runs for one fetch: the entity's table, its `Z_ENT` filter, the
/// predicate as SQL with bound arguments, the order, and the limits, spelled by `Dialect`.
package struct SQLFetchStatement<Dialect: SQLDialect> {
    /// The SELECT and its arguments.
    package let sql: SQLFragment
    package let mapping: SQLiteSchema.EntityMapping
    /// For dictionary results: the operand of each requested key, in order.
    package let dictionaryOperands: [SQLOperand]

    package init(_ fetch: StoreFetch, schema: SQLiteSchema) throws {
        guard let mapping = schema.mapping(for: fetch.entity) else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType, "The store does not hold entity '\(fetch.entity.name ?? "?")'")
        }
        var compiler = PredicateSQLCompiler<Dialect>(schema: schema, mapping: mapping)
        let alias = SQLiteSchema.rootAlias
        // Each clause is a fragment with its own arguments, so the order they are compiled in
        // (the WHERE clause's joins must be known before the FROM clause is written) does not
        // decide the order of the arguments: composing them in text order does.
        var conditions: [SQLFragment] = []
        if let filter = mapping.condition(includesSubentities: fetch.includesSubentities, alias: alias) {
            conditions.append(filter)
        }
        if let predicate = fetch.predicate { conditions.append(try compiler.whereClause(for: predicate)) }
        let orderBy = try compiler.orderByClause(for: fetch.sortDescriptors)

        let columns: SQLFragment
        var dictionaryOperands: [SQLOperand] = []
        switch fetch.result {
        case .snapshots: columns = SQLFragment(schema.selectList(of: mapping.table, alias: alias))
        case .objectIDs, .keys: columns = "\(raw: alias).Z_PK, \(raw: alias).Z_ENT"
        case .count: columns = "\(raw: alias).Z_PK"
        case .dictionaries(let requested, _):
            var expressions: [SQLFragment] = []
            for column in requested {
                switch column.kind {
                case .value(let keyPath):
                    let operand = try compiler.keyPathOperand(keyPath, in: nil)
                    dictionaryOperands.append(operand)
                    expressions.append(operand.sql)
                case .aggregate(let function, let keyPath):
                    let operand = try compiler.keyPathOperand(keyPath, in: nil)
                    dictionaryOperands.append(operand)
                    expressions.append(Self.aggregateSQL(function, of: operand.sql))
                }
            }
            columns = expressions.joined(separator: ", ")
        }
        var groupBy: [SQLFragment] = []
        if case .dictionaries(_, let keys) = fetch.result {
            groupBy = try keys.map { try compiler.keyPathOperand($0, in: nil).sql }
        }
        // Rows are distinct already (each is one object): only dictionaries can repeat.
        var isDictionaries = false, aggregates = false
        if case .dictionaries(let requested, _) = fetch.result {
            isDictionaries = true
            aggregates = requested.contains { if case .aggregate = $0.kind { true } else { false } }
        }
        let distinct = fetch.returnsDistinctResults && isDictionaries
        var sql: SQLFragment = "SELECT \(raw: distinct ? "DISTINCT " : "")\(columns) FROM \(raw: mapping.table.name) \(raw: alias)"
        if !compiler.joins.isEmpty { sql += " \(compiler.joins.joined(separator: " "))" }
        if !conditions.isEmpty { sql += " WHERE \(conditions.joined(separator: " AND "))" }
        if !groupBy.isEmpty { sql += " GROUP BY \(groupBy.joined(separator: ", "))" }
        // Rows of one key each, ordered by key last where the engine would otherwise return them
        // in any order and a limit or offset picks some of them (and for batched results), so
        // that they are the rows the in-memory stores pick. Without a limit, a fetch's order is
        // its sort descriptors' (undefined beyond them, as in Core Data), and a count needs none.
        let byKey = !isDictionaries || (groupBy.isEmpty && !distinct && !aggregates)
        var isKeys = false
        if case .keys = fetch.result { isKeys = true }
        let picksRows = fetch.fetchLimit > 0 || fetch.fetchOffset > 0
        let keyOrder = byKey && (isKeys || (Dialect.ordersRowsOnlyWhenAsked && picksRows))
        if case .count = fetch.result {
        } else if !orderBy.isEmpty {
            sql += " ORDER BY \(orderBy)"
            if keyOrder && Dialect.ordersRowsOnlyWhenAsked { sql += ", \(raw: alias).Z_PK" }
        } else if keyOrder {
            sql += " ORDER BY \(raw: alias).Z_PK"
        }
        if fetch.fetchLimit > 0 || fetch.fetchOffset > 0 {
            sql += Dialect.limit(fetch.fetchLimit, offset: fetch.fetchOffset)
        }
        if case .count = fetch.result { sql = "SELECT COUNT(*) FROM (\(sql)) AS counted" }
        self.sql = sql
        self.mapping = mapping
        self.dictionaryOperands = dictionaryOperands
    }
}

/// The SQLite store's fetch statements.
typealias SQLiteFetchStatement = SQLFetchStatement<SQLiteDialect>

extension SQLFetchStatement {
    static func aggregateSQL(_ function: AggregateFunction, of sql: SQLFragment) -> SQLFragment {
        switch function {
        case .count: "COUNT(\(sql))"
        case .sum: Dialect.total(sql)
        case .average: "AVG(\(sql))"
        case .min: "MIN(\(sql))"
        case .max: "MAX(\(sql))"
        }
    }
}

extension NSManagedObjectModel {
    /// The SQL statement the SQLite store runs to fetch `request`'s objects, and the values it
    /// binds to its `?` parameters: a debugging aid, like Core Data's
    /// `-com.apple.CoreData.SQLDebug` log, without opening a store.
    ///
    /// ```swift
    /// let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
    /// request.predicate = NSPredicate(format: "age > %d", 30)
    /// let (sql, arguments) = try model.sqliteStatement(for: request)
    /// // SELECT t0.Z_PK, … FROM ZPERSON t0 WHERE t0.ZAGE > ?   [30]
    /// ```
    /// Throws what the fetch would throw for an unknown entity or key path (134091). Uses the
    /// model (and freezes it, as a coordinator would).
    public func sqliteStatement<T>(for request: NSFetchRequest<T>) throws -> (sql: String, arguments: [Any?]) {
        guard let entity = request.entity ?? request.entityName.flatMap(entity(named:)) else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "The model has no entity named '\(request.entityName ?? "")'")
        }
        freeze()
        if let predicate = request.predicate { try PredicateCheck.validate(predicate, for: entity) }
        let fetch = StoreFetch(entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                               sortDescriptors: request.sortDescriptors ?? [], fetchLimit: request.fetchLimit,
                               fetchOffset: request.fetchOffset, returnsDistinctResults: request.returnsDistinctResults,
                               result: .snapshots)
        let statement = try SQLiteFetchStatement(fetch, schema: SQLiteSchema(entities: entities, storedNumbers: storedEntityNumbers))
        return (statement.sql.text, statement.sql.arguments.map(\.anyValue))
    }
}
