import Foundation
import OCDPostgres
import OCDSQL
import OpenCoreDataCore
import OpenCoreDataSQLite

/// Migrates a PostgreSQL store in place to a newer model, by an inferred mapping, as PostgreSQL
/// DDL in the transaction that opens the store: another server sees the old store or the new
/// one, and a failure leaves the old one.
///
/// Entities keep their `Z_ENT` (new ones are numbered after the highest), so rows, `Z<n>_`
/// columns and join tables keep their keys. Every table of the new model is built under a
/// temporary name and filled with `INSERT … SELECT` from the table its entities' rows were in
/// (renamed attributes and entities, attributes and relationships added or removed, numbers of
/// one type becoming another, optional attributes becoming required with a default, to-ones
/// becoming many-to-manys); the old tables are dropped and the new ones renamed into place,
/// with new key sequences that continue after the old ones, the new model's indexes and
/// uniqueness constraints (rows that break a new constraint: 134111), `Z_PRIMARYKEY`, the
/// metadata and the model cache. What a lightweight migration of the SQLite store refuses, this
/// refuses too (134110, naming the entity), and also: rows of one table moving to several, and
/// a type change between numbers, strings and data.
struct PostgresLightweightMigration {
    let connection: PostgresConnection
    /// The store's layout under the model it was written with.
    let source: SQLiteSchema
    let destinationModel: NSManagedObjectModel
    /// The entities the migrated store holds (the store's configuration, with sub-entities).
    let destinationEntities: [NSEntityDescription]
    let mapping: NSMappingModel
    /// The store's `Z_PRIMARYKEY`: entity name → `Z_ENT`.
    let storedNumbers: [String: Int64]
    let place: String
    let url: URL?
    /// How long the migration waits for other connections to let go of the store's tables.
    static let lockWait: Double = 30

