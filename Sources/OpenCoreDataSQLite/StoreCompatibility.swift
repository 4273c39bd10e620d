import Foundation
import OCDSQLite
import OpenCoreDataCore

/// Compares an existing store file with the model, and says what differs.
///
/// First as Core Data does, by entity version hashes: an entity whose hash in the store's
/// `NSStoreModelVersionHashes` differs from the model's is a difference, named by entity. Where
/// OpenCoreData's hash is not known to be Apple's (`NSEntityDescription.hasExactVersionHash`),
/// and for stores without hashes, it compares structure: the same entities (`Z_PRIMARYKEY`),
/// and a table with a column for every persistent attribute and to-one relationship. The
/// structural comparison also runs after the hashes agree, so that a mapping mistake can never
/// read the wrong columns.
///
/// The comparison only looks: it changes neither the store nor the schema. Where Core Data's
/// naming is known from a single store only (which side names a many-to-many's join table, the
/// digit of a `Z<n>_<RELATIONSHIP>` entity column), it reports the store's own name as an
/// adoption, which the caller applies to `schema` so that it reads the file as its writer laid
/// it out.
struct StoreCompatibility {
    let schema: SQLiteSchema
    /// The store's entity numbers and the columns of its tables.
    let tables: StoreTablesSnapshot
    let connection: SQLiteConnection
    let url: URL?

    /// Every difference between the store and the model, and the store's own names to adopt;
    /// `comparingHashes` false leaves the version hashes out (the tables must still fit).
    func compare(metadata: [String: Any], comparingHashes: Bool = true) throws -> StoreComparison {
        var comparison = StoreComparison()
        if comparingHashes { comparison += versionHashDifferences(in: metadata) }
        try compareStructure(into: &comparison)
        comparison += externalStorageDifferences(in: metadata)
        return comparison
    }

    /// The attributes that allow external storage in the model but not in the store, or the
    /// other way round: their columns are written differently (`ExternalDataColumn`), and
    /// neither the version hashes (not known to be Apple's for such entities) nor the columns
    /// tell. The model the store keeps (`Z_MODELCACHE`) does; it is read only when the hash of
    /// such an entity differs from the store's. A store without a model cache is taken to fit.
    private func externalStorageDifferences(in metadata: [String: Any]) -> [StoreDifference] {
        guard let stored = VersionHashing.hashes(inMetadata: metadata) else { return [] }
        let suspects = schema.orderedEntities.filter { entity in
            guard let name = entity.name, let hash = stored[name] else { return false }
            return !entity.hasExactVersionHash && hash != entity.versionHash
        }
        guard !suspects.isEmpty, let url,
              let content = try? StoreModelCache.content(of: connection, url: url),
              let storedModel = try? CompiledModel.model(fromModelCache: content, source: url) else { return [] }
        var differences: [StoreDifference] = []
        for entity in suspects {
            guard let name = entity.name, let storedEntity = storedModel.entitiesByName[name] else { continue }
            for attribute in entity.layout.attributes where !attribute.isTransient {
                guard let old = storedEntity.attributesByName[attribute.renamingIdentifier ?? attribute.name] ?? storedEntity.attributesByName[attribute.name],
                      old.storesDataExternally != attribute.storesDataExternally else { continue }
                let how = attribute.storesDataExternally ? "allows external storage in the model but not in the store" : "allows external storage in the store but not in the model"
                differences.append(StoreDifference(.columnEncoding, entity: name, property: attribute.name,
                                                   "attribute '\(attribute.name)' of entity '\(name)' \(how)"))
            }
        }
        return differences
    }

    /// The entities whose version hash in the store's metadata differs from the model's (where
    /// OpenCoreData's hash of that entity is exact), or that are on one side only.
    private func versionHashDifferences(in metadata: [String: Any]) -> [StoreDifference] {
        StoreDifference.versionHashDifferences(in: metadata, entities: schema.orderedEntities, exactHashesOnly: true)
    }

