import Foundation
import OCDSQLite
import OpenCoreDataCore

extension SQLiteStore {
    func executeFetch(_ fetch: StoreFetch) throws -> StoreFetchResult {
        try withReader(for: fetch.context) { reader in
            let connection = reader.connection
            let select = try reader.fetchStatements.statement(for: fetch) { try SQLiteFetchStatement(fetch, schema: schema) }
            let mapping = select.mapping
            let dictionaryOperands = select.dictionaryOperands
            let statement = try connection.cachedStatement(select.sql)
            defer { statement.reset() }
            switch fetch.result {
            case .snapshots:
                var snapshots: [RowSnapshot] = []
                let decoder = SQLiteRowDecoder(store: self, schema: schema)
                while try statement.step() { snapshots.append(decoder.snapshot(statement)) }
                try decoder.finish()
                return .snapshots(snapshots)
            case .objectIDs:
                var ids: [NSManagedObjectID] = []
                while try statement.step() { ids.append(objectID(pk: statement.int64(at: 0), entityNumber: statement.int64(at: 1), fallback: mapping)) }
                return .objectIDs(ids)
            case .count:
                _ = try statement.step()
                return .count(Int(statement.int64(at: 0)))
            case .keys:
                let (keys, entityIndexes) = try readKeys(statement, fetch: fetch, mapping: mapping)
                return .keys(keys, entityIndexes)
            case .dictionaries(let columns, _):
                return .dictionaries(try readDictionaries(statement, columns: columns, operands: dictionaryOperands, mapping: mapping))
            }
        }
    }

    /// The keys and concrete entities of a `.keys` fetch.
    private func readKeys(_ statement: SQLiteStatement, fetch: StoreFetch, mapping: SQLiteSchema.EntityMapping) throws
        -> ([Int64], [UInt16]) {
        var keys: [Int64] = []
        var entityIndexes: [UInt16] = []
        let family = fetch.entity.selfAndDescendants
        guard fetch.includesSubentities && family.count > 1 else {
            while try statement.step() { keys.append(statement.int64(at: 0)) }
            return (keys, [])
        }
        var indexByNumber: [Int64: UInt16] = [:]
        for (index, entity) in family.enumerated() {
            if let number = schema.mapping(for: entity)?.number { indexByNumber[number] = UInt16(index) }
        }
        while try statement.step() {
            keys.append(statement.int64(at: 0))
            entityIndexes.append(indexByNumber[statement.int64(at: 1)] ?? 0)
        }
        return (keys, entityIndexes)
    }

    func objectID(pk: Int64, entityNumber: Int64, fallback: SQLiteSchema.EntityMapping) -> NSManagedObjectID {
        let entity = schema.mapping(number: entityNumber)?.entity ?? fallback.entity
        return NSManagedObjectID(entity: entity, store: self, primaryKey: pk)
    }

    private func readDictionaries(_ statement: SQLiteStatement, columns: [DictionaryColumn], operands: [SQLOperand],
                                  mapping: SQLiteSchema.EntityMapping) throws -> [[String: Any]] {
        // The destination entity of each column that names a to-one (its values are object IDs),
        // found once rather than per row.
        let destinations: [NSEntityDescription?] = columns.enumerated().map { index, column in
            guard case .value(let keyPath) = column.kind, operands[index].attribute == nil else { return nil }
            return PredicateCheck.lastRelationship(of: keyPath, from: mapping.entity)?.destinationEntity
        }
        var result: [[String: Any]] = []
        while try statement.step() {
            var dictionary: [String: Any] = [:]
            for (index, column) in columns.enumerated() where !statement.isNull(at: index) {
                switch column.kind {
                case .aggregate(let function, _):
                    dictionary[column.name] = AggregateValue.make(function, value: statement.value(at: index).anyValue,
                                                                  attribute: operands[index].attribute,
                                                                  resultType: column.resultType)
                case .value:
                    if operands[index].isCompositeElement, let element = operands[index].attribute {
                        dictionary[column.name] = CompositeValue.elementValue(fromSQL: statement.value(at: index).anyValue, element: element)
                    } else if let attribute = operands[index].attribute {
                        var value = SQLiteValueCoding.read(statement, at: index, as: attribute)
                        if attribute.storesDataExternally, case .data(let stored) = value {
                            value = .data(try externalData.value(ofColumn: stored, object: "an object", attribute: attribute))
                        }
                        dictionary[column.name] = value.objectValue(for: attribute.attributeType)
                    } else if let destination = destinations[index] {
                        dictionary[column.name] = NSManagedObjectID(entity: destination, store: self, primaryKey: statement.int64(at: index))
                    }
                }
            }
            result.append(dictionary)
        }
        return result
    }

