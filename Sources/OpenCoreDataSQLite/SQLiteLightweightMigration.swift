import Foundation
import OCDSQLite
import OpenCoreDataCore

/// Migrates a SQLite store in place to a newer model, by an inferred mapping, in SQL and in one
/// transaction: a kill at any moment leaves the old store or the new one.
///
/// Entities keep their `Z_ENT` (new ones are numbered after the highest), so rows, `Z<n>_`
/// columns and join tables keep their keys. A table whose change is only new columns gets them
/// by `ALTER TABLE … ADD COLUMN`, which reads no row; any other change rebuilds the table into
/// a new one with `INSERT … SELECT` and renames it into place. Indexes follow the new model;
/// `Z_PRIMARYKEY`, the metadata (version hashes and checksum) and the model cache
/// (`Z_MODELCACHE`) are rewritten for the new model. Triggers are set aside while
/// the tables change, and recreated where they still compile against the new tables.
struct SQLiteLightweightMigration {
    let connection: SQLiteConnection
    /// The store's layout under the model it was written with.
    let source: SQLiteSchema
    let destinationModel: NSManagedObjectModel
    /// The entities the destination store holds (the store's configuration, with sub-entities).
    let destinationEntities: [NSEntityDescription]
    let mapping: NSMappingModel
    /// The store's `Z_PRIMARYKEY`: entity name → `Z_ENT`.
    let storedNumbers: [String: Int64]
    let url: URL?
    /// Told how far the migration is (one unit per table, and one each for the indexes and the
    /// metadata) and which entity's table it works on; cancelling it stops the migration.
    var progress: Progress?
    /// The destination model's cache content, archived while the tables change (the
    /// prefetch's store work); nil: archived when it is written.
    var prefetch: MigrationPrefetch?
    /// A layout of the destination entities made already (the store's, compared with the
    /// destination model before it migrated), taken when its numbers are the migration's.
    var laidOut: SQLiteSchema?
    /// Leaves dropping the tables of removed entities and the columns of removed attributes to
    /// later (`NSPersistentStoreDeferredLightweightMigrationOptionKey`, `SQLiteDeferredCleanup`).
    var defersCleanup = false

    /// Runs the migration and returns the store's new metadata (already written). A cancelled
    /// `progress` stops it between steps or in the middle of a statement (134120), and the
    /// transaction leaves the store as it was.
    /// `verify` sees the new metadata and the destination layout before the commit, and stops
    /// the migration by throwing.
    func run(metadata: [String: Any], uuid: String, verify: ([String: Any], SQLiteSchema) throws -> Void) throws -> [String: Any] {
        if let progress { connection.setProgressHandler(every: 10_000) { progress.isCancelled } }
        defer { connection.setProgressHandler(every: 0, nil) }
        do {
            return try connection.transaction {
                let (migrated, destination) = try migrate(metadata: metadata, uuid: uuid)
                try verify(migrated, destination)
                return migrated
            }
        } catch let error as SQLiteError where error.primaryCode == 9 /* SQLITE_INTERRUPT */ && progress?.isCancelled == true {
            throw cancellationError()
        }
    }

    private func migrate(metadata: [String: Any], uuid: String) throws -> (metadata: [String: Any], destination: SQLiteSchema) {
        do {  // one block, as the transaction's body it is
            let numbers = destinationNumbers()
            let destination = laidOut.flatMap { $0.isLayout(of: destinationEntities, storedNumbers: numbers) ? $0 : nil }
                ?? SQLiteSchema(entities: destinationEntities, storedNumbers: numbers)
            progress?.totalUnitCount = Int64(destination.tables.count + destination.distinctJoinTables.count + 2)
            var step = Step(migration: self, destination: destination)
            try step.setTriggersAside()
            // Cleanup an earlier migration deferred goes first: a column it left may be added
            // again, or a table it left be needed under its name.
            for task in SQLiteDeferredCleanup.pending(in: metadata) { try task.run(on: connection) }
            try step.migrateTables()
            try step.migrateJoinTables()
            try step.deleteRowsLeft()
            try step.dropUnusedTables()
            try step.renameRebuiltTables()
            try step.checkRequiredValues()
            try step.removeDanglingReferences()
            try step.migrateIndexes()
            try step.recreateTriggers()
            try advance(working: nil)
            try rewritePrimaryKeyTable(for: destination)
            var updated = metadata
            // A destination built in code has no model file: the source's versions go.
            updated[StoreMetadataKey.modelFileVersions] = nil
            updated[StoreMetadataKey.modelFileVersion] = nil
            for (key, value) in destinationModel.versionMetadata(for: destination.orderedEntities) { updated[key] = value }
            updated = SQLiteDeferredCleanup.metadata(updated, pending: step.deferred)
            try SQLiteMetadataTable.write(updated, uuid: uuid, on: connection, url: url)
            let content = prefetch.map { $0.storeWork() } ?? StoreModelCache.content(for: destinationModel)
            try StoreModelCache.write(content: content, on: connection)
            try advance(working: nil)
            return (updated, destination)
        }
    }

    // MARK: Progress

    /// Counts the step just done, names the entity of the next one, and stops when cancelled.
    func advance(working entity: String?) throws {
        guard let progress else { return }
        if progress.isCancelled { throw cancellationError() }
        progress.completedUnitCount = min(progress.completedUnitCount + 1, progress.totalUnitCount)
        progress.setUserInfoObject(entity, forKey: .migrationEntityName)
    }