    private func compareStructure(into comparison: inout StoreComparison) throws {
        let stored = tables.numbers
        var matchedNames = Set<String>()
        for entity in schema.orderedEntities {
            let name = entity.name ?? ""
            // Core Data's migrations keep an entity's old name in Z_PRIMARYKEY when it was
            // renamed through its renaming identifier (CoreDataPlus SampleModel_V2.sqlite).
            guard let storedName = [name, entity.renamingIdentifier].compactMap({ $0 }).first(where: { stored[$0] != nil }),
                  let number = stored[storedName] else {
                comparison.add(StoreDifference(.entityOnlyInModel, entity: name, "the model has entity '\(name)', which the store does not have"))
                continue
            }
            matchedNames.insert(storedName)
            if number != schema.mapping(for: entity)?.number {
                comparison.add(StoreDifference(.entityNumber, entity: name,
                                               "entity '\(name)' has number \(number) in the store but \(schema.mapping(for: entity)?.number ?? 0) in the model"))
            }
        }
        for extra in stored.keys.sorted() where !matchedNames.contains(extra) {
            comparison.add(StoreDifference(.entityOnlyInStore, entity: extra, "the store has entity '\(extra)', which the model does not have"))
        }
        // An entity the store lacks is one difference, not also one per table and column.
        let missing = Set(comparison.differences.filter { $0.kind == .entityOnlyInModel }.map(\.entity))
        for table in schema.tables where !missing.contains(table.root.name ?? "") {
            try compare(table, skipping: missing, into: &comparison)
        }
        try compareJoinTables(into: &comparison)
    }

    /// Every join table of a to-many relationship, with its key and order columns.
    private func compareJoinTables(into comparison: inout StoreComparison) throws {
        for (id, join) in schema.joinTables.sorted(by: { $0.value.name < $1.value.name }) {
            let relationship = relationship(identifiedBy: id)
            // How Core Data stores a to-many without inverse is not known (COREDATA-FORMAT.md):
            // a store that lays it out otherwise still opens, and the relationship, which can't
            // be read, stays unloaded and blocks saving its object (1550) instead of reading empty.
            if let relationship, relationship.inverseRelationship == nil { continue }
            let owner = relationship?.entity?.name ?? "?"
            let name = relationship?.name ?? "?"
            var tableName = join.name
            var columns = try columnNames(of: tableName)
            if columns.isEmpty, let actual = try tableHolding(join.sourceColumn, join.destinationColumn) {
                // Which side names a many-to-many's table is known from one (ordered) store only:
                // adopt the store's table when it is named after the other side.
                comparison.adoptions.append(.joinTable(join.name, storeName: actual))
                tableName = actual
                columns = try columnNames(of: actual)
            }
            guard !columns.isEmpty else {
                comparison.add(StoreDifference(.missingJoinTable, entity: owner, property: name,
                                               "relationship '\(name)' of entity '\(owner)' has no join table \(join.name) in the store"))
                continue
            }
            for column in [join.sourceColumn, join.destinationColumn] + [join.orderColumn].compactMap({ $0 })
            where !columns.contains(column) {
                comparison.add(StoreDifference(.missingColumn, entity: owner, property: name,
                                               "relationship '\(name)' of entity '\(owner)' has no column \(column) in its join table \(tableName)"))
            }
        }
    }

