import Foundation
import OCDPostgres
import OCDSQL
import OpenCoreDataCore
import OpenCoreDataSQLite

extension PostgreSQLStore {
    /// Runs `body`; on a connection inside a transaction (a query generation's snapshot), in a
    /// savepoint, so that a query that fails — and is then answered in memory — leaves the
    /// transaction usable.
    private static func undoingFailure<Result>(on connection: PostgresConnection, _ body: () throws -> Result) throws -> Result {
        guard connection.isInTransaction else { return try body() }
        try connection.execute("SAVEPOINT ocd_read")
        do {
            let result = try body()
            try connection.execute("RELEASE SAVEPOINT ocd_read")
            return result
        } catch {
            try? connection.execute("ROLLBACK TO SAVEPOINT ocd_read")
            throw error
        }
    }

    /// Runs a fetch as one query: the predicate, order and limits rendered by `PostgresDialect`;
    /// what that cannot render is answered in memory (`answerInMemory`).
    func executeFetch(_ fetch: StoreFetch, on connection: PostgresConnection) throws -> StoreFetchResult {
        let select: SQLFetchStatement<PostgresDialect>
        do {
            select = try SQLFetchStatement<PostgresDialect>(fetch, schema: schema)
        } catch is PostgresDialect.Refusal {
            return try answerInMemory(fetch, on: connection)
        }
        let result: PostgresResult
        do {
            result = try Self.undoingFailure(on: connection) { try connection.query(select.sql) }
        } catch let error as PostgresError where Self.isComputedOtherwiseInMemory(error) {
            return try answerInMemory(fetch, on: connection)
        }
        let mapping = select.mapping
        switch fetch.result {
        case .snapshots:
            let decoder = PostgresRowDecoder(store: self, schema: schema)
            var snapshots: [RowSnapshot] = []
            snapshots.reserveCapacity(result.rowCount)
            for row in 0..<result.rowCount { snapshots.append(decoder.snapshot(result, row)) }
            return .snapshots(snapshots)
        case .objectIDs:
            return .objectIDs((0..<result.rowCount).map { row in
                NSManagedObjectID(entity: schema.mapping(number: result.int64(row, 1))?.entity ?? mapping.entity, store: self,
                                  primaryKey: result.int64(row, 0))
            })
        case .count:
            return .count(result.rowCount > 0 ? Int(result.int64(0, 0)) : 0)
        case .keys:
            let keys = (0..<result.rowCount).map { result.int64($0, 0) }
            let family = fetch.entity.selfAndDescendants
            guard fetch.includesSubentities && family.count > 1 else { return .keys(keys, []) }
            var indexByNumber: [Int64: UInt16] = [:]
            for (index, entity) in family.enumerated() {
                if let number = schema.mapping(for: entity)?.number { indexByNumber[number] = UInt16(index) }
            }
            return .keys(keys, (0..<result.rowCount).map { indexByNumber[result.int64($0, 1)] ?? 0 })
        case .dictionaries(let columns, _):
            return .dictionaries(dictionaries(result, columns: columns, operands: select.dictionaryOperands, mapping: mapping))
        }
    }

    /// Answers a fetch whose predicate or order PostgreSQL's SQL cannot compute as memory does:
    /// the candidate rows are read in one query — those that meet the conditions of an `AND`
    /// that SQL computes exactly (`status == 'open' AND title CONTAINS[c] 'x'` reads the open
    /// ones), else every row of the entity — then the predicate, order, offset and limit are
    /// applied in memory by the same code as for objects in a context. Its cost: the candidates
    /// cross the network, and each to-one or to-many the predicate or order follows is read with
    /// a query of its own the first time a row needs it.
    private func answerInMemory(_ fetch: StoreFetch, on connection: PostgresConnection) throws -> StoreFetchResult {
        var candidates = try candidateRows(of: fetch, on: connection)
        // In key order, as the other stores hold them, so that ties under the sort descriptors
        // fall as they do there (the server returns rows in the order it reads them).
        candidates.sort { $0.primaryKey < $1.primaryKey }
        let rows = PostgresRowSource(store: self, connection: connection, rows: candidates)
        let answer = try InMemoryFetch.answer(fetch, candidates: candidates, rows: rows)
        if let failure = rows.failure { throw failure }
        return answer
    }