    /// Marks the start of the work on `entity`'s table, and stops when cancelled.
    func begin(working entity: String?) throws {
        guard let progress else { return }
        if progress.isCancelled { throw cancellationError() }
        progress.setUserInfoObject(entity, forKey: .migrationEntityName)
    }

    func cancellationError() -> CocoaError {
        var info: [String: Any] = [:]
        if let url { info[NSURLErrorKey] = url }
        return CoreDataError.make(.migrationCancelled, "The migration of \(url?.path ?? "the store") was cancelled; the store is as it was", info)
    }

    // MARK: Entities

    /// The source entity each destination entity is a version of, by destination name.
    func sourceEntity(for entity: NSEntityDescription) -> NSEntityDescription? {
        guard let name = entity.name, let entityMapping = mapping.entityMapping(forDestination: name),
              entityMapping.mappingType != .addEntityMappingType,
              let sourceName = entityMapping.sourceEntityName else { return nil }
        return source.orderedEntities.first { $0.name == sourceName }
    }

    /// Whether a destination entity is a version of the source entity `entity`.
    func isMapped(_ entity: NSEntityDescription) -> Bool {
        mapping.entityMappings.contains { $0.sourceEntityName == entity.name && $0.mappingType != .removeEntityMappingType }
    }

    /// Destination `Z_ENT`s: an entity keeps its source number; a new one gets the next free.
    private func destinationNumbers() -> [String: Int64] {
        var numbers: [String: Int64] = [:]
        var next = max(storedNumbers.values.max() ?? 0,
                       source.orderedEntities.compactMap { source.mapping(for: $0)?.number }.max() ?? 0) + 1
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
        var rows: [Int64: (name: String?, superNumber: Int64, max: Int64)] = [:]
        for row in try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY") {
            if let number = row[0].int64Value { rows[number] = (row[1].stringValue, row[2].int64Value ?? 0, row[3].int64Value ?? 0) }
        }
        var kept = Set<Int64>()
        for entity in destination.orderedEntities {
            guard let number = destination.mapping(for: entity)?.number else { continue }
            kept.insert(number)
            let superNumber = entity.superentity.flatMap { destination.mapping(for: $0)?.number } ?? 0
            if let row = rows[number], row.name == entity.name, row.superNumber == superNumber { continue }
            if rows[number] != nil {
                try connection.run("UPDATE Z_PRIMARYKEY SET Z_NAME = ?, Z_SUPER = ? WHERE Z_ENT = ?",
                                   [.text(entity.name ?? ""), .integer(superNumber), .integer(number)])
            } else {
                try connection.run("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                                   [.integer(number), .text(entity.name ?? ""), .integer(superNumber)])
            }
        }
        for entity in source.orderedEntities {
            guard let number = source.mapping(for: entity)?.number, !kept.contains(number) else { continue }
            try connection.run("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)])
        }
        try continueKeys(of: destination, from: rows.mapValues(\.max))
    }

    /// Keys are handed out from the root's `Z_MAX`. A tree whose objects got their keys under
    /// another root (a new root over a tree, a sub-entity that left its tree) continues after
    /// that root's last key and after every key its table holds, so no key is handed out twice.
    private func continueKeys(of destination: SQLiteSchema, from lastKeys: [Int64: Int64]) throws {
        for table in destination.tables {
            guard let number = destination.mapping(for: table.root)?.number else { continue }
            let sourceRoots = Set(table.entities.compactMap { sourceEntity(for: $0.entity)?.rootEntity }
                .compactMap { source.mapping(for: $0)?.number })
            guard !sourceRoots.isEmpty, sourceRoots != [number] else { continue }
            let last = sourceRoots.compactMap { lastKeys[$0] }.max() ?? 0
            try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = max(?, ifnull((SELECT max(Z_PK) FROM \(table.name)), 0)) WHERE Z_ENT = ?",
                               [.integer(last), .integer(number)])
        }
    }
}