    /// The `Z_…` table with both columns, if the store has one.
    private func tableHolding(_ first: String, _ second: String) throws -> String? {
        for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%' ESCAPE '\\'") {
            guard let name = row[0].stringValue else { continue }
            let columns = try columnNames(of: name)
            if columns.contains(first) && columns.contains(second) { return name }
        }
        return nil
    }

    private func columnNames(of table: String) throws -> Set<String> {
        Set(try tables.columns(ofTable: table).map { $0.name.uppercased() })
    }

    private func compare(_ table: SQLiteSchema.TableMapping, skipping missing: Set<String>, into comparison: inout StoreComparison) throws {
        let info = try tables.columns(ofTable: table.name)
        let entityName = table.root.name ?? ""
        guard !info.isEmpty else {
            comparison.add(StoreDifference(.missingTable, entity: entityName, "the table \(table.name) of entity '\(entityName)' is missing from the store"))
            return
        }
        var columns: [String: String] = [:]
        for column in info { columns[column.name.uppercased()] = column.type.uppercased() }
        compareOrderColumns(of: table, columns: columns, into: &comparison)
        for mapping in table.entities where !missing.contains(mapping.entity.name ?? "") {
            let layout = mapping.entity.layout
            let entity = mapping.entity.name ?? ""
            for attribute in layout.attributes where attribute.entity === mapping.entity && !attribute.isTransient {
                guard let column = mapping.attributeColumns[attribute.attributeSlot] else { continue }
                guard let type = columns[column] else {
                    comparison.add(StoreDifference(.missingColumn, entity: entity, property: attribute.name,
                                                   "attribute '\(attribute.name)' of entity '\(entity)' has no column \(column) in the store"))
                    continue
                }
                let expected = SQLiteSchema.sqlType(of: attribute.attributeType)
                if !Self.typesAgree(stored: type, expected: expected) {
                    comparison.add(StoreDifference(.columnType, entity: entity, property: attribute.name,
                                                   "attribute '\(attribute.name)' of entity '\(entity)' is \(attribute.attributeType.modelName) in the model but its column \(column) is \(type) in the store"))
                }
            }
            for relationship in layout.relationships where relationship.entity === mapping.entity {
                guard let column = mapping.toOneColumns[relationship.relationshipSlot] else { continue }
                var entityColumn = mapping.toOneEntityColumns[relationship.relationshipSlot]
                if let expected = entityColumn, columns[expected] == nil {
                    // The digit of `Z<n>_<NAME>` is known from one store only (COREDATA-FORMAT.md
                    // §2): adopt the store's own name for the column when it differs.
                    let suffix = "_" + SQLiteSchema.columnStem(relationship.name)
                    if let actual = columns.keys.sorted().first(where: { name in
                        name.hasPrefix("Z") && name.hasSuffix(suffix)
                            && name.dropFirst().dropLast(suffix.count).allSatisfy(\.isNumber) && name.count > suffix.count + 1
                    }) {
                        comparison.adoptions.append(.column(expected, storeName: actual, table: table))
                        entityColumn = actual
                    }
                }
                for needed in [column, entityColumn].compactMap({ $0 }) where columns[needed] == nil {
                    comparison.add(StoreDifference(.missingColumn, entity: entity, property: relationship.name,
                                                   "relationship '\(relationship.name)' of entity '\(entity)' has no column \(needed) in the store"))
                }
            }
        }
    }

    /// The order keys of ordered to-many relationships kept in this table's rows.
    private func compareOrderColumns(of table: SQLiteSchema.TableMapping, columns: [String: String], into comparison: inout StoreComparison) {
        for (id, column) in table.orderColumns.sorted(by: { $0.value < $1.value }) where columns[column] == nil {
            let relationship = relationship(identifiedBy: id)
            comparison.add(StoreDifference(.missingColumn, entity: relationship?.entity?.name ?? "?", property: relationship?.name,
                                           "ordered relationship '\(relationship?.name ?? "?")' of entity '\(relationship?.entity?.name ?? "?")' has no order column \(column) in \(table.name)"))
        }
    }

    /// The relationship the schema keys a join table or order column by.
    private func relationship(identifiedBy id: ObjectIdentifier) -> NSRelationshipDescription? {
        schema.orderedEntities.lazy.flatMap(\.properties).first { ObjectIdentifier($0) == id } as? NSRelationshipDescription
    }

    private static func typesAgree(stored: String, expected: String) -> Bool {
        if stored == expected { return true }
        let numeric: Set<String> = ["INTEGER", "FLOAT", "DECIMAL", "TIMESTAMP", "REAL", "NUMERIC"]
        return numeric.contains(stored) && numeric.contains(expected) && (stored == "INTEGER") == (expected == "INTEGER")
    }
}
