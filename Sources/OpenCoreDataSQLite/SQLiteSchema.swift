import Foundation
import OCDSQLite
import OpenCoreDataCore

/// How a model maps onto Core Data's SQLite layout: entity numbers, one table per inheritance
/// tree, one column per persistent attribute and to-one relationship, join tables for
/// many-to-many relationships (see COREDATA-FORMAT.md §2).
///
/// Everything here is derived from the model alone; the store uses it to write SQL, and to
/// check an existing file against the model.
package final class SQLiteSchema {
    /// The alias of the table a fetch reads from.
    package static let rootAlias = "t0"

    // `@exclusivity(unchecked)` on the mapping tables: they are filled while the store opens
    // (and adjusted to the file, under the store's lock), then only read, for every row.
    /// One entity's place in the file.
    package final class EntityMapping {
        package let entity: NSEntityDescription
        /// `Z_ENT`: 1…n, roots sorted by name (case-insensitively), each followed depth first by
        /// its sub-entities.
        package let number: Int64
        /// The numbers of this entity and all its sub-entities, ascending. Contiguous when the
        /// schema numbered the entities; a store's own numbers need not be.
        @exclusivity(unchecked) package var subtreeNumbers: [Int64] = []

        /// The SQL condition that `column` holds the number of this entity or a sub-entity.
        package func subtreeCondition(on column: String) -> String {
            guard let first = subtreeNumbers.first, let last = subtreeNumbers.last else { return "0" }
            if first == last { return "\(column) = \(first)" }
            if last - first + 1 == Int64(subtreeNumbers.count) { return "\(column) BETWEEN \(first) AND \(last)" }
            return "\(column) IN (\(subtreeNumbers.map(String.init).joined(separator: ", ")))"
        }

        /// The `Z_ENT` condition selecting this entity (and, with `includesSubentities`, its
        /// sub-entities) in a shared table read as `alias`; nil when the table holds nothing else.
        package func condition(includesSubentities: Bool, alias: String) -> SQLFragment? {
            guard table.isShared else { return nil }
            if !includesSubentities || subtreeNumbers.count == 1 { return "\(raw: alias).Z_ENT = \(raw: number)" }
            if entity.superentity == nil { return nil }
            return SQLFragment(subtreeCondition(on: "\(alias).Z_ENT"))
        }
        package let table: TableMapping
        /// The column of each attribute slot (nil for transient attributes).
        @exclusivity(unchecked) package var attributeColumns: [String?] = []
        /// The foreign-key column of each relationship slot (nil for to-many and transient ones).
        @exclusivity(unchecked) package var toOneColumns: [String?] = []
        /// For to-ones whose destination has sub-entities: the column holding the destination's
        /// `Z_ENT` (`Z<n>_<RELATIONSHIP>`), by relationship slot.
        @exclusivity(unchecked) package var toOneEntityColumns: [String?] = []
        /// Where each attribute and to-one value sits in a `SELECT` of all the table's columns.
        /// Per attribute slot: its column position (-1 for none) and type, without class
        /// references, so that decoding a row touches no reference counts.
        @exclusivity(unchecked) package var attributeReadPlan: [(index: Int, type: NSAttributeType)] = []
        /// The attribute slots whose columns hold external data markers (`ExternalDataColumn`).
        @exclusivity(unchecked) package var externalDataSlots: [Int] = [] {
            didSet { hasExternalData = !externalDataSlots.isEmpty }
        }
        /// Whether there are any: what each written or read row checks, a flag rather than the
        /// array, which the check would retain.
        @exclusivity(unchecked) package private(set) var hasExternalData = false
        @exclusivity(unchecked) package var toOneReadIndexes: [Int?] = []
        @exclusivity(unchecked) package var toOneEntityReadIndexes: [Int?] = []
        /// The destination entity's mapping of each to-one slot, found once instead of per row.
        @exclusivity(unchecked) package var toOneDestinations: [EntityMapping?] = []

        /// The entity's layout, read once: the core's getter is a call across modules, and saves
        /// read it for every row.
        package let layout: EntityLayout

        package init(entity: NSEntityDescription, number: Int64, table: TableMapping) {
            self.entity = entity
            self.number = number
            self.table = table
            layout = entity.layout
        }

        /// `INSERT` of one row of this entity: `Z_PK`, `Z_ENT`, then attributes and to-ones in
        /// slot order, as `SQLiteStore.bindColumns` binds them.
        package private(set) lazy var insertSQL: String = {
            var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
            columns += attributeColumns.compactMap { $0 }
            for (slot, column) in toOneColumns.enumerated() {
                guard let column else { continue }
                columns.append(column)
                if let entityColumn = toOneEntityColumns[slot] { columns.append(entityColumn) }
            }
            let placeholders = ["?", "?", "1"] + Array(repeating: "?", count: columns.count - 3)
            return "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))"
        }()
    }

    /// One table: the root entity's, shared by the whole tree.
    package final class TableMapping {
        package let name: String
        package let root: NSEntityDescription
        /// Columns after `Z_PK, Z_ENT, Z_OPT`, with their SQL types.
        @exclusivity(unchecked) package var columns: [(name: String, type: String)] = []
        /// Columns holding ordering keys of ordered to-many relationships (`Z_FOK_<INVERSE>`),
        /// by the to-many relationship they order.
        @exclusivity(unchecked) package var orderColumns: [ObjectIdentifier: String] = [:]
        @exclusivity(unchecked) package var entities: [EntityMapping] = []
        /// The columns of the table's entities whose values may be kept in external files.
        package var externalDataColumns: [String] {
            var columns: [String] = []
            for mapping in entities {
                for slot in mapping.externalDataSlots {
                    if let column = mapping.attributeColumns[slot], !columns.contains(column) { columns.append(column) }
                }
            }
            return columns
        }

        package init(name: String, root: NSEntityDescription) {
            self.name = name
            self.root = root
        }

        /// Whether rows of several entities share the table (then `Z_ENT` must be filtered).
        package var isShared: Bool { entities.count > 1 }

        /// The select list under the root alias, which nearly every fetch uses: made once, on
        /// first use (the columns are final by then), rather than for every fetch.
        package private(set) lazy var rootSelectList = SQLiteSchema.selectList(of: self, alias: SQLiteSchema.rootAlias)
    }

    /// A join table for a many-to-many relationship, or a to-many without inverse.
    package struct JoinTable {
        package let name: String
        /// The column holding the source's primary key.
        package let sourceColumn: String
        /// The column holding the destination's primary key.
        package let destinationColumn: String
        /// The ordering column, for an ordered relationship.
        package let orderColumn: String?
    }

    @exclusivity(unchecked) package private(set) var entities: [ObjectIdentifier: EntityMapping] = [:]
    /// Entity mappings by `Z_ENT`, as an array (index = number) for a lookup per fetched row
    /// without hashing.
    @exclusivity(unchecked) private var mappingsByNumber: [EntityMapping?] = [nil]

    /// The mapping of entity number `number`, if the schema has one.
    @inline(__always)
    package func mapping(number: Int64) -> EntityMapping? {
        number > 0 && number < mappingsByNumber.count ? mappingsByNumber[Int(number)] : nil
    }
    @exclusivity(unchecked) package private(set) var tables: [TableMapping] = []
    @exclusivity(unchecked) package private(set) var joinTables: [ObjectIdentifier: JoinTable] = [:]
    package let orderedEntities: [NSEntityDescription]

    /// The layout of `modelEntities`, numbered as Core Data numbers them, or with
    /// `storedNumbers` (entity name → `Z_ENT`) when the model was read from the store itself.
    package init(entities modelEntities: [NSEntityDescription], storedNumbers: [String: Int64]? = nil) {
        let roots = modelEntities.filter { $0.superentity == nil }.sorted(by: Self.byName)
        var ordered: [NSEntityDescription] = []
        func visit(_ entity: NSEntityDescription) {
            ordered.append(entity)
            for child in entity.subentities.sorted(by: Self.byName) { visit(child) }
        }
        roots.forEach(visit)
        orderedEntities = ordered

        for (index, entity) in ordered.enumerated() {
            let number = Self.number(of: entity, at: index, storedNumbers: storedNumbers)
            let root = entity.rootEntity
            let table: TableMapping
            if let existing = tables.first(where: { $0.root === root }) {
                table = existing
            } else {
                table = TableMapping(name: "Z" + Self.columnStem(root.name ?? ""), root: root)
                tables.append(table)
            }
            let mapping = EntityMapping(entity: entity, number: number, table: table)
            table.entities.append(mapping)
            entities[ObjectIdentifier(entity)] = mapping
            if mappingsByNumber.count <= Int(number) { mappingsByNumber += Array(repeating: nil, count: Int(number) + 1 - mappingsByNumber.count) }
            mappingsByNumber[Int(number)] = mapping
        }
        for mapping in entities.values {
            mapping.subtreeNumbers = mapping.entity.selfAndDescendants.compactMap { entities[ObjectIdentifier($0)]?.number }.sorted()
        }
        for table in tables { layOutColumns(of: table) }
        layOutOrderColumns()
        layOutJoinTables()
        computeReadIndexes()
    }

    /// Whether `init(entities: modelEntities, storedNumbers:)` would lay out the same schema:
    /// the same root entities, each entity under the number it would be given.
    package func isLayout(of modelEntities: [NSEntityDescription], storedNumbers: [String: Int64]?) -> Bool {
        let roots = Set(modelEntities.lazy.filter { $0.superentity == nil }.map(ObjectIdentifier.init))
        guard roots == Set(orderedEntities.lazy.filter { $0.superentity == nil }.map(ObjectIdentifier.init)) else { return false }
        for (index, entity) in orderedEntities.enumerated() {
            guard mapping(for: entity)?.number == Self.number(of: entity, at: index, storedNumbers: storedNumbers) else { return false }
        }
        return true
    }

    /// The number of the entity at `index` of the ordered entities: the stored one, checked when
    /// read (1 and up); anything else falls back to ours.
    private static func number(of entity: NSEntityDescription, at index: Int, storedNumbers: [String: Int64]?) -> Int64 {
        storedNumbers?[entity.name ?? ""].flatMap { $0 >= 1 && $0 < 1 << 20 ? $0 : nil } ?? Int64(index + 1)
    }

    /// Makes what the schema otherwise makes on first use, once its columns are final (the store
    /// may adopt its file's own names while it loads): readers on several threads read it later,
    /// and must find nothing left to make.
    package func prepareForReaders() {
        for table in tables { _ = table.rootSelectList }
    }

    private static func byName(_ a: NSEntityDescription, _ b: NSEntityDescription) -> Bool {
        let left = (a.name ?? "").lowercased(), right = (b.name ?? "").lowercased()
        return left == right ? (a.name ?? "") < (b.name ?? "") : left < right
    }

    /// Renames a join table (both relationships that share it), for a store that names it otherwise.
    package func renameJoinTable(_ old: String, to new: String) {
        for (id, join) in joinTables where join.name == old {
            joinTables[id] = JoinTable(name: new, sourceColumn: join.sourceColumn, destinationColumn: join.destinationColumn,
                                       orderColumn: join.orderColumn)
        }
    }

    /// Renames a column of `table` (keeping its place), for a store that names it otherwise.
    package func renameColumn(_ old: String, to new: String, in table: TableMapping) {
        if let index = table.columns.firstIndex(where: { $0.name == old }) { table.columns[index].name = new }
        for mapping in table.entities {
            mapping.toOneEntityColumns = mapping.toOneEntityColumns.map { $0 == old ? new : $0 }
        }
    }

    /// `fooBar` → `FOOBAR`: Core Data's column stem.
    package static func columnStem(_ name: String) -> String { name.uppercased() }

    package func mapping(for entity: NSEntityDescription) -> EntityMapping? { entities[ObjectIdentifier(entity)] }

    private func layOutColumns(of table: TableMapping) {
        var taken: [String: NSPropertyDescription] = [:]
        var integers: [(String, String)] = [], dates: [(String, String)] = [], reals: [(String, String)] = []
        var texts: [(String, String)] = [], blobs: [(String, String)] = []
        func columnName(for property: NSPropertyDescription) -> String {
            let base = "Z" + Self.columnStem(property.name)
            if let owner = taken[base], owner !== property {
                // Two entities of one tree with a same-named property: number the later one.
                var suffix = 1
                while taken["\(base)\(suffix)"] != nil { suffix += 1 }
                taken["\(base)\(suffix)"] = property
                return "\(base)\(suffix)"
            }
            taken[base] = property
            return base
        }
        for mapping in table.entities {
            let layout = mapping.entity.layout
            mapping.attributeColumns = Array(repeating: nil, count: layout.attributes.count)
            mapping.toOneColumns = Array(repeating: nil, count: layout.relationships.count)
            mapping.toOneEntityColumns = Array(repeating: nil, count: layout.relationships.count)
        }
        var assigned: [ObjectIdentifier: String] = [:]
        for mapping in table.entities {
            let layout = mapping.entity.layout
            for attribute in layout.attributes where !attribute.isTransient {
                let name: String
                if let existing = assigned[ObjectIdentifier(attribute)] {
                    name = existing
                } else {
                    name = columnName(for: attribute)
                    assigned[ObjectIdentifier(attribute)] = name
                    let column = (name, Self.sqlType(of: attribute.attributeType))
                    switch attribute.attributeType {
                    case .dateAttributeType: dates.append(column)
                    case .doubleAttributeType, .floatAttributeType, .decimalAttributeType: reals.append(column)
                    case .stringAttributeType, .URIAttributeType, .compositeAttributeType: texts.append(column)
                    case .binaryDataAttributeType, .UUIDAttributeType, .transformableAttributeType, .undefinedAttributeType,
                         .objectIDAttributeType: blobs.append(column)
                    default: integers.append(column)
                    }
                }
                mapping.attributeColumns[attribute.attributeSlot] = name
            }
            for relationship in layout.relationships where !relationship.isToMany && !relationship.isTransient {
                let name: String
                if let existing = assigned[ObjectIdentifier(relationship)] {
                    name = existing
                } else {
                    name = columnName(for: relationship)
                    assigned[ObjectIdentifier(relationship)] = name
                    integers.append((name, "INTEGER"))
                    if let destination = relationship.destinationEntity, !destination.subentities.isEmpty,
                       let number = self.mapping(for: destination)?.number {
                        integers.append(("Z\(number)_\(Self.columnStem(relationship.name))", "INTEGER"))
                    }
                }
                mapping.toOneColumns[relationship.relationshipSlot] = name
                if let destination = relationship.destinationEntity, !destination.subentities.isEmpty,
                   let number = self.mapping(for: destination)?.number {
                    mapping.toOneEntityColumns[relationship.relationshipSlot] = "Z\(number)_\(Self.columnStem(relationship.name))"
                }
            }
        }
        table.columns = (integers + dates + reals + texts + blobs).map { (name: $0.0, type: $0.1) }
    }

    /// Whether some entity has a uniqueness constraint that names an attribute whose values may
    /// be kept in files, which unique indexes cannot compare (`UniquenessConflictQuery`).
    package private(set) var hasFileKeptConstraints = false

    /// Positions of each entity's values in `SELECT Z_PK, Z_ENT, Z_OPT, <table columns>`.
    private func computeReadIndexes() {
        for table in tables {
            var position: [String: Int] = [:]
            for (index, column) in table.columns.enumerated() { position[column.name] = index + 3 }
            for mapping in table.entities {
                let indexes = mapping.attributeColumns.map { $0.flatMap { position[$0] } }
                let types = mapping.entity.layout.attributes.map(\.attributeType)
                mapping.attributeReadPlan = zip(indexes, types).map { (index: $0 ?? -1, type: $1) }
                mapping.externalDataSlots = mapping.entity.layout.attributes.indices.filter { slot in
                    mapping.attributeColumns[slot] != nil && mapping.entity.layout.attributes[slot].storesDataExternally
                }
                if mapping.hasExternalData && !UniquenessConflictQuery.fileKeptConstraints(of: mapping.entity).isEmpty {
                    hasFileKeptConstraints = true
                }
                mapping.toOneReadIndexes = mapping.toOneColumns.map { $0.flatMap { position[$0] } }
                mapping.toOneEntityReadIndexes = mapping.toOneEntityColumns.map { $0.flatMap { position[$0] } }
                mapping.toOneDestinations = mapping.entity.layout.relationships.map { relationship in
                    relationship.isToMany ? nil : relationship.destinationEntity.flatMap { self.mapping(for: $0) }
                }
            }
        }
    }

    /// `Z_PK, Z_ENT, Z_OPT` and every column of `table`, prefixed with `alias`.
    package func selectList(of table: TableMapping, alias: String) -> String {
        alias == SQLiteSchema.rootAlias ? table.rootSelectList : Self.selectList(of: table, alias: alias)
    }

    fileprivate static func selectList(of table: TableMapping, alias: String) -> String {
        (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)).map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// Ordered one-to-many relationships keep each member's position in the member's own row,
    /// in `Z_FOK_<INVERSE>`.
    private func layOutOrderColumns() {
        for mapping in entities.values {
            for relationship in mapping.entity.properties.compactMap({ $0 as? NSRelationshipDescription })
            where relationship.isToMany && relationship.isOrdered && !relationship.isTransient {
                guard let inverse = relationship.inverseRelationship, !inverse.isToMany,
                      let destination = relationship.destinationEntity, let table = self.mapping(for: destination)?.table else { continue }
                let column = "Z_FOK_" + Self.columnStem(inverse.name)
                table.orderColumns[ObjectIdentifier(relationship)] = column
                if !table.columns.contains(where: { $0.name == column }) {
                    let firstNonInteger = table.columns.firstIndex { $0.type != "INTEGER" } ?? table.columns.count
                    table.columns.insert((name: column, type: "INTEGER"), at: firstNonInteger)
                }
            }
        }
    }

    /// Many-to-many relationships (and to-many ones without inverse) get a join table
    /// `Z_<n><RELATIONSHIP>` with one column per side, `Z_<n><RELATIONSHIP>`, each holding the
    /// primary keys reached through that relationship.
    private func layOutJoinTables() {
        for mapping in entities.values {
            for relationship in mapping.entity.properties.compactMap({ $0 as? NSRelationshipDescription })
            where relationship.isToMany && relationship.needsOwnStorage && !relationship.isTransient {
                if joinTables[ObjectIdentifier(relationship)] != nil { continue }
                guard let inverse = relationship.inverseRelationship, inverse.isToMany else {
                    if relationship.inverseRelationship == nil { addJoinTableWithoutInverse(relationship, owner: mapping) }
                    continue
                }
                guard let inverseOwner = inverse.entity.flatMap(self.mapping(for:)) else { continue }
                let mine = "Z_\(mapping.number)\(Self.columnStem(relationship.name))"
                let theirs = "Z_\(inverseOwner.number)\(Self.columnStem(inverse.name))"
                // The table is named after one side: the ordered one if only one is ordered,
                // else the one whose column name sorts last (as `Z_1FAVORITES` in the corpus).
                let named: Bool = relationship.isOrdered != inverse.isOrdered ? relationship.isOrdered : mine >= theirs
                let tableName = named ? mine : theirs
                // The column named after a relationship holds the keys reached through it.
                joinTables[ObjectIdentifier(relationship)] = JoinTable(
                    name: tableName, sourceColumn: theirs, destinationColumn: mine,
                    orderColumn: relationship.isOrdered ? "Z_FOK_\(mine.dropFirst(2))" : nil)
                joinTables[ObjectIdentifier(inverse)] = JoinTable(
                    name: tableName, sourceColumn: mine, destinationColumn: theirs,
                    orderColumn: inverse.isOrdered ? "Z_FOK_\(theirs.dropFirst(2))" : nil)
            }
        }
    }

    private func addJoinTableWithoutInverse(_ relationship: NSRelationshipDescription, owner: EntityMapping) {
        let name = "Z_\(owner.number)\(Self.columnStem(relationship.name))"
        joinTables[ObjectIdentifier(relationship)] = JoinTable(
            name: name, sourceColumn: "Z_\(owner.number)\(Self.columnStem(owner.entity.name ?? ""))_SOURCE",
            destinationColumn: name, orderColumn: relationship.isOrdered ? "Z_FOK_\(name.dropFirst(2))" : nil)
    }

    /// All join tables, once each.
    package var distinctJoinTables: [JoinTable] {
        var seen: Set<String> = []
        return joinTables.values.sorted { $0.name < $1.name }.filter { seen.insert($0.name).inserted }
    }

    package static func sqlType(of type: NSAttributeType) -> String {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: "INTEGER"
        case .dateAttributeType: "TIMESTAMP"
        case .doubleAttributeType, .floatAttributeType: "FLOAT"
        case .decimalAttributeType: "DECIMAL"
        // A composite's JSON text (`CompositeValue`), which SQL reads with `json_extract`.
        case .stringAttributeType, .URIAttributeType, .compositeAttributeType: "VARCHAR"
        default: "BLOB"
        }
    }

    // MARK: DDL

    /// The statements that create an empty store for this schema.
    package func creationStatements() -> [String] {
        var statements = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
        ]
        statements += tables.map { createStatement(for: $0) }
        statements += distinctJoinTables.map { createStatement(for: $0) }
        statements += indexStatements()
        return statements
    }

    /// `CREATE TABLE` for an entity table, under its own name or `name`.
    package func createStatement(for table: TableMapping, named name: String? = nil) -> String {
        let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + table.columns.map { "\($0.name) \($0.type)" }
        return "CREATE TABLE \(name ?? table.name) ( \(columns.joined(separator: ", ")) )"
    }

    /// The order columns of a join table: both sides of a many-to-many share the table, and it
    /// has every order column they need.
    package func orderColumns(of join: JoinTable) -> [String] {
        Set(joinTables.values.filter { $0.name == join.name }.compactMap(\.orderColumn)).sorted()
    }

    /// `CREATE TABLE` for a join table, under its own name or `name`.
    package func createStatement(for join: JoinTable, named name: String? = nil) -> String {
        let columns = ["\(join.sourceColumn) INTEGER", "\(join.destinationColumn) INTEGER"] + orderColumns(of: join).map { "\($0) INTEGER" }
        let key = [join.sourceColumn, join.destinationColumn].sorted().joined(separator: ", ")
        return "CREATE TABLE \(name ?? join.name) ( \(columns.joined(separator: ", ")), PRIMARY KEY (\(key)) )"
    }

    /// Every index of the schema's tables and join tables, as `CREATE INDEX` statements.
    package func indexStatements() -> [String] {
        distinctJoinTables.map { join in
            "CREATE INDEX \(join.name)_\(join.destinationColumn)_INDEX ON \(join.name) (\(join.destinationColumn), \(join.sourceColumn))"
        } + entityIndexStatements()
    }

    private func entityIndexStatements() -> [String] {
        var statements: [String] = []
        for table in tables {
            if table.isShared { statements.append("CREATE INDEX \(table.name)_Z_ENT_INDEX ON \(table.name) (Z_ENT)") }
            var seen: Set<String> = []
            for mapping in table.entities {
                let layout = mapping.entity.layout
                for relationship in layout.relationships {
                    guard let column = mapping.toOneColumns[relationship.relationshipSlot], seen.insert(column).inserted else { continue }
                    statements.append("CREATE INDEX \(table.name)_\(column)_INDEX ON \(table.name) (\(column))")
                }
                let entityName = mapping.entity.name ?? ""
                for attribute in mapping.entity.properties.compactMap({ $0 as? NSAttributeDescription }) where attribute.isIndexed {
                    guard let column = mapping.attributeColumns[attribute.attributeSlot] else { continue }
                    statements.append("CREATE INDEX Z_\(entityName)_\(attribute.name) ON \(table.name) (\(column) COLLATE BINARY ASC)")
                }
                for index in mapping.entity.indexes {
                    let columns = index.elements.compactMap { element -> String? in
                        guard let name = element.property?.name ?? element.propertyName,
                              let column = self.column(for: name, in: mapping) else { return nil }
                        return "\(column) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")"
                    }
                    if !columns.isEmpty {
                        statements.append("CREATE INDEX Z_\(entityName)_\(index.name) ON \(table.name) (\(columns.joined(separator: ", ")))")
                    }
                }
                for constraint in mapping.entity.layout.uniquenessConstraintNames
                where !(mapping.entity.superentity?.layout.uniquenessConstraintNames.contains(constraint) ?? false) {
                    let columns = constraint.compactMap { self.column(for: $0, in: mapping) }
                    guard columns.count == constraint.count else { continue }
                    let list = columns.map { "\($0) COLLATE BINARY ASC" }.joined(separator: ", ")
                    let name = "Z_\(entityName)_UNIQUE_\(constraint.joined(separator: "_"))"
                    if table.isShared {
                        // Sub-entities share the table: the constraint only binds this entity's subtree.
                        statements.append("CREATE UNIQUE INDEX \(name) ON \(table.name) (\(list)) WHERE \(mapping.subtreeCondition(on: "Z_ENT"))")
                    } else {
                        statements.append("CREATE UNIQUE INDEX \(name) ON \(table.name) (\(list))")
                    }
                }
            }
        }
        return statements
    }

    /// The column of the attribute or to-one relationship `name` of an entity.
    package func column(for name: String, in mapping: EntityMapping) -> String? {
        switch mapping.entity.layout.propertiesByName[name] {
        case let attribute as NSAttributeDescription: mapping.attributeColumns[attribute.attributeSlot]
        case let relationship as NSRelationshipDescription: mapping.toOneColumns[relationship.relationshipSlot]
        default: nil
        }
    }
}
