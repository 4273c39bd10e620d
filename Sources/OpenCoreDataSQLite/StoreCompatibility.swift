import Foundation
import OCDSQLite
import OpenCoreDataCore

/// Decides whether an existing store file fits the model.
///
/// First as Core Data does, by entity version hashes: when the store's metadata carries
/// `NSStoreModelVersionHashes`, an entity whose hash differs from the model's is refused,
/// naming the entity. Where OpenCoreData's hash is not known to be Apple's
/// (`NSEntityDescription.hasExactVersionHash`), and for stores without hashes, it decides by
/// structure: the same entities (`Z_PRIMARYKEY`), and a table with a column for every persistent
/// attribute and to-one relationship. The structural check also runs after the hashes agree, so
/// that a mapping mistake can never read the wrong columns.
///
/// Where Core Data's naming is known from a single store only (which side names a
/// many-to-many's join table, the digit of a `Z<n>_<RELATIONSHIP>` entity column), the check
/// adopts the store's own name into `schema` instead of refusing the store, so that the schema
/// reads the file as its writer laid it out.
struct StoreCompatibility {
    let schema: SQLiteSchema
    /// The store's `Z_PRIMARYKEY`: entity name → `Z_ENT`.
    let storedNumbers: [String: Int64]
    let connection: SQLiteConnection
    let url: URL?

    func check(metadata: [String: Any]) throws {
        try checkVersionHashes(in: metadata)
        try checkStructure()
    }

    /// Refuses the store when an entity's version hash in its metadata differs from the model's
    /// (and OpenCoreData's hash of that entity is exact), or an entity is on one side only.
    private func checkVersionHashes(in metadata: [String: Any]) throws {
        guard let stored = VersionHashing.hashes(inMetadata: metadata) else { return }
        let entities = Dictionary(schema.orderedEntities.compactMap { entity in entity.name.map { ($0, entity) } },
                                  uniquingKeysWith: { first, _ in first })
        for name in VersionHashing.sortedByBytes(Set(entities.keys).union(stored.keys)) {
            switch (entities[name], stored[name]) {
            case (let entity?, let hash?):
                if entity.versionHash != hash && entity.hasExactVersionHash {
                    throw incompatible(entity: name, "entity '\(name)' is not the one the store was written with (its version hash differs)")
                }
            case (_?, nil):
                throw incompatible(entity: name, "the model has entity '\(name)', which the store does not have")
            case (nil, _?):
                // An entity of another configuration of the same model is no obstacle: Core Data
                // may record the whole model's hashes in a configuration's store.
                if schema.orderedEntities.first?.managedObjectModel?.entitiesByName[name] != nil { continue }
                throw incompatible(entity: name, "the store has entity '\(name)', which the model does not have")
            case (nil, nil):
                break
            }
        }
    }

    private func checkStructure() throws {
        let stored = storedNumbers
        var matchedNames = Set<String>()
        for entity in schema.orderedEntities {
            let name = entity.name ?? ""
            // Core Data's migrations keep an entity's old name in Z_PRIMARYKEY when it was
            // renamed through its renaming identifier (CoreDataPlus SampleModel_V2.sqlite).
            guard let storedName = [name, entity.renamingIdentifier].compactMap({ $0 }).first(where: { stored[$0] != nil }),
                  let number = stored[storedName] else {
                throw incompatible(entity: name, "the model has entity '\(name)', which the store does not have")
            }
            matchedNames.insert(storedName)
            if number != schema.mapping(for: entity)?.number {
                throw incompatible(entity: name, "entity '\(name)' has number \(number) in the store but \(schema.mapping(for: entity)?.number ?? 0) in the model")
            }
        }
        if let extra = stored.keys.sorted().first(where: { !matchedNames.contains($0) }) {
            throw incompatible(entity: extra, "the store has entity '\(extra)', which the model does not have")
        }
        for table in schema.tables { try check(table) }
        try checkJoinTables()
    }