    /// The rows of `fetch`'s entity that may meet its predicate: those that meet the conjuncts
    /// of a top-level `AND` that PostgreSQL computes as memory does (memory then checks the
    /// whole predicate over them), or every row.
    private func candidateRows(of fetch: StoreFetch, on connection: PostgresConnection) throws -> [RowSnapshot] {
        func rows(meeting predicate: NSPredicate?) throws -> [RowSnapshot]? {
            let superset = StoreFetch(entity: fetch.entity, includesSubentities: fetch.includesSubentities, predicate: predicate,
                                      sortDescriptors: [], fetchLimit: 0, fetchOffset: 0, returnsDistinctResults: false, result: .snapshots)
            // Every row is always a statement; a narrowed one may not be.
            guard let select = predicate == nil ? try SQLFetchStatement<PostgresDialect>(superset, schema: schema)
                : try? SQLFetchStatement<PostgresDialect>(superset, schema: schema) else { return nil }
            let result: PostgresResult
            do {
                result = try Self.undoingFailure(on: connection) { try connection.query(select.sql) }
            } catch let error as PostgresError where predicate != nil && Self.isComputedOtherwiseInMemory(error) {
                return nil
            }
            let decoder = PostgresRowDecoder(store: self, schema: schema)
            return (0..<result.rowCount).map { decoder.snapshot(result, $0) }
        }
        if let narrowing = Self.computableConjuncts(of: fetch.predicate, fetch: fetch, schema: schema),
           let rows = try rows(meeting: narrowing) {
            return rows
        }
        return try rows(meeting: nil)!
    }

    /// The conjuncts of `predicate` (a top-level `AND`) that PostgreSQL computes exactly, as one
    /// predicate; nil when there are none.
    private static func computableConjuncts(of predicate: NSPredicate?, fetch: StoreFetch, schema: SQLiteSchema) -> NSPredicate? {
        guard let compound = predicate as? NSCompoundPredicate, compound.compoundPredicateType == .and else { return nil }
        let computable = compound.subpredicates.filter { conjunct in
            let alone = StoreFetch(entity: fetch.entity, includesSubentities: fetch.includesSubentities, predicate: conjunct,
                                   sortDescriptors: [], fetchLimit: 0, fetchOffset: 0, returnsDistinctResults: false, result: .snapshots)
            return (try? SQLFetchStatement<PostgresDialect>(alone, schema: schema)) != nil
        }
        guard !computable.isEmpty else { return nil }
        return computable.count == 1 ? computable[0] : NSCompoundPredicate(andPredicateWithSubpredicates: computable)
    }

    /// Whether PostgreSQL refused a fetch's SQL for what memory answers otherwise: arithmetic
    /// that overflows a `bigint` (memory goes on in floating point) and the other data
    /// exceptions listed below, and the orders and groupings its SQL does not allow (`DISTINCT` with an order by a value
    /// not selected, a value neither grouped nor aggregated). The fetch is then answered in
    /// memory, never failed where the other stores answer it.
    static func isComputedOtherwiseInMemory(_ error: PostgresError) -> Bool {
        guard error.kind == .statementFailed, let state = error.sqlState else { return false }
        // Out of range, division by zero, a floating-point exception, an invalid argument of a
        // logarithm or power, an invalid regular expression, a NUL in text; an order or grouping
        // SQL does not allow. Other errors (a value bound wrongly) are thrown, never hidden.
        return ["22003", "22012", "22P01", "2201E", "2201F", "2201B", "22021", "42P10", "42803"].contains(state)
    }

    private func dictionaries(_ result: PostgresResult, columns: [DictionaryColumn], operands: [SQLOperand],
                              mapping: SQLiteSchema.EntityMapping) -> [[String: Any]] {
        let destinations: [NSEntityDescription?] = columns.enumerated().map { index, column in
            guard case .value(let keyPath) = column.kind, operands[index].attribute == nil else { return nil }
            return PredicateCheck.lastRelationship(of: keyPath, from: mapping.entity)?.destinationEntity
        }
        return (0..<result.rowCount).map { row in
            var dictionary: [String: Any] = [:]
            for (index, column) in columns.enumerated() where !result.isNull(row, index) {
                switch column.kind {
                case .aggregate(let function, _):
                    dictionary[column.name] = AggregateValue.make(function, value: result.value(row, index).anyValue,
                                                                  attribute: operands[index].attribute, resultType: column.resultType)
                case .value:
                    if let attribute = operands[index].attribute {
                        let value = PostgresValueCoding.read(result, row, index, type: attribute.attributeType, attribute: attribute)
                        dictionary[column.name] = value.objectValue(for: attribute.attributeType)
                    } else if let destination = destinations[index] {
                        dictionary[column.name] = NSManagedObjectID(entity: destination, store: self, primaryKey: result.int64(row, index))
                    }
                }
            }
            return dictionary
        }
    }