extension SQLiteLightweightMigration {
    /// The migration's work on the tables, and what it has done so far.
    fileprivate struct Step {
        let migration: SQLiteLightweightMigration
        let destination: SQLiteSchema
        var connection: SQLiteConnection { migration.connection }
        var source: SQLiteSchema { migration.source }

        /// Source tables (entity and join tables) the destination still uses under their name.
        var keptTables: Set<String> = []
        /// Tables built under a temporary name: temporary name → final name.
        var rebuilt: [(temporary: String, final: String)] = []
        /// Entity tables that lost rows (of removed entities, or moved to another table):
        /// references to them are checked.
        var tablesWithRemovedRows: Set<String> = []
        /// Tables kept in place whose rows of some entities go (removed, or moved to another
        /// table): deleted once every destination table has its rows.
        var rowsToDelete: [(table: String, numbers: [Int64])] = []
        /// Each source table (entity or join table, by upper-cased name) carried over, and the
        /// destination table its rows are now in.
        var carriedTables: [String: String] = [:]
        /// Triggers of the tables dropped or rebuilt, to recreate: (name, SQL).
        var droppedTriggers: [(name: String, table: String, sql: String)] = []
        /// What is left for later when the migration defers its cleanup.
        var deferred: [SQLiteDeferredCleanup] = []
        /// Required attributes that may have been left without a value: (column, entity, name).
        var requiredChecks: [(column: String, owner: SQLiteSchema.EntityMapping, name: String)] = []

        init(migration: SQLiteLightweightMigration, destination: SQLiteSchema) {
            self.migration = migration
            self.destination = destination
        }

        // MARK: Entity tables

        mutating func migrateTables() throws {
            for table in destination.tables {
                try migration.begin(working: table.root.name)
                defer { try? migration.advance(working: nil) }
                let sources = Set(table.entities.compactMap { migration.sourceEntity(for: $0.entity) }
                    .compactMap { source.mapping(for: $0)?.table.name })
                guard let sourceName = sources.first else {
                    let destination = destination
                    try create(table.name) { destination.createStatement(for: table, named: $0) }
                    continue
                }
                guard sources.count == 1, let sourceTable = source.tables.first(where: { $0.name == sourceName }) else {
                    throw migrationError("entity '\(table.root.name ?? "")' would gather rows of several tables (\(sources.sorted().joined(separator: ", "))), which a lightweight migration does not do",
                                         entity: table.root.name)
                }
                try migrate(sourceTable, into: table)
            }
        }

        /// Rows leave a table kept in place only once every table they move to has its copy, and
        /// the join tables have read the keys they held (a to-one that became a many-to-many).
        func deleteRowsLeft() throws {
            for (table, numbers) in rowsToDelete {
                try connection.execute("DELETE FROM \(table) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))")
            }
        }

        /// Carries the rows of `sourceTable` that `table` keeps into it. A source table may feed
        /// several destination tables (a sub-entity moved out of its tree takes its rows to a
        /// table of its own); each keeps the rows of its entities, keys unchanged.
        private mutating func migrate(_ sourceTable: SQLiteSchema.TableMapping, into table: SQLiteSchema.TableMapping) throws {
            let kept = Set(table.entities.compactMap { mapping in migration.sourceEntity(for: mapping.entity).flatMap { source.mapping(for: $0)?.number } })
            let left = sourceTable.entities.map(\.number).filter { !kept.contains($0) }
            if let lost = sourceTable.entities.first(where: { !kept.contains($0.number) && migration.isMapped($0.entity) && !destinationKeeps($0.entity) }) {
                throw migrationError("the rows of entity '\(lost.entity.name ?? "")' would have no table in the new store, which a lightweight migration does not do",
                                     entity: lost.entity.name)
            }
            // Triggers follow the rows of the source table's root.
            if carriedTables[sourceTable.name.uppercased()] == nil || kept.contains(source.mapping(for: sourceTable.root)?.number ?? -1) {
                carriedTables[sourceTable.name.uppercased()] = table.name
            }
            let plan = try columnPlan(for: table, from: sourceTable)
            let sourceColumns = Set(sourceTable.columns.map(\.name))
            let removed = sourceColumns.subtracting(plan.filter(\.isIdentity).map(\.column))
            let onlyAdds = sourceTable.name == table.name
                && plan.allSatisfy { $0.isIdentity || $0.isConstant }
                && (removed.isEmpty || canDeferDropping(removed, of: sourceTable.name))
                && Set(plan.filter { !$0.isIdentity }.map(\.column)).isDisjoint(with: sourceColumns)
            if onlyAdds {
                keptTables.insert(table.name)
                deferred += removed.sorted().map { .dropColumn(table: table.name, column: $0) }
                try addColumns(plan.filter { !$0.isIdentity }, to: table)
                if !left.isEmpty { rowsToDelete.append((table.name, left)) }
            } else {
                try rebuild(table, from: sourceTable, plan: plan, keeping: kept)
            }
            // Links into the table may point at rows it did not keep (removed, or moved to
            // another tree's table): they are checked once every row is in place.
            if !left.isEmpty { tablesWithRemovedRows.insert(table.name) }
        }

        /// Whether the columns of removed attributes can stay in their table until a deferred
        /// cleanup drops them: when the migration defers, SQLite drops columns in place, and no
        /// trigger of the table names them (a trigger recreated with the column still there
        /// would stop the drop).
        private func canDeferDropping(_ columns: Set<String>, of table: String) -> Bool {
            guard migration.defersCleanup, SQLiteDeferredCleanup.dropsColumns else { return false }
            return !columns.contains(where: isNamedByATrigger)
        }

        /// Whether the body of some trigger of the store (of any table: Core Data's derived
        /// attributes put a parent's triggers on the child's table) names `name`, a table or
        /// column: such a trigger is recreated while the name is still there, and would then stop
        /// it from being dropped, or fail once it is.
        private func isNamedByATrigger(_ name: String) -> Bool {
            let name = name.uppercased()
            return droppedTriggers.contains { $0.sql.uppercased().contains(name) }
        }

        /// Whether some destination table keeps the rows of the source entity `entity`.
        private func destinationKeeps(_ entity: NSEntityDescription) -> Bool {
            destination.orderedEntities.contains { migration.sourceEntity(for: $0) === entity && destination.mapping(for: $0) != nil }
        }

        private func addColumns(_ added: [ColumnSource], to table: SQLiteSchema.TableMapping) throws {
            for column in added {
                let type = table.columns.first { $0.name == column.column }?.type ?? "BLOB"
                try connection.execute("ALTER TABLE \(table.name) ADD COLUMN \(column.column) \(type)")
            }
            let valued = added.filter { $0.expression != "NULL" }
            guard !valued.isEmpty else { return }
            let assignments = valued.map { "\($0.column) = \($0.expression)" }.joined(separator: ", ")
            try connection.run("UPDATE \(table.name) SET \(assignments)", valued.flatMap(\.arguments))
        }

        private mutating func rebuild(_ table: SQLiteSchema.TableMapping, from sourceTable: SQLiteSchema.TableMapping,
                                      plan: [ColumnSource], keeping kept: Set<Int64>) throws {
            let temporary = "ZOCD_MIGRATING_\(rebuilt.count)"
            try connection.execute(destination.createStatement(for: table, named: temporary))
            let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + plan.map(\.column)
            let values = ["Z_PK", "Z_ENT", "Z_OPT"] + plan.map(\.expression)
            let filter = kept.isEmpty ? "0" : "Z_ENT IN (\(kept.sorted().map(String.init).joined(separator: ", ")))"
            try copyRows(into: temporary, columns: columns, values: values, arguments: plan.flatMap(\.arguments),
                         from: sourceTable.name, where: filter, entity: table.root.name)
            rebuilt.append((temporary, table.name))
        }

        /// Creates a new table: under its name, or under a temporary one while a source table
        /// that is going away still has that name.
        private mutating func create(_ name: String, statement: (String) -> String) throws {
            if try connection.tableExists(name) {
                let temporary = "ZOCD_MIGRATING_\(rebuilt.count)"
                try connection.execute(statement(temporary))
                rebuilt.append((temporary, name))
            } else {
                try connection.execute(statement(name))
            }
        }

        private func copyRows(into target: String, columns: [String], values: [String], arguments: [SQLiteValue],
                              from sourceName: String, where filter: String, entity: String?) throws {
            do {
                try connection.run("INSERT INTO \(target) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(sourceName) WHERE \(filter)",
                                   arguments)
            } catch let error as SQLiteError where error.primaryCode != 9 /* SQLITE_INTERRUPT: cancelled */ {
                throw migrationError("copying the rows of \(sourceName) failed: \(error)", entity: entity)
            }
        }

        /// Where each column of `table` (after `Z_PK`, `Z_ENT`, `Z_OPT`) takes its value from.
        /// Each entity of the table finds its own source (a property moved up the inheritance
        /// tree has one source per sub-entity); where they differ, the value is chosen by `Z_ENT`.
        private mutating func columnPlan(for table: SQLiteSchema.TableMapping, from sourceTable: SQLiteSchema.TableMapping) throws -> [ColumnSource] {
            var sources: [String: [(number: Int64, source: ColumnSource)]] = [:]
            for mapping in table.entities {
                let layout = mapping.entity.layout
                for attribute in layout.attributes where !attribute.isTransient {
                    guard let column = mapping.attributeColumns[attribute.attributeSlot] else { continue }
                    let source = try attributeSource(attribute, column: column, of: mapping, from: sourceTable)
                    sources[column, default: []].append((mapping.number, source))
                }
                for relationship in layout.relationships {
                    guard let column = mapping.toOneColumns[relationship.relationshipSlot] else { continue }
                    let (key, entityColumn) = try toOneSources(relationship, of: mapping.entity, in: sourceTable)
                    sources[column, default: []].append((mapping.number, ColumnSource(column: column, expression: key ?? "NULL")))
                    if let destinationEntityColumn = mapping.toOneEntityColumns[relationship.relationshipSlot] {
                        let value = entityColumn ?? key.map { key in
                            "CASE WHEN \(key) IS NULL THEN NULL ELSE \(destinationNumber(ofTargetOf: relationship)) END"
                        } ?? "NULL"
                        sources[destinationEntityColumn, default: []].append((mapping.number, ColumnSource(column: destinationEntityColumn, expression: value)))
                    }
                }
            }
            var plan: [String: ColumnSource] = [:]
            for (column, entries) in sources { plan[column] = Self.combine(entries, column: column, allEntities: table.entities.count) }
            for (id, column) in table.orderColumns where plan[column] == nil {
                // A relationship that becomes ordered is ordered by key.
                plan[column] = ColumnSource(column: column, expression: try sourceOrderColumn(forDestinationRelationship: id, in: sourceTable) ?? "Z_PK")
            }
            return table.columns.compactMap { plan[$0.name] }
        }

        /// One column's value from its entities' sources: the common one, or one per `Z_ENT`.
        /// Rows of entities without the column get NULL, unless the value is a plain copy (their
        /// source rows hold NULL there already).
        private static func combine(_ entries: [(number: Int64, source: ColumnSource)], column: String, allEntities: Int) -> ColumnSource {
            let first = entries[0].source
            let same = entries.allSatisfy { $0.source.expression == first.expression && $0.source.arguments == first.arguments }
            // A plain copy may stand for every row when only these entities' rows held values in
            // the source column (an attribute moved down the tree leaves others' values behind).
            let numbers = Set(entries.map(\.number))
            let copyFitsEveryRow = first.isIdentity && (first.sourceRows.map { $0.isSubset(of: numbers) } ?? true)
            if same && (entries.count == allEntities || copyFitsEveryRow || first.expression == "NULL") { return first }
            if same {
                let numbers = entries.map { String($0.number) }.joined(separator: ", ")
                return ColumnSource(column: column, expression: "CASE WHEN Z_ENT IN (\(numbers)) THEN \(first.expression) END",
                                    arguments: first.arguments, isIdentity: false)
            }
            let cases = entries.map { "WHEN \($0.number) THEN \($0.source.expression)" }.joined(separator: " ")
            return ColumnSource(column: column, expression: "CASE Z_ENT \(cases) END", arguments: entries.flatMap(\.source.arguments), isIdentity: false)
        }

        /// Where an attribute of one entity of the table takes its value: its source attribute's
        /// column (converted to the new type), its default where it is new or was optional and is
        /// now required, or nothing. A required attribute left without a value is checked once
        /// the rows are in place (`checkRequiredValues`).
        private mutating func attributeSource(_ attribute: NSAttributeDescription, column: String, of owner: SQLiteSchema.EntityMapping,
                                              from sourceTable: SQLiteSchema.TableMapping) throws -> ColumnSource {
            let defaultValue = try defaultValue(of: attribute)
            guard let old = sourceProperty(of: attribute, in: owner.entity) as? NSAttributeDescription else {
                if !attribute.isOptional && defaultValue == nil { requiredChecks.append((column, owner, attribute.name)) }
                return defaultValue.map { ColumnSource(column: column, expression: "?", arguments: [$0]) } ?? ColumnSource(column: column, expression: "NULL")
            }
            guard let oldOwner = old.entity.flatMap({ source.mapping(for: $0) }), oldOwner.table === sourceTable,
                  let oldColumn = oldOwner.attributeColumns[old.attributeSlot] else {
                throw migrationError("attribute '\(attribute.name)' of entity '\(owner.entity.name ?? "")' comes from another table, which a lightweight migration does not do yet",
                                     entity: owner.entity.name)
            }
            var expression = Self.converting(oldColumn, from: old.attributeType, to: attribute.attributeType)
            // A column of an attribute that allows external storage carries a marker byte.
            if old.storesDataExternally && !attribute.storesDataExternally {
                expression = "ocd_external_data_value(\(expression), '\(oldColumn)')"
            } else if !old.storesDataExternally && attribute.storesDataExternally {
                expression = "ocd_external_data_inline(\(expression))"
            }
            var copy = ColumnSource(column: column, expression: expression)
            copy.sourceRows = Set(oldOwner.subtreeNumbers)
            guard !attribute.isOptional && old.isOptional else { return copy }
            guard let defaultValue else {
                requiredChecks.append((column, owner, attribute.name))
                return copy
            }
            return ColumnSource(column: column, expression: "COALESCE(\(expression), ?)", arguments: [defaultValue])
        }

        /// After the rows are copied: a required attribute that is new, or was optional, and has
        /// no default must have a value in every row, as Core Data's migration requires (134110,
        /// naming the entity and the attribute).
        func checkRequiredValues() throws {
            for (column, owner, name) in requiredChecks {
                let missing = try connection.scalar("SELECT count(*) FROM \(owner.table.name) WHERE \(column) IS NULL AND Z_ENT = \(owner.number)").int64Value ?? 0
                guard missing > 0 else { continue }
                var info: [String: Any] = ["NSEntityNameKey": owner.entity.name ?? "", NSValidationKeyErrorKey: name]
                if let url = migration.url { info[NSURLErrorKey] = url }
                throw CoreDataError.make(.migration,
                                         "The store \(migration.url?.path ?? "") could not be migrated: \(missing) object(s) of entity '\(owner.entity.name ?? "")' have no value for the required attribute '\(name)', which has no default value",
                                         info)
            }
        }

        /// The stored value of an attribute's default, if it has one.
        private func defaultValue(of attribute: NSAttributeDescription) throws -> SQLiteValue? {
            guard let value = attribute.defaultValue,
                  let primitive = try? PrimitiveValue(value, for: attribute.attributeType), primitive != .null else { return nil }
            if attribute.storesDataExternally, case .data(let data) = primitive { return .blob(ExternalDataColumn.inline(data)) }
            return try SQLiteValueCoding.sqliteValue(primitive, of: attribute)
        }

        /// `column` as a value of `new` type.
        private static func converting(_ column: String, from old: NSAttributeType, to new: NSAttributeType) -> String {
            let (oldType, newType) = (SQLiteSchema.sqlType(of: old), SQLiteSchema.sqlType(of: new))
            if new == .booleanAttributeType && old != .booleanAttributeType {
                return "CASE WHEN \(column) IS NULL THEN NULL WHEN \(column) <> 0 THEN 1 ELSE 0 END"
            }
            if oldType == newType { return column }
            switch newType {
            case "INTEGER": return "CAST(\(column) AS INTEGER)"
            case "FLOAT", "DECIMAL": return "CAST(\(column) AS REAL)"
            default: return column
            }
        }

        /// The source property that `property` of the destination entity `entity` (which
        /// declares or inherits it) is a version of, by `entity`'s own mapping.
        private func sourceProperty(of property: NSPropertyDescription, in entity: NSEntityDescription) -> NSPropertyDescription? {
            guard let sourceEntity = migration.sourceEntity(for: entity),
                  let entityMapping = migration.mapping.entityMapping(forDestination: entity.name ?? "") else { return nil }
            let propertyMapping = property is NSRelationshipDescription
                ? entityMapping.relationshipMapping(named: property.name) : entityMapping.attributeMapping(named: property.name)
            guard let name = propertyMapping?.sourcePropertyName else { return nil }
            return sourceEntity.propertiesByName[name]
        }

        /// The source property of a relationship by the mapping of the entity that declares it,
        /// or of its sub-entities (a relationship moved up the tree). Links kept apart by several
        /// sub-entities' relationships would have to be gathered: not done yet (134110).
        private func sourceProperty(of property: NSPropertyDescription) throws -> NSPropertyDescription? {
            guard let entity = property.entity else { return nil }
            var found: [NSPropertyDescription] = []
            for candidate in entity.selfAndDescendants.compactMap({ self.sourceProperty(of: property, in: $0) })
            where !found.contains(where: { $0 === candidate }) {
                found.append(candidate)
            }
            guard found.count <= 1 else {
                throw migrationError("relationship '\(property.name)' of entity '\(entity.name ?? "")' would gather the links of several relationships (\(found.map { "\($0.entity?.name ?? "").\($0.name)" }.joined(separator: ", "))), which a lightweight migration does not do yet",
                                     entity: entity.name)
            }
            return found.first
        }

        /// The source columns of a to-one relationship of `entity`: its key and, if it has one,
        /// its entity column. A new to-one that is the inverse of a to-many whose old inverse was
        /// another to-one takes that one's: the to-many keeps its links through its new inverse.
        private func toOneSources(_ relationship: NSRelationshipDescription, of entity: NSEntityDescription,
                                  in sourceTable: SQLiteSchema.TableMapping) throws -> (String?, String?) {
            var previous = sourceProperty(of: relationship, in: entity) as? NSRelationshipDescription
            if previous == nil, let inverse = relationship.inverseRelationship, inverse.isToMany,
               let oldInverse = try sourceProperty(of: inverse) as? NSRelationshipDescription, oldInverse.isToMany {
                previous = oldInverse.inverseRelationship
            }
            guard let old = previous, !old.isToMany else { return (nil, nil) }
            guard let owner = old.entity.flatMap({ source.mapping(for: $0) }), owner.table === sourceTable else {
                throw migrationError("relationship '\(relationship.name)' of entity '\(entity.name ?? "")' comes from another table, which a lightweight migration does not do yet",
                                     entity: entity.name)
            }
            return (owner.toOneColumns[old.relationshipSlot], owner.toOneEntityColumns[old.relationshipSlot])
        }

        /// The destination `Z_ENT` of the only entity a relationship without an entity column
        /// in the source could lead to.
        private func destinationNumber(ofTargetOf relationship: NSRelationshipDescription) -> Int64 {
            relationship.destinationEntity.flatMap { destination.mapping(for: $0)?.number } ?? 0
        }

        private func sourceOrderColumn(forDestinationRelationship id: ObjectIdentifier, in sourceTable: SQLiteSchema.TableMapping) throws -> String? {
            guard let relationship = destination.orderedEntities.lazy.flatMap(\.properties).first(where: { ObjectIdentifier($0) == id }),
                  let old = try sourceProperty(of: relationship) else { return nil }
            return sourceTable.orderColumns[ObjectIdentifier(old)]
        }

        // MARK: Join tables

        mutating func migrateJoinTables() throws {
            for join in destination.distinctJoinTables {
                try migration.begin(working: nil)
                defer { try? migration.advance(working: nil) }
                let sides = destination.joinTables.filter { $0.value.name == join.name }
                    .compactMap { id, side in relationship(identifiedBy: id, in: destination).map { ($0, side) } }
                    .sorted { $0.0.name < $1.0.name }
                let columns = [join.sourceColumn, join.destinationColumn] + destination.orderColumns(of: join)
                if let (sourceJoin, columnSources) = try sourceJoinTable(for: sides) {
                    let oldColumns = [sourceJoin.sourceColumn, sourceJoin.destinationColumn] + source.orderColumns(of: sourceJoin)
                    if sourceJoin.name == join.name && columns.allSatisfy({ columnSources[$0] == $0 }) && Set(oldColumns) == Set(columns) {
                        keptTables.insert(join.name)
                        carriedTables[join.name.uppercased()] = join.name
                        continue
                    }
                    // A source join table kept in place keeps its triggers; another one filled
                    // from it does not take them.
                    if carriedTables[sourceJoin.name.uppercased()] == nil { carriedTables[sourceJoin.name.uppercased()] = join.name }
                    try fill(join, columns: columns, values: columns.map { columnSources[$0] ?? "NULL" }, from: sourceJoin.name, where: "1")
                } else if let (table, filter, columnSources) = try sourceForeignKey(for: sides) {
                    // A one-to-many became a many-to-many: its key column fills the join table.
                    try fill(join, columns: columns, values: columns.map { columnSources[$0] ?? "NULL" }, from: table, where: filter)
                } else {
                    let destination = destination
                    try create(join.name) { destination.createStatement(for: join, named: $0) }
                }
            }
        }

        /// Creates the join table `join` (under a temporary name) and copies rows into it.
        private mutating func fill(_ join: SQLiteSchema.JoinTable, columns: [String], values: [String], from sourceName: String, where filter: String) throws {
            let temporary = "ZOCD_MIGRATING_\(rebuilt.count)"
            try connection.execute(destination.createStatement(for: join, named: temporary))
            try copyRows(into: temporary, columns: columns, values: values, arguments: [], from: sourceName, where: filter, entity: nil)
            rebuilt.append((temporary, join.name))
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
                if let order = side.orderColumn {
                    // A side that becomes ordered is ordered by key.
                    columnSources[order] = oldJoin.orderColumn ?? oldJoin.destinationColumn
                }
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
                guard let owner = old.entity.flatMap({ source.mapping(for: $0) }),
                      let key = owner.toOneColumns[old.relationshipSlot] else { continue }
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
                throw migrationError("relationship '\(relationship.name)' of entity '\(relationship.entity?.name ?? "")' would gather the links of several relationships (\(found.map { "\($0.0.entity?.name ?? "").\($0.0.name)" }.joined(separator: ", "))), which a lightweight migration does not do yet",
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

        private func relationship(identifiedBy id: ObjectIdentifier, in schema: SQLiteSchema) -> NSRelationshipDescription? {
            schema.orderedEntities.lazy.flatMap(\.properties).first { ObjectIdentifier($0) == id } as? NSRelationshipDescription
        }

        // MARK: Finishing

        /// Drops every source table not kept under its name (the rebuilt ones have their copy).
        mutating func dropUnusedTables() throws {
            let sourceTables = source.tables.map(\.name) + source.distinctJoinTables.map(\.name)
            // A name a new table takes must be free before the rename (`renameRebuiltTables`).
            let reused = Set(rebuilt.map { $0.final.uppercased() })
            for name in sourceTables where !keptTables.contains(name) {
                guard try connection.tableExists(name) else { continue }
                if migration.defersCleanup && !reused.contains(name.uppercased()) && !isNamedByATrigger(name) {
                    // Its indexes go now: they are named after entities, and a table that takes
                    // the entity's rows makes indexes of the same names (`migrateIndexes`).
                    for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                                                   [.text(name)]) {
                        guard let index = row[0].stringValue else { continue }
                        try connection.execute("DROP INDEX " + SQLiteConnection.quotedIdentifier(index))
                    }
                    deferred.append(.dropTable(name))
                } else {
                    try connection.execute("DROP TABLE \(name)")
                }
            }
        }

        func renameRebuiltTables() throws {
            for (temporary, final) in rebuilt {
                try connection.execute("ALTER TABLE \(temporary) RENAME TO \(final)")
            }
        }

        /// After rows of removed entities went, or entities left the subtree a relationship
        /// leads to, no to-one or join row may point at an object that is no longer one of the
        /// relationship's destination entity (or its sub-entities): such links go, as the object
        /// is not one of them any more.
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
                guard let relationship = relationship(identifiedBy: id, in: destination) else { continue }
                // Both sides: a to-many without inverse has no other side to clean its rows.
                let ends = [(join.destinationColumn, relationship.destinationEntity), (join.sourceColumn, relationship.entity)]
                for (column, entity) in ends {
                    guard let targets = linkTargets(of: entity) else { continue }
                    try connection.execute("DELETE FROM \(join.name) WHERE \(column) NOT IN (\(targets))")
                }
            }
        }