    func readSnapshots(for objectIDs: [NSManagedObjectID], context: NSManagedObjectContext?) throws -> [RowSnapshot] {
        try withReader(for: context) { reader in
            let connection = reader.connection
            var result: [RowSnapshot] = []
            let byTable = Dictionary(grouping: objectIDs.filter { $0.primaryKey != nil }) { ObjectIdentifier($0.entity.rootEntity) }
            for ids in byTable.values {
                guard let table = schema.mapping(for: ids[0].entity)?.table else { continue }
                for chunk in ids.chunked(into: 500) {
                    let keys = SQLFragment.list(chunk.map { .integer($0.primaryKey!) })
                    let statement = try connection.cachedStatement(
                        "SELECT \(raw: schema.selectList(of: table, alias: "t0")) FROM \(raw: table.name) t0 WHERE t0.Z_PK IN (\(keys))")
                    defer { statement.reset() }
                    let decoder = SQLiteRowDecoder(store: self, schema: schema)
                    while try statement.step() { result.append(decoder.snapshot(statement)) }
                    try decoder.finish()
                }
            }
            return result
        }
    }

    func readRelatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                              context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [RowSnapshot]] {
        try withReader(for: context) { reader in
            let connection = reader.connection
            guard let destination = relationship.destinationEntity.flatMap(schema.mapping(for:)) else { return [:] }
            var result: [NSManagedObjectID: [RowSnapshot]] = [:]
            let byKey = Dictionary(sources.compactMap { id in id.primaryKey.map { ($0, id) } }, uniquingKeysWith: { first, _ in first })
            for chunk in Array(byKey.keys).chunked(into: 500) {
                let keys = SQLFragment.list(chunk.map { .integer($0) })
                let columns = schema.selectList(of: destination.table, alias: "t0")
                let sql: SQLFragment
                if let join = schema.joinTables[ObjectIdentifier(relationship)] {
                    let order = join.orderColumn.map { "j.\($0), " } ?? ""
                    sql = "SELECT j.\(raw: join.sourceColumn), \(raw: columns) FROM \(raw: join.name) j JOIN \(raw: destination.table.name) t0 ON t0.Z_PK = j.\(raw: join.destinationColumn) WHERE j.\(raw: join.sourceColumn) IN (\(keys)) ORDER BY j.\(raw: join.sourceColumn), \(raw: order)t0.Z_PK"
                } else if let inverse = relationship.inverseRelationship, let foreignKey = destination.toOneColumns[inverse.relationshipSlot] {
                    let filter = destination.condition(includesSubentities: true, alias: "t0").map { " AND \($0)" } ?? SQLFragment.empty
                    let order = destination.table.orderColumns[ObjectIdentifier(relationship)].map { "t0.\($0), " } ?? ""
                    sql = "SELECT t0.\(raw: foreignKey), \(raw: columns) FROM \(raw: destination.table.name) t0 WHERE t0.\(raw: foreignKey) IN (\(keys))\(filter) ORDER BY t0.\(raw: foreignKey), \(raw: order)t0.Z_PK"
                } else {
                    continue
                }
                let statement = try connection.cachedStatement(sql)
                defer { statement.reset() }
                let decoder = SQLiteRowDecoder(store: self, schema: schema, offset: 1)
                // Rows come ordered by their source: gathered per run of one source, so that the
                // result is looked up once per source rather than once per row.
                var runKey: Int64?
                var run: [RowSnapshot] = []
                func finishRun() {
                    defer { run = [] }
                    guard let runKey, let source = byKey[runKey], !run.isEmpty else { return }
                    // A source's rows come in one run (its chunk, in key order): handed over, not
                    // copied, unless an earlier run of the same source is already there.
                    if result[source] == nil { result[source] = run } else { result[source]! += run }
                }
                while try statement.step() {
                    let key = statement.int64(at: 0)
                    if key != runKey {
                        finishRun()
                        runKey = key
                    }
                    run.append(decoder.snapshot(statement))
                }
                finishRun()
                try decoder.finish()
            }
            return result
        }
    }
}

extension Array {
    func chunked(into size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

extension PredicateCheck {
    /// The relationship a key path ends in, if it ends in one.
    package static func lastRelationship(of keyPath: String, from entity: NSEntityDescription) -> NSRelationshipDescription? {
        (try? resolve(keyPath: keyPath, from: entity, allowsToMany: true, in: nil))?.last as? NSRelationshipDescription
    }
}