    /// The rows of `objectIDs`, a query per table and thousand keys.
    func readSnapshots(for objectIDs: [NSManagedObjectID], on connection: PostgresConnection) throws -> [RowSnapshot] {
        var snapshots: [RowSnapshot] = []
        let byTable = Dictionary(grouping: objectIDs.filter { $0.primaryKey != nil }) { ObjectIdentifier($0.entity.rootEntity) }
        let decoder = PostgresRowDecoder(store: self, schema: schema)
        for ids in byTable.values {
            guard let table = schema.mapping(for: ids[0].entity)?.table else { continue }
            for chunk in stride(from: 0, to: ids.count, by: 1000).map({ ids[$0..<min($0 + 1000, ids.count)] }) {
                let keys = SQLFragment.list(chunk.map { .integer($0.primaryKey!) })
                let result = try connection.query(
                    "SELECT \(raw: schema.selectList(of: table, alias: "t0")) FROM \(raw: table.name) t0 WHERE t0.Z_PK IN (\(keys))")
                for row in 0..<result.rowCount { snapshots.append(decoder.snapshot(result, row)) }
            }
        }
        return snapshots
    }

    /// The members of `relationship` for each of `sources`, in order for an ordered one.
    func readRelatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                              on connection: PostgresConnection) throws -> [NSManagedObjectID: [RowSnapshot]] {
        guard let destination = relationship.destinationEntity.flatMap(schema.mapping(for:)) else { return [:] }
        var related: [NSManagedObjectID: [RowSnapshot]] = [:]
        let byKey = Dictionary(sources.compactMap { id in id.primaryKey.map { ($0, id) } }, uniquingKeysWith: { first, _ in first })
        let keys = Array(byKey.keys)
        let decoder = PostgresRowDecoder(store: self, schema: schema, offset: 1)
        for start in stride(from: 0, to: keys.count, by: 1000) {
            let list = SQLFragment.list(keys[start..<min(start + 1000, keys.count)].map { .integer($0) })
            let columns = schema.selectList(of: destination.table, alias: "t0")
            let sql: SQLFragment
            if let join = schema.joinTables[ObjectIdentifier(relationship)] {
                let order = join.orderColumn.map { "j.\($0), " } ?? ""
                sql = "SELECT j.\(raw: join.sourceColumn), \(raw: columns) FROM \(raw: join.name) j JOIN \(raw: destination.table.name) t0 ON t0.Z_PK = j.\(raw: join.destinationColumn) WHERE j.\(raw: join.sourceColumn) IN (\(list)) ORDER BY j.\(raw: join.sourceColumn), \(raw: order)t0.Z_PK"
            } else if let inverse = relationship.inverseRelationship, let foreignKey = destination.toOneColumns[inverse.relationshipSlot] {
                let filter = destination.condition(includesSubentities: true, alias: "t0").map { " AND \($0)" } ?? SQLFragment.empty
                let order = destination.table.orderColumns[ObjectIdentifier(relationship)].map { "t0.\($0), " } ?? ""
                sql = "SELECT t0.\(raw: foreignKey), \(raw: columns) FROM \(raw: destination.table.name) t0 WHERE t0.\(raw: foreignKey) IN (\(list))\(filter) ORDER BY t0.\(raw: foreignKey), \(raw: order)t0.Z_PK"
            } else {
                continue
            }
            let result = try connection.query(sql)
            for row in 0..<result.rowCount {
                guard let source = byKey[result.int64(row, 0)] else { continue }
                related[source, default: []].append(decoder.snapshot(result, row))
            }
        }
        return related
    }
}