    /// Every join table of a to-many relationship, with its key and order columns.
    private func checkJoinTables() throws {
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
                schema.renameJoinTable(join.name, to: actual)
                tableName = actual
                columns = try columnNames(of: actual)
            }
            guard !columns.isEmpty else {
                throw incompatible(entity: owner, property: name,
                                   "relationship '\(name)' of entity '\(owner)' has no join table \(join.name) in the store")
            }
            for column in [join.sourceColumn, join.destinationColumn] + [join.orderColumn].compactMap({ $0 })
            where !columns.contains(column) {
                throw incompatible(entity: owner, property: name,
                                   "relationship '\(name)' of entity '\(owner)' has no column \(column) in its join table \(tableName)")
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
        Set(try connection.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0[0].stringValue?.uppercased() })
    }

    private func check(_ table: SQLiteSchema.TableMapping) throws {
        let info = try connection.rows("SELECT name, type FROM pragma_table_info(?)", [.text(table.name)])
        let entityName = table.root.name ?? ""
        guard !info.isEmpty else {
            throw incompatible(entity: entityName, "the table \(table.name) of entity '\(entityName)' is missing from the store")
        }
        var columns: [String: String] = [:]
        for row in info {
            if let name = row[0].stringValue { columns[name.uppercased()] = row[1].stringValue?.uppercased() ?? "" }
        }
        try checkOrderColumns(of: table, columns: columns)
        for mapping in table.entities {
            let layout = mapping.entity.layout
            for attribute in layout.attributes where attribute.entity === mapping.entity && !attribute.isTransient {
                guard let column = mapping.attributeColumns[attribute.attributeSlot] else { continue }
                guard let type = columns[column] else {
                    throw incompatible(entity: mapping.entity.name ?? "", property: attribute.name,
                                       "attribute '\(attribute.name)' of entity '\(mapping.entity.name ?? "")' has no column \(column) in the store")
                }
                let expected = SQLiteSchema.sqlType(of: attribute.attributeType)
                if !Self.typesAgree(stored: type, expected: expected) {
                    throw incompatible(entity: mapping.entity.name ?? "", property: attribute.name,
                                       "attribute '\(attribute.name)' of entity '\(mapping.entity.name ?? "")' is \(attribute.attributeType.modelName) in the model but its column \(column) is \(type) in the store")
                }
            }
            for relationship in layout.relationships where relationship.entity === mapping.entity {
                guard let column = mapping.toOneColumns[relationship.relationshipSlot] else { continue }
                if let entityColumn = mapping.toOneEntityColumns[relationship.relationshipSlot], columns[entityColumn] == nil {
                    // The digit of `Z<n>_<NAME>` is known from one store only (COREDATA-FORMAT.md
                    // §2): adopt the store's own name for the column when it differs.
                    let suffix = "_" + SQLiteSchema.columnStem(relationship.name)
                    if let actual = columns.keys.sorted().first(where: { name in
                        name.hasPrefix("Z") && name.hasSuffix(suffix)
                            && name.dropFirst().dropLast(suffix.count).allSatisfy(\.isNumber) && name.count > suffix.count + 1
                    }) {
                        schema.renameColumn(entityColumn, to: actual, in: table)
                    }
                }
                for needed in [column, mapping.toOneEntityColumns[relationship.relationshipSlot]].compactMap({ $0 })
                where columns[needed] == nil {
                    throw incompatible(entity: mapping.entity.name ?? "", property: relationship.name,
                                       "relationship '\(relationship.name)' of entity '\(mapping.entity.name ?? "")' has no column \(needed) in the store")
                }
            }
        }
    }

    /// The order keys of ordered to-many relationships kept in this table's rows.
    private func checkOrderColumns(of table: SQLiteSchema.TableMapping, columns: [String: String]) throws {
        for (id, column) in table.orderColumns.sorted(by: { $0.value < $1.value }) where columns[column] == nil {
            let relationship = relationship(identifiedBy: id)
            throw incompatible(entity: relationship?.entity?.name ?? "?", property: relationship?.name,
                               "ordered relationship '\(relationship?.name ?? "?")' of entity '\(relationship?.entity?.name ?? "?")' has no order column \(column) in \(table.name)")
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

    private func incompatible(entity: String, property: String? = nil, _ reason: String) -> CocoaError {
        var info: [String: Any] = ["NSEntityNameKey": entity]
        if let property { info[NSValidationKeyErrorKey] = property }
        if let url { info[NSURLErrorKey] = url }
        return CoreDataError.make(.persistentStoreIncompatibleVersionHash,
                                  "The model used to open the store is incompatible with the one used to create it (\(url?.path ?? "store")): \(reason)",
                                  info)
    }
}