        /// The keys a link to `entity` may hold after the migration, as a sub-select; nil when
        /// every old link still fits: its table lost no rows, and no entity left its subtree.
        private func linkTargets(of entity: NSEntityDescription?) -> String? {
            guard let entity, let mapping = destination.mapping(for: entity) else { return nil }
            let lostRows = tablesWithRemovedRows.contains(mapping.table.name)
            let oldSubtree = migration.sourceEntity(for: entity).flatMap { source.mapping(for: $0)?.subtreeNumbers } ?? []
            let leftSubtree = !Set(oldSubtree).isSubset(of: Set(mapping.subtreeNumbers))
            guard lostRows || leftSubtree else { return nil }
            // A root's table holds its subtree only: every row there is one.
            let filter = entity.superentity == nil ? "" : " WHERE \(mapping.subtreeCondition(on: "Z_ENT"))"
            return "SELECT Z_PK FROM \(mapping.table.name)\(filter)"
        }

        /// Drops the indexes the new model does not have (or has otherwise) and creates the ones
        /// missing; a new uniqueness constraint that the rows break is 134111.
        func migrateIndexes() throws {
            let tables = Set(destination.tables.map(\.name) + destination.distinctJoinTables.map(\.name))
            var existing: [String: String] = [:]
            for row in try connection.rows("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
                guard let name = row[0].stringValue, let table = row[1].stringValue, tables.contains(table),
                      let sql = row[2].stringValue else { continue }
                existing[name] = sql
            }
            var wanted: [(name: String, sql: String)] = []
            for statement in destination.indexStatements() {
                guard let name = Self.indexName(in: statement) else { continue }
                wanted.append((name, statement))
            }
            let wantedByName = Dictionary(wanted.map { ($0.name, Self.normalized($0.sql)) }, uniquingKeysWith: { first, _ in first })
            let existingByName = existing.mapValues(Self.normalized)
            for (name, sql) in existingByName where wantedByName[name] != sql {
                try connection.execute("DROP INDEX \(name)")
            }
            for (name, sql) in wanted where existingByName[name] != Self.normalized(sql) {
                do {
                    try connection.execute(sql)
                } catch let error as SQLiteError where sql.hasPrefix("CREATE UNIQUE") && error.primaryCode != 9 /* SQLITE_INTERRUPT: cancelled */ {
                    throw CoreDataError.make(.migrationConstraintViolation,
                                             "The store's rows break the uniqueness constraint \(name) of the new model: \(error)",
                                             migration.url.map { [NSURLErrorKey: $0] } ?? [:])
                }
            }
        }