    /// Migrates the tables and returns the store's new metadata (written) and layout.
    func run(metadata: [String: Any], uuid: String) throws -> (metadata: [String: Any], schema: SQLiteSchema) {
        let destination = SQLiteSchema(entities: destinationEntities, storedNumbers: destinationNumbers())
        var work = Work(migration: self, destination: destination)
        try work.lockSourceTables()
        try work.buildTables()
        try work.buildJoinTables()
        let lastKeys = try work.lastKeysOfSourceSequences()
        try work.replaceSourceTables()
        try work.checkRequiredValues()
        try work.removeDanglingReferences()
        try work.createSequences(continuingAfter: lastKeys)
        try work.createIndexesAndConstraints()
        try rewritePrimaryKeyTable(for: destination)
        var updated = metadata
        updated[StoreMetadataKey.modelFileVersions] = nil
        updated[StoreMetadataKey.modelFileVersion] = nil
        for (key, value) in destinationModel.versionMetadata(for: destination.orderedEntities) { updated[key] = value }
        try PostgresMetadataTable.write(updated, uuid: uuid, on: connection, place: place, url: url)
        try connection.execute("DELETE FROM Z_MODELCACHE")
        if let cache = StoreModelCache.content(for: destinationModel) {
            try connection.run("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(cache)])
        }
        return (updated, destination)
    }

    // MARK: Entities

    /// The source entity each destination entity is a version of.
    func sourceEntity(for entity: NSEntityDescription) -> NSEntityDescription? {
        guard let name = entity.name, let entityMapping = mapping.entityMapping(forDestination: name),
              entityMapping.mappingType != .addEntityMappingType,
              let sourceName = entityMapping.sourceEntityName else { return nil }
        return source.orderedEntities.first { $0.name == sourceName }
    }

    /// Destination `Z_ENT`s: an entity keeps its source number; a new one gets the next free.
    private func destinationNumbers() -> [String: Int64] {
        var numbers: [String: Int64] = [:]
        var next = max(storedNumbers.values.max() ?? 0, source.orderedEntities.compactMap { source.mapping(for: $0)?.number }.max() ?? 0) + 1
        for entity in NSManagedObjectModel.withSubentities(destinationEntities.filter { $0.superentity == nil }
            .sorted { ($0.name ?? "").lowercased() < ($1.name ?? "").lowercased() }) {
            guard let name = entity.name else { continue }
            if let old = sourceEntity(for: entity), let number = source.mapping(for: old)?.number {
                numbers[name] = number
            } else {
                numbers[name] = next
                next += 1
            }
        }
        return numbers
    }

    private func rewritePrimaryKeyTable(for destination: SQLiteSchema) throws {
        try connection.execute("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
        let rows = destination.orderedEntities.compactMap { entity -> (sql: String, arguments: [SQLValue])? in
            guard let number = destination.mapping(for: entity)?.number else { return nil }
            return ("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                    [.integer(number), .text(entity.name ?? ""), .integer(entity.superentity.flatMap { destination.mapping(for: $0)?.number } ?? 0)])
        }
        _ = try connection.runBatch(rows)
    }

    func error(_ reason: String, entity: String?) -> CocoaError {
        var info: [String: Any] = [:]
        if let entity { info["NSEntityNameKey"] = entity }
        if let url { info[NSURLErrorKey] = url }
        return CoreDataError.make(.migration, "The store in \(place) could not be migrated: \(reason)", info)
    }
}

extension PostgresLightweightMigration {
    /// The migration's work on the tables, and what it has done so far.
    fileprivate struct Work {
        let migration: PostgresLightweightMigration
        let destination: SQLiteSchema
        var connection: PostgresConnection { migration.connection }
        var source: SQLiteSchema { migration.source }
        /// Tables built under a temporary name: temporary name → final name.
        var built: [(temporary: String, final: String)] = []
        /// Source tables (entity and join tables) kept in place under their name.
        var keptInPlace: Set<String> = []
        /// Columns of tables kept in place that the new model does not have.
        var columnsToDrop: [(table: String, column: String)] = []
        /// Destination tables that did not keep every row of their source table.
        var tablesWithRemovedRows: Set<String> = []
        /// The source root tables whose rows each destination table took, by destination name.
        var feeders: [String: String] = [:]
        /// Required attributes that may have been left without a value.
        var requiredChecks: [(column: String, owner: SQLiteSchema.EntityMapping, name: String)] = []

        init(migration: PostgresLightweightMigration, destination: SQLiteSchema) {
            self.migration = migration
            self.destination = destination
        }

        private mutating func temporaryName(for final: String) -> String {
            let name = "ZOCD_MIGRATING_\(built.count)"
            built.append((name, final))
            return name
        }

        /// Locks the store's tables against every other connection until the migration commits:
        /// a save of a server still on the old version must not commit between the copy and the
        /// drop (it would be lost), nor take a key the new sequences would hand out again. Waits
        /// for other connections' transactions on them at most `lockWait`.
        func lockSourceTables() throws {
            let tables = source.tables.map(\.name) + source.distinctJoinTables.map(\.name)
            guard !tables.isEmpty else { return }
            try connection.execute("SET LOCAL lock_timeout = '\(Int(PostgresLightweightMigration.lockWait * 1000))ms'")
            // The DDL's literals (`literal(_:)`) are written for standard strings.
            try connection.execute("SET LOCAL standard_conforming_strings = on")
            do {
                try connection.execute("LOCK TABLE \(tables.joined(separator: ", ")) IN ACCESS EXCLUSIVE MODE")
            } catch let error as PostgresError where error.sqlState == "55P03" {
                throw migration.error("other connections kept the store's tables busy for \(Int(PostgresLightweightMigration.lockWait)) seconds (a long transaction, or a query generation a context keeps): \(error.message)",
                                      entity: nil)
            }
        }

        // MARK: Entity tables

        mutating func buildTables() throws {
            for table in destination.tables {
                let sources = Set(table.entities.compactMap { migration.sourceEntity(for: $0.entity) }
                    .compactMap { source.mapping(for: $0)?.table.name })
                guard sources.count <= 1 else {
                    throw migration.error("entity '\(table.root.name ?? "")' would gather rows of several tables (\(sources.sorted().joined(separator: ", "))), which a lightweight migration does not do",
                                          entity: table.root.name)
                }
                let sourceTable = sources.first.flatMap { name in source.tables.first { $0.name == name } }
                if let sourceTable, try alterInPlace(table, from: sourceTable) { continue }
                let temporary = temporaryName(for: table.name)
                try connection.execute(PostgresSchemaDefinition.createStatement(for: table, named: temporary))
                if let sourceTable { try fill(temporary, of: table, from: sourceTable) }
            }
        }

        /// Changes a table whose rows all stay and whose columns are only added (empty, or with
        /// their default) or removed in place, with `ALTER TABLE`, which reads no row: PostgreSQL
        /// keeps an added column's default for the rows already there without writing them.
        /// False when the table must be built anew.
        private mutating func alterInPlace(_ table: SQLiteSchema.TableMapping, from sourceTable: SQLiteSchema.TableMapping) throws -> Bool {
            guard table.name == sourceTable.name else { return false }
            let kept = Set(table.entities.compactMap { migration.sourceEntity(for: $0.entity).flatMap { source.mapping(for: $0)?.number } })
            guard sourceTable.entities.allSatisfy({ kept.contains($0.number) }) else { return false }
            let checksBefore = requiredChecks.count
            let plan = try columnPlan(for: table, from: sourceTable)
            let sourceTypes = Dictionary(sourceTable.columns.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
            let sourceOpaque = PostgresSchemaDefinition.opaqueCompositeColumns(of: sourceTable)
            let opaque = PostgresSchemaDefinition.opaqueCompositeColumns(of: table)
            func storedType(_ column: String, _ type: String, opaque: Set<String>) -> String {
                opaque.contains(column) ? "bytea" : PostgresSchemaDefinition.columnType(type)
            }
            let destinationTypes = Dictionary(table.columns.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
            var added: [(column: String, type: String, value: SQLValue)] = []
            for entry in plan {
                let type = storedType(entry.column, destinationTypes[entry.column] ?? "BLOB", opaque: opaque)
                if let old = sourceTypes[entry.column] {
                    guard entry.expression == entry.column, storedType(entry.column, old, opaque: sourceOpaque) == type else {
                        requiredChecks.removeSubrange(checksBefore...)
                        return false
                    }
                } else if let value = entry.constant {
                    added.append((entry.column, type, value))
                } else {
                    requiredChecks.removeSubrange(checksBefore...)
                    return false
                }
            }
            // Dropped once the join tables have read them (a to-one that became a to-many).
            columnsToDrop += Set(sourceTypes.keys).subtracting(plan.map(\.column)).sorted().map { (table.name, $0) }
            for (column, type, value) in added {
                guard case .null = value else {
                    try connection.execute("ALTER TABLE \(table.name) ADD COLUMN \(column) \(type) DEFAULT \(Self.literal(value))")
                    // The rows there keep the value; later rows are written whole by the store.
                    try connection.execute("ALTER TABLE \(table.name) ALTER COLUMN \(column) DROP DEFAULT")
                    continue
                }
                try connection.execute("ALTER TABLE \(table.name) ADD COLUMN \(column) \(type)")
            }
            keptInPlace.insert(table.name)
            feeders[table.name] = sourceTable.name
            return true
        }

        /// `value` as a SQL literal, for DDL (which takes no bound value).
        private static func literal(_ value: SQLValue) -> String {
            switch value {
            case .null: return "NULL"
            case .integer(let integer): return String(integer)
            case .real(let real):
                guard real.isFinite else { return real.isNaN ? "'NaN'::double precision" : real > 0 ? "'Infinity'::double precision" : "'-Infinity'::double precision" }
                return "'\(real)'::double precision"
            case .text(let text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
            case .blob(let data): return "'\\x" + data.map { String(format: "%02x", $0) }.joined() + "'::bytea"
            }
        }

        /// Copies the rows of `sourceTable` whose entities `table` keeps, keys unchanged.
        private mutating func fill(_ temporary: String, of table: SQLiteSchema.TableMapping, from sourceTable: SQLiteSchema.TableMapping) throws {
            let kept = Set(table.entities.compactMap { migration.sourceEntity(for: $0.entity).flatMap { source.mapping(for: $0)?.number } })
            // Rows of entities another table keeps (a sub-entity that left the tree) are copied
            // there from the same source table; those no table keeps go with it.
            if sourceTable.entities.contains(where: { !kept.contains($0.number) }) { tablesWithRemovedRows.insert(table.name) }
            feeders[table.name] = sourceTable.name
            let plan = try columnPlan(for: table, from: sourceTable)
            let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + plan.map(\.column)
            let values = ["Z_PK", "Z_ENT", "Z_OPT"] + plan.map(\.expression)
            let filter = kept.isEmpty ? "FALSE" : "Z_ENT IN (\(kept.sorted().map(String.init).joined(separator: ", ")))"
            try copyRows(into: temporary, columns: columns, values: values, arguments: plan.flatMap(\.arguments), from: sourceTable.name,
                         where: filter, entity: table.root.name)
        }

        private func copyRows(into target: String, columns: [String], values: [String], arguments: [SQLValue],
                              from sourceName: String, where filter: String, entity: String?) throws {
            do {
                try connection.run("INSERT INTO \(target) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(sourceName) WHERE \(filter)",
                                   arguments)
            } catch let error as PostgresError where error.kind != .connectionLost {
                throw migration.error("copying the rows of \(sourceName) failed: \(error.message)", entity: entity)
            }
        }

        /// Where each column of `table` (after `Z_PK`, `Z_ENT`, `Z_OPT`) takes its value from;
        /// where the entities of a shared table differ, the value is chosen by `Z_ENT`.
        private mutating func columnPlan(for table: SQLiteSchema.TableMapping, from sourceTable: SQLiteSchema.TableMapping) throws -> [ColumnSource] {
            var sources: [String: [(number: Int64, source: ColumnSource)]] = [:]
            for mapping in table.entities {
                let layout = mapping.entity.layout
                for attribute in layout.attributes where !attribute.isTransient {
                    guard let column = mapping.attributeColumns[attribute.attributeSlot] else { continue }
                    sources[column, default: []].append((mapping.number, try attributeSource(attribute, column: column, of: mapping, from: sourceTable)))
                }
                for relationship in layout.relationships {
                    guard let column = mapping.toOneColumns[relationship.relationshipSlot] else { continue }
                    let (key, entityColumn) = try toOneSources(relationship, of: mapping.entity, in: sourceTable)
                    sources[column, default: []].append((mapping.number, ColumnSource(column: column, expression: key ?? "NULL")))
                    if let destinationEntityColumn = mapping.toOneEntityColumns[relationship.relationshipSlot] {
                        let number = relationship.destinationEntity.flatMap { destination.mapping(for: $0)?.number } ?? 0
                        let value = entityColumn ?? key.map { "CASE WHEN \($0) IS NULL THEN NULL ELSE \(number) END" } ?? "NULL"
                        sources[destinationEntityColumn, default: []].append((mapping.number, ColumnSource(column: destinationEntityColumn, expression: value)))
                    }
                }
            }
            var plan: [String: ColumnSource] = [:]
            for (column, entries) in sources {
                var combined = Self.combine(entries, column: column, allEntities: table.entities.count)
                if combined.expression == "NULL" { combined.constant = .null }
                plan[column] = combined
            }
            for (id, column) in table.orderColumns where plan[column] == nil {
                // A relationship that becomes ordered is ordered by key.
                plan[column] = ColumnSource(column: column, expression: try sourceOrderColumn(forDestinationRelationship: id, in: sourceTable) ?? "Z_PK")
            }
            return table.columns.compactMap { plan[$0.name] }
        }

        /// One column's value from its entities' sources: the common one, or one per `Z_ENT`.
        private static func combine(_ entries: [(number: Int64, source: ColumnSource)], column: String, allEntities: Int) -> ColumnSource {
            let first = entries[0].source
            let same = entries.allSatisfy { $0.source.expression == first.expression && $0.source.arguments == first.arguments }
            if same && (entries.count == allEntities || first.expression == "NULL") { return first }
            if same {
                let numbers = entries.map { String($0.number) }.joined(separator: ", ")
                return ColumnSource(column: column, expression: "CASE WHEN Z_ENT IN (\(numbers)) THEN \(first.expression) END", arguments: first.arguments)
            }
            let cases = entries.map { "WHEN \($0.number) THEN \($0.source.expression)" }.joined(separator: " ")
            return ColumnSource(column: column, expression: "CASE Z_ENT \(cases) END", arguments: entries.flatMap(\.source.arguments))
        }

        /// Where an attribute takes its value: its source attribute's column (converted to the
        /// new type), its default where it is new or was optional and is now required, or
        /// nothing; a required one left without a value is checked once the rows are in place.
        private mutating func attributeSource(_ attribute: NSAttributeDescription, column: String, of owner: SQLiteSchema.EntityMapping,
                                              from sourceTable: SQLiteSchema.TableMapping) throws -> ColumnSource {
            let defaultValue = try Self.defaultValue(of: attribute)
            guard let old = sourceProperty(of: attribute, in: owner.entity) as? NSAttributeDescription else {
                if !attribute.isOptional && defaultValue == nil { requiredChecks.append((column, owner, attribute.name)) }
                return defaultValue.map { ColumnSource(column: column, expression: Self.typed("?", attribute), arguments: [$0], constant: $0) }
                    ?? ColumnSource(column: column, expression: "NULL", constant: .null)
            }
            guard let oldOwner = old.entity.flatMap({ source.mapping(for: $0) }), oldOwner.table === sourceTable,
                  let oldColumn = oldOwner.attributeColumns[old.attributeSlot] else {
                throw migration.error("attribute '\(attribute.name)' of entity '\(owner.entity.name ?? "")' comes from another table, which a lightweight migration does not do yet",
                                      entity: owner.entity.name)
            }
            guard let expression = Self.converting(oldColumn, from: old.attributeType, to: attribute.attributeType) else {
                throw migration.error("attribute '\(attribute.name)' of entity '\(owner.entity.name ?? "")' changes type from \(SQLiteSchema.sqlType(of: old.attributeType)) to \(SQLiteSchema.sqlType(of: attribute.attributeType)), which the PostgreSQL store does not convert",
                                      entity: owner.entity.name)
            }
            guard !attribute.isOptional && old.isOptional else { return ColumnSource(column: column, expression: expression) }
            guard let defaultValue else {
                requiredChecks.append((column, owner, attribute.name))
                return ColumnSource(column: column, expression: expression)
            }
            return ColumnSource(column: column, expression: "COALESCE(\(expression), \(Self.typed("?", attribute)))", arguments: [defaultValue])
        }

        /// A bound value as the column's type (an argument of a `SELECT` has none of its own).
        private static func typed(_ expression: String, _ attribute: NSAttributeDescription) -> String {
            // The type's name only: a column's collation is applied when the value is stored.
            let type = PostgresSchemaDefinition.columnType(SQLiteSchema.sqlType(of: attribute.attributeType))
            return "CAST(\(expression) AS \(type.replacingOccurrences(of: " COLLATE \"C\"", with: "")))"
        }

        /// The stored value of an attribute's default, if it has one.
        private static func defaultValue(of attribute: NSAttributeDescription) throws -> SQLValue? {
            guard let value = attribute.defaultValue,
                  let primitive = try? PrimitiveValue(value, for: attribute.attributeType), primitive != .null else { return nil }
            return try PostgresValueCoding.sqlValue(primitive, of: attribute)
        }

        /// `column` as a value of `new` type; nil when PostgreSQL's types do not convert (text or
        /// data to or from numbers: SQLite keeps any value in any column, PostgreSQL refuses).
        private static func converting(_ column: String, from old: NSAttributeType, to new: NSAttributeType) -> String? {
            let (oldType, newType) = (PostgresSchemaDefinition.columnType(SQLiteSchema.sqlType(of: old)),
                                      PostgresSchemaDefinition.columnType(SQLiteSchema.sqlType(of: new)))
            let numbers = ["bigint", "double precision"]
            if new == .booleanAttributeType && old != .booleanAttributeType {
                guard numbers.contains(oldType) else { return nil }
                return "CASE WHEN \(column) IS NULL THEN NULL WHEN \(column) <> 0 THEN 1 ELSE 0 END"
            }
            if oldType == newType { return column }
            guard numbers.contains(oldType), numbers.contains(newType) else { return nil }
            // SQLite's CAST of a real to an integer drops the fraction; PostgreSQL's rounds.
            return newType == "bigint" ? "CAST(trunc(\(column)) AS bigint)" : "CAST(\(column) AS double precision)"
        }

        /// The source property that `property` of the destination entity `entity` is a version of.
        private func sourceProperty(of property: NSPropertyDescription, in entity: NSEntityDescription) -> NSPropertyDescription? {
            guard let sourceEntity = migration.sourceEntity(for: entity),
                  let entityMapping = migration.mapping.entityMapping(forDestination: entity.name ?? "") else { return nil }
            let propertyMapping = property is NSRelationshipDescription
                ? entityMapping.relationshipMapping(named: property.name) : entityMapping.attributeMapping(named: property.name)
            guard let name = propertyMapping?.sourcePropertyName else { return nil }
            return sourceEntity.propertiesByName[name]
        }

        /// The source property of a relationship by the mapping of the entity that declares it,
        /// or of its sub-entities (a relationship moved up the tree).
        private func sourceProperty(of property: NSPropertyDescription) throws -> NSPropertyDescription? {
            guard let entity = property.entity else { return nil }
            var found: [NSPropertyDescription] = []
            for candidate in entity.selfAndDescendants.compactMap({ sourceProperty(of: property, in: $0) })
            where !found.contains(where: { $0 === candidate }) {
                found.append(candidate)
            }
            guard found.count <= 1 else {
                throw migration.error("relationship '\(property.name)' of entity '\(entity.name ?? "")' would gather the links of several relationships, which a lightweight migration does not do yet",
                                      entity: entity.name)
            }
            return found.first
        }

        /// The source columns of a to-one: its key and, if it has one, its entity column.
        private func toOneSources(_ relationship: NSRelationshipDescription, of entity: NSEntityDescription,
                                  in sourceTable: SQLiteSchema.TableMapping) throws -> (String?, String?) {
            var previous = sourceProperty(of: relationship, in: entity) as? NSRelationshipDescription
            // A new to-one that is the inverse of a to-many whose old inverse was another to-one
            // takes that one's: the to-many keeps its links through its new inverse.
            if previous == nil, let inverse = relationship.inverseRelationship, inverse.isToMany,
               let oldInverse = try sourceProperty(of: inverse) as? NSRelationshipDescription, oldInverse.isToMany {
                previous = oldInverse.inverseRelationship
            }
            guard let old = previous, !old.isToMany else { return (nil, nil) }
            guard let owner = old.entity.flatMap({ source.mapping(for: $0) }), owner.table === sourceTable else {
                throw migration.error("relationship '\(relationship.name)' of entity '\(entity.name ?? "")' comes from another table, which a lightweight migration does not do yet",
                                      entity: entity.name)
            }
            return (owner.toOneColumns[old.relationshipSlot], owner.toOneEntityColumns[old.relationshipSlot])
        }

        private func sourceOrderColumn(forDestinationRelationship id: ObjectIdentifier, in sourceTable: SQLiteSchema.TableMapping) throws -> String? {
            guard let relationship = destination.orderedEntities.lazy.flatMap(\.properties).first(where: { ObjectIdentifier($0) == id }),
                  let old = try sourceProperty(of: relationship) else { return nil }
            return sourceTable.orderColumns[ObjectIdentifier(old)]
        }

        /// After the rows are copied: a required attribute that is new, or was optional, and has
        /// no default must have a value in every row (134110, naming the entity and attribute).
        func checkRequiredValues() throws {
            for (column, owner, name) in requiredChecks {
                let missing = try connection.scalar("SELECT count(*) FROM \(owner.table.name) WHERE \(column) IS NULL AND Z_ENT = \(owner.number)").int64Value ?? 0
                guard missing > 0 else { continue }
                var info: [String: Any] = ["NSEntityNameKey": owner.entity.name ?? "", NSValidationKeyErrorKey: name]
                if let url = migration.url { info[NSURLErrorKey] = url }
                throw CoreDataError.make(.migration,
                                         "The store in \(migration.place) could not be migrated: \(missing) object(s) of entity '\(owner.entity.name ?? "")' have no value for the required attribute '\(name)', which has no default value",
                                         info)
            }
        }

        // MARK: Join tables

        mutating func buildJoinTables() throws {
            for join in destination.distinctJoinTables {
                let sides = destination.joinTables.filter { $0.value.name == join.name }
                    .compactMap { id, side in relationship(identifiedBy: id).map { ($0, side) } }
                    .sorted { $0.0.name < $1.0.name }
                let columns = [join.sourceColumn, join.destinationColumn] + destination.orderColumns(of: join)
                let found = try sourceJoinTable(for: sides)
                if let (sourceJoin, columnSources) = found, sourceJoin.name == join.name, columns.allSatisfy({ columnSources[$0] == $0 }),
                   Set([sourceJoin.sourceColumn, sourceJoin.destinationColumn] + source.orderColumns(of: sourceJoin)) == Set(columns) {
                    keptInPlace.insert(join.name)
                    continue
                }
                let temporary = temporaryName(for: join.name)
                try connection.execute(PostgresSchemaDefinition.createStatement(for: join, named: temporary, in: destination))
                if let (sourceJoin, columnSources) = found {
                    try copyRows(into: temporary, columns: columns, values: columns.map { columnSources[$0] ?? "NULL" }, arguments: [],
                                 from: sourceJoin.name, where: "TRUE", entity: nil)
                } else if let (table, filter, columnSources) = try sourceForeignKey(for: sides) {
                    // A to-one (or a one-to-many's to-one side) became a many-to-many: its key
                    // column fills the join table.
                    try copyRows(into: temporary, columns: columns, values: columns.map { columnSources[$0] ?? "NULL" }, arguments: [],
                                 from: table, where: filter, entity: nil)
                }
            }
        }

        /// The source join table a destination join table's relationships were kept in, with the
        /// source column of each destination column.
        private func sourceJoinTable(for sides: [(NSRelationshipDescription, SQLiteSchema.JoinTable)]) throws -> (SQLiteSchema.JoinTable, [String: String])? {
            var columnSources: [String: String] = [:]
            var found: SQLiteSchema.JoinTable?
            for (relationship, side) in sides {
                guard let old = try sourceProperty(of: relationship), let oldJoin = source.joinTables[ObjectIdentifier(old)] else { continue }
                found = oldJoin
                columnSources[side.sourceColumn] = oldJoin.sourceColumn
                columnSources[side.destinationColumn] = oldJoin.destinationColumn
                if let order = side.orderColumn { columnSources[order] = oldJoin.orderColumn ?? oldJoin.destinationColumn }
            }
            return found.flatMap { join in source.distinctJoinTables.first { $0.name == join.name } }.map { ($0, columnSources) }
        }

        /// For a join table whose relationship was a to-one, or a to-many with a to-one inverse:
        /// the source table with the to-one's key column, the rows that have a destination, and
        /// the source of each join column.
        private func sourceForeignKey(for sides: [(NSRelationshipDescription, SQLiteSchema.JoinTable)]) throws -> (String, String, [String: String])? {
            var toManySides: [(NSRelationshipDescription, SQLiteSchema.JoinTable)] = []
            var hadToOne = false
            for (relationship, side) in sides {
                guard let old = try sourceProperty(of: relationship) as? NSRelationshipDescription else { continue }
                if old.isToMany {
                    toManySides.append((old, side))
                    continue
                }
                hadToOne = true
                guard let owner = old.entity.flatMap({ source.mapping(for: $0) }), let key = owner.toOneColumns[old.relationshipSlot] else { continue }
                var columnSources = [side.sourceColumn: "Z_PK", side.destinationColumn: key]
                if let order = side.orderColumn { columnSources[order] = "1" }
                if let inverse = relationship.inverseRelationship, let inverseSide = destination.joinTables[ObjectIdentifier(inverse)],
                   let order = inverseSide.orderColumn {
                    // The to-one's inverse kept its order in the key's row.
                    columnSources[order] = old.inverseRelationship.flatMap { owner.table.orderColumns[ObjectIdentifier($0)] } ?? "Z_PK"
                }
                return (owner.table.name, "\(key) IS NOT NULL AND \(owner.subtreeCondition(on: "Z_ENT"))", columnSources)
            }
            // No side was a to-one: a to-many whose to-one inverse is gone.
            guard !hadToOne else { return nil }
            let found = toManySides.compactMap { old, side in sourceInverseForeignKey(of: old, for: side).map { (old, $0) } }
            if found.count > 1, let relationship = sides.first?.0 {
                // Two one-to-manys become the two sides of one many-to-many: their links would
                // have to be gathered into one join table.
                throw migration.error("relationship '\(relationship.name)' of entity '\(relationship.entity?.name ?? "")' would gather the links of several relationships (\(found.map { "\($0.0.entity?.name ?? "").\($0.0.name)" }.joined(separator: ", "))), which a lightweight migration does not do yet",
                                      entity: relationship.entity?.name)
            }
            return found.first?.1
        }

        /// For a join table whose relationship `old` was a to-many with a to-one inverse (a
        /// one-to-many that lost its inverse): the members' table with the inverse's key column,
        /// the members that have an owner, and the source of each join column. An ordered side
        /// keeps the members' positions, or takes them in key order.
        private func sourceInverseForeignKey(of old: NSRelationshipDescription, for side: SQLiteSchema.JoinTable) -> (String, String, [String: String])? {
            guard let inverse = old.inverseRelationship, !inverse.isToMany,
                  let member = inverse.entity.flatMap({ source.mapping(for: $0) }),
                  let key = member.toOneColumns[inverse.relationshipSlot] else { return nil }
            var columnSources = [side.sourceColumn: key, side.destinationColumn: "Z_PK"]
            if let order = side.orderColumn { columnSources[order] = member.table.orderColumns[ObjectIdentifier(old)] ?? "Z_PK" }
            return (member.table.name, "\(key) IS NOT NULL AND \(member.subtreeCondition(on: "Z_ENT"))", columnSources)
        }

        private func relationship(identifiedBy id: ObjectIdentifier) -> NSRelationshipDescription? {
            destination.orderedEntities.lazy.flatMap(\.properties).first { ObjectIdentifier($0) == id } as? NSRelationshipDescription
        }

        // MARK: Finishing

        /// The last key each source table's sequence handed out (0 for none), by table name.
        func lastKeysOfSourceSequences() throws -> [String: Int64] {
            var keys: [String: Int64] = [:]
            for table in source.tables {
                let sequence = PostgresSchemaDefinition.sequence(of: table)
                guard try connection.tableExists(sequence) else { continue }
                let result = try connection.query("SELECT last_value, is_called FROM \(sequence)")
                if result.rowCount > 0, result.int64(0, 1) != 0 { keys[table.name] = result.int64(0, 0) }
            }
            return keys
        }

        /// Drops the source tables and their sequences, and the columns the tables kept in place
        /// lost, and renames the new tables into place.
        func replaceSourceTables() throws {
            for (table, column) in columnsToDrop { try connection.execute("ALTER TABLE \(table) DROP COLUMN \(column)") }
            for table in source.tables where !keptInPlace.contains(table.name) {
                try connection.execute("DROP TABLE IF EXISTS \(table.name)")
                try connection.execute("DROP SEQUENCE IF EXISTS \(PostgresSchemaDefinition.sequence(of: table))")
            }
            for join in source.distinctJoinTables where !keptInPlace.contains(join.name) {
                try connection.execute("DROP TABLE IF EXISTS \(join.name)")
            }
            for (temporary, final) in built { try connection.execute("ALTER TABLE \(temporary) RENAME TO \(final)") }
        }

        /// A key sequence per new table, continuing after the last key its source table's
        /// sequence handed out and after every key the table holds: no key is handed out twice,
        /// even one a save in flight when the migration began took and never wrote.
        func createSequences(continuingAfter lastKeys: [String: Int64]) throws {
            for table in destination.tables where !keptInPlace.contains(table.name) {
                let sequence = PostgresSchemaDefinition.sequence(of: table)
                try connection.execute("CREATE SEQUENCE \(sequence) AS bigint")
                let held = try connection.scalar("SELECT coalesce(max(Z_PK), 0) FROM \(table.name)").int64Value ?? 0
                let last = max(held, feeders[table.name].flatMap { lastKeys[$0] } ?? 0)
                if last > 0 { try connection.run("SELECT setval(?, ?)", [.text(sequence), .integer(last)]) }
            }
        }

        /// After rows of removed entities went, no to-one or join row may point at an object
        /// that is no longer one of its relationship's destination entity: such links go.
        func removeDanglingReferences() throws {
            for table in destination.tables {
                for mapping in table.entities {
                    for relationship in mapping.entity.layout.relationships where relationship.entity === mapping.entity {
                        guard let column = mapping.toOneColumns[relationship.relationshipSlot],
                              let targets = linkTargets(of: relationship.destinationEntity) else { continue }
                        let entityColumn = mapping.toOneEntityColumns[relationship.relationshipSlot].map { ", \($0) = NULL" } ?? ""
                        try connection.execute("UPDATE \(table.name) SET \(column) = NULL\(entityColumn) WHERE \(column) IS NOT NULL AND \(column) NOT IN (\(targets))")
                    }
                }
            }
            for (id, join) in destination.joinTables {
                guard let relationship = relationship(identifiedBy: id) else { continue }
                for (column, entity) in [(join.destinationColumn, relationship.destinationEntity), (join.sourceColumn, relationship.entity)] {
                    guard let targets = linkTargets(of: entity) else { continue }
                    try connection.execute("DELETE FROM \(join.name) WHERE \(column) NOT IN (\(targets))")
                }
            }
        }

        /// The keys a link to `entity` may hold after the migration, as a sub-select; nil when
        /// every old link still fits.
        private func linkTargets(of entity: NSEntityDescription?) -> String? {
            guard let entity, let mapping = destination.mapping(for: entity) else { return nil }
            let lostRows = tablesWithRemovedRows.contains(mapping.table.name)
            let oldSubtree = migration.sourceEntity(for: entity).flatMap { source.mapping(for: $0)?.subtreeNumbers } ?? []
            guard lostRows || !Set(oldSubtree).isSubset(of: Set(mapping.subtreeNumbers)) else { return nil }
            let filter = entity.superentity == nil ? "" : " WHERE \(mapping.subtreeCondition(on: "Z_ENT"))"
            return "SELECT Z_PK FROM \(mapping.table.name)\(filter)"
        }

        /// The new model's indexes and uniqueness constraints; rows that break a new
        /// constraint are 134111. A table kept in place keeps each index it has already that
        /// covers the same columns under the same name, and loses the others; its uniqueness
        /// constraints are made anew (their scope follows the entities' numbers, which a
        /// name does not show).
        func createIndexesAndConstraints() throws {
            let statements = PostgresSchemaDefinition.indexAndConstraintStatements(for: destination)
            var wantedIndexes: [String: String] = [:]
            for statement in statements where statement.hasPrefix("CREATE INDEX") {
                if let name = Self.createdName(statement) { wantedIndexes[name] = Self.columnList(of: statement) }
            }
            var kept: Set<String> = []
            for table in keptInPlace.sorted() {
                let constraints = try connection.query("""
                    SELECT conname FROM pg_constraint WHERE conrelid = to_regclass(?) AND contype = 'x'
                    """, [.text(table)]).rows.compactMap { $0.first?.stringValue }
                for name in constraints { try connection.execute("ALTER TABLE \(table) DROP CONSTRAINT \(name)") }
                // Indexes of their own (not a key's or a constraint's), with their definitions.
                let indexes = try connection.query("""
                    SELECT i.relname, pg_get_indexdef(x.indexrelid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                    WHERE x.indrelid = to_regclass(?) AND NOT x.indisprimary
                    AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
                    """, [.text(table)]).rows
                for row in indexes {
                    guard let name = row[0].stringValue else { continue }
                    if let columns = wantedIndexes[name.lowercased()], columns == row[1].stringValue.map(Self.columnList) {
                        kept.insert(name.lowercased())
                    } else {
                        try connection.execute("DROP INDEX \(name)")
                    }
                }
            }
            for statement in statements where !(Self.createdName(statement).map(kept.contains) ?? false) {
                do {
                    try connection.execute(statement)
                } catch let error as PostgresError where error.sqlState == "23P01" || error.isUniqueViolation {
                    var info: [String: Any] = [:]
                    if let url = migration.url { info[NSURLErrorKey] = url }
                    throw CoreDataError.make(.migrationConstraintViolation,
                                             "The rows of the store in \(migration.place) break a uniqueness constraint of the new model: \(error.message)", info)
                }
            }
        }

        /// The columns an index covers, as `CREATE INDEX … ON table (…)` or PostgreSQL's own
        /// definition (`… USING btree (…)`) spell them: lower case, without spaces.
        private static func columnList(of definition: String) -> String {
            guard let open = definition.firstIndex(of: "(") else { return "" }
            return String(definition[open...]).lowercased().filter { !$0.isWhitespace }
        }

        /// The name an index or constraint statement creates, as PostgreSQL keeps it (lower case).
        private static func createdName(_ statement: String) -> String? {
            let words = statement.split(separator: " ")
            if let index = words.firstIndex(of: "INDEX"), index + 1 < words.count { return words[index + 1].lowercased() }
            if let index = words.firstIndex(of: "CONSTRAINT"), index + 1 < words.count { return words[index + 1].lowercased() }
            return nil
        }
    }

    /// Where one destination column takes its value: a SQL expression over the source row.
    fileprivate struct ColumnSource {
        let column: String
        let expression: String
        var arguments: [SQLValue] = []
        /// The value of every row when it reads nothing of the source row (a default, or NULL).
        var constant: SQLValue? = nil
    }
}