        /// Drops every trigger of the store, remembering it: a trigger on one table may write to
        /// another that is dropped or rebuilt, and would stop the rename (Core Data's derived
        /// attributes keep such triggers).
        mutating func setTriggersAside() throws {
            let rows = try connection.rows("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL")
            for row in rows {
                guard let name = row[0].stringValue, let table = row[1].stringValue, let sql = row[2].stringValue else { continue }
                droppedTriggers.append((name, table, sql))
                try connection.execute("DROP TRIGGER \(Self.quoted(name))")
            }
        }

        /// Recreates the triggers set aside whose table is still there and that still compile
        /// against the new tables. SQLite checks a trigger's body only when a statement that
        /// fires it is prepared, so each is tried with statements that fire it and change nothing;
        /// one that fails is left out (it read columns or tables the new model no longer has).
        func recreateTriggers() throws {
            let schemaTables = Set((source.tables.map(\.name) + source.distinctJoinTables.map(\.name)).map { $0.uppercased() })
            for (_, original, originalSQL) in droppedTriggers {
                var (table, sql) = (original, originalSQL)
                // A trigger of an entity's table follows the table's rows: to the table they were
                // carried to (renamed with its entity), or nowhere when they were not carried over.
                // A trigger of a table outside the model (history, say) stays where it was.
                if schemaTables.contains(original.uppercased()) {
                    guard let carried = carriedTables[original.uppercased()] else { continue }
                    if carried.uppercased() != original.uppercased() {
                        sql = Self.retargeting(sql, from: original, to: carried)
                        table = carried
                    }
                }
                // Table names are case-insensitive; `tbl_name` keeps the trigger's own spelling.
                guard try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
                                            [.text(table)]).int64Value != 0 else { continue }
                let columns = try connection.columnNames(ofTable: table)
                let assignments = columns.map { "\(Self.quoted($0)) = \(Self.quoted($0))" }.joined(separator: ", ")
                let firing = ["INSERT INTO \(Self.quoted(table)) SELECT * FROM \(Self.quoted(table)) WHERE 0",
                              "UPDATE \(Self.quoted(table)) SET \(assignments) WHERE 0",
                              "DELETE FROM \(Self.quoted(table)) WHERE 0"]
                do {
                    try connection.savepoint {
                        try connection.execute(sql)
                        for statement in firing { _ = try connection.prepare(statement) }
                    }
                } catch let error as SQLiteError where error.primaryCode != 9 /* SQLITE_INTERRUPT: cancelled */ {
                    continue
                }
            }
        }

        /// A trigger's `ON <table>` pointed at `new`; the rest of its text is left as it is (and
        /// checked by compiling it).
        static func retargeting(_ sql: String, from old: String, to new: String) -> String {
            let pattern = "\\bON\\s+[\"`\\[]?" + NSRegularExpression.escapedPattern(for: old) + "[\"`\\]]?(?=\\s|$)"
            guard let expression = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]),
                  let match = expression.firstMatch(in: sql, range: NSRange(sql.startIndex..., in: sql)),
                  let range = Range(match.range, in: sql) else { return sql }
            return sql.replacingCharacters(in: range, with: "ON " + quoted(new))
        }

        static func quoted(_ name: String) -> String { SQLiteConnection.quotedIdentifier(name) }

        static func indexName(in statement: String) -> String? {
            let words = statement.split(separator: " ")
            guard let index = words.firstIndex(of: "INDEX"), index + 1 < words.count else { return nil }
            return String(words[index + 1])
        }

        static func normalized(_ sql: String) -> String {
            // Over the bytes when the statement is ASCII, as the store's own always are: this
            // runs for every index of every migration.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(sql.utf8.count)
            for byte in sql.utf8 {
                switch byte {
                case 0x80...: return sql.uppercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
                case 0x09...0x0D, 0x20: if bytes.last != 0x20 { bytes.append(0x20) }
                case UInt8(ascii: "a")...UInt8(ascii: "z"): bytes.append(byte - 0x20)
                default: bytes.append(byte)
                }
            }
            if bytes.first == 0x20 { bytes.removeFirst() }
            if bytes.last == 0x20 { bytes.removeLast() }
            return String(decoding: bytes, as: UTF8.self)
        }

        private func migrationError(_ reason: String, entity: String?) -> CocoaError {
            var info: [String: Any] = [:]
            if let entity { info["NSEntityNameKey"] = entity }
            if let url = migration.url { info[NSURLErrorKey] = url }
            return CoreDataError.make(.migration, "The store \(migration.url?.path ?? "") could not be migrated: \(reason)", info)
        }
    }

    /// Where one destination column takes its value: a SQL expression over the source row.
    fileprivate struct ColumnSource {
        let column: String
        let expression: String
        var arguments: [SQLiteValue] = []
        /// The source column of the same name, unchanged.
        var isIdentity = false
        /// For a copied attribute: the `Z_ENT`s whose source rows may hold values in its column.
        var sourceRows: Set<Int64>?

        init(column: String, expression: String, arguments: [SQLiteValue] = [], isIdentity: Bool? = nil) {
            self.column = column
            self.expression = expression
            self.arguments = arguments
            self.isIdentity = isIdentity ?? (expression == column)
        }

        /// A value that reads nothing of the source row.
        var isConstant: Bool { expression == "NULL" || expression == "?" }
    }
}
