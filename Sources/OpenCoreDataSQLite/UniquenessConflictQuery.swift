import Foundation
import OCDSQLite
import OpenCoreDataCore

/// Finds, inside a save's open transaction, who shares the values of the rows a unique index
/// refused: for each uniqueness constraint of a refused row's entity (and its super-entities), a
/// query for the rows that already have its values. Rows of this save that have them are the
/// conflict's objects; a row from before the save is its database object. The database's error
/// message is never read.
struct UniquenessConflictQuery {
    let schema: SQLiteSchema
    let store: SQLiteStore
    let connection: SQLiteConnection
    /// The sizes of the external data files compared so far: each is looked up once per save.
    private let fileSizes = FileSizes()

    private final class FileSizes {
        var byName: [String: Int?] = [:]
    }

    init(schema: SQLiteSchema, store: SQLiteStore, connection: SQLiteConnection) {
        self.schema = schema
        self.store = store
        self.connection = connection
    }

    /// Whether the external data file `name` holds exactly `data`: sizes first, so that most
    /// files are not read.
    private func file(_ name: String, holds data: Data) -> Bool {
        let size = fileSizes.byName[name] ?? {
            let found = store.externalData.size(ofFile: name)
            fileSizes.byName[name] = .some(found)
            return found
        }()
        return size == data.count && store.externalData.file(name, holds: data)
    }

    /// The conflicts of the rows `refused`: each written (`inTable`: a value kept in a file, which
    /// the unique index let through) or refused by a unique index (not in the table).
    func conflicts(of refused: [(row: SaveChanges.Row, key: Int64, inTable: Bool)], in changes: SaveChanges, insertedIDs: [NSManagedObjectID],
                   resolve: (NSManagedObjectID?) -> Int64?) throws -> UniquenessConflicts {
        let saved = savedRows(of: changes, insertedIDs: insertedIDs)
        var conflicts: [UniquenessConflicts.Conflict] = []
        // One conflict per constraint and set of rows that share its values (a row in the table
        // is one of them: rows that hold a file-kept value find each other).
        var conflictIndex: [String: Int] = [:]
        for (row, key, inTable) in refused {
            var explained = false
            var entity: NSEntityDescription? = row.objectID.entity
            while let constrained = entity {
                for names in constrained.layout.uniquenessConstraintNames {
                    guard let holders = try rows(sharing: names, of: constrained, with: row, key: key, resolve: resolve),
                          !holders.isEmpty else { continue }
                    explained = true
                    let group = "\(constrained.name ?? "")|\(names.joined(separator: ","))|\((holders.map(\.key) + (inTable ? [key] : [])).sorted())"
                    let index = conflictIndex[group] ?? {
                        conflicts.append(UniquenessConflicts.Conflict(entity: constrained, properties: names, objectIDs: [], databaseObjectID: nil))
                        conflictIndex[group] = conflicts.count - 1
                        return conflicts.count - 1
                    }()
                    for holder in holders {
                        if let own = saved[ObjectIdentifier(holder.table)]?[holder.key] {
                            if !conflicts[index].objectIDs.contains(own) { conflicts[index].objectIDs.append(own) }
                        } else if conflicts[index].databaseObjectID == nil {
                            conflicts[index].databaseObjectID = holder.id
                        }
                    }
                    if !conflicts[index].objectIDs.contains(row.objectID) { conflicts[index].objectIDs.append(row.objectID) }
                }
                entity = constrained.superentity
            }
            // A unique index of the store's own that no constraint of the model explains.
            if !explained {
                conflicts.append(UniquenessConflicts.Conflict(entity: row.objectID.entity, properties: [], objectIDs: [row.objectID],
                                                              databaseObjectID: nil))
            }
        }
        return UniquenessConflicts(conflicts: conflicts)
    }

    /// The rows among `written` (written by this save, in its order) that share a uniqueness
    /// constraint's values with another row although every unique index let them through: a
    /// constraint that names an attribute whose value is kept in a file, which an index compares
    /// by file name. Values are compared by content. As with an index, the first of the save's
    /// rows to have values is kept, and the ones after it are refused.
    func rowsSharingFileKeptValues(among written: [(row: SaveChanges.Row, key: Int64, isInsert: Bool)],
                                   resolve: (NSManagedObjectID?) -> Int64?) throws -> [(row: SaveChanges.Row, key: Int64)] {
        var constraintsByEntity: [ObjectIdentifier: [(owner: NSEntityDescription, names: [String])]] = [:]
        var checkedByConstraint: [String: Set<HolderKey>] = [:]
        var kept: Set<HolderKey> = []
        var refused: [(row: SaveChanges.Row, key: Int64)] = []
        for (row, key, isInsert) in written {
            let entity = row.objectID.entity
            let constraints = constraintsByEntity[ObjectIdentifier(entity)] ?? {
                let found = Self.fileKeptConstraints(of: entity)
                constraintsByEntity[ObjectIdentifier(entity)] = found
                return found
            }()
            guard !constraints.isEmpty, let table = schema.mapping(for: entity)?.table else { continue }
            var isRefused = false
            for (owner, names) in constraints where isInsert || Self.changes(row, anyOf: names, in: owner) {
                guard holdsFileKeptValue(row, in: names, of: owner),
                      let holders = try rows(sharing: names, of: owner, with: row, key: key, resolve: resolve), !holders.isEmpty else { continue }
                let constraint = "\(ObjectIdentifier(owner))|\(names)"
                let checked = checkedByConstraint[constraint] ?? {
                    let found = checkedRows(of: owner, names: names, among: written)
                    checkedByConstraint[constraint] = found
                    return found
                }()
                // A row with the values before the save (from before it, or changed by it in
                // other properties), or one of the save's rows kept before this one.
                if holders.contains(where: { !checked.contains(HolderKey($0.table, $0.key)) || kept.contains(HolderKey($0.table, $0.key)) }) {
                    isRefused = true
                }
            }
            if isRefused { refused.append((row, key)) } else { kept.insert(HolderKey(table, key)) }
        }
        return refused
    }

    /// The rows among `written` whose values of the constraint `names` of `owner` are checked in
    /// the save's order: new rows of `owner`'s subtree, and changed ones that change those values.
    private func checkedRows(of owner: NSEntityDescription, names: [String],
                             among written: [(row: SaveChanges.Row, key: Int64, isInsert: Bool)]) -> Set<HolderKey> {
        var checked: Set<HolderKey> = []
        for (row, key, isInsert) in written where row.objectID.entity.isKindOf(entity: owner) {
            guard isInsert || Self.changes(row, anyOf: names, in: owner), let table = schema.mapping(for: row.objectID.entity)?.table else { continue }
            checked.insert(HolderKey(table, key))
        }
        return checked
    }

    private struct HolderKey: Hashable {
        let table: ObjectIdentifier
        let key: Int64
        init(_ table: SQLiteSchema.TableMapping, _ key: Int64) {
            self.table = ObjectIdentifier(table)
            self.key = key
        }
    }

    /// The constraints of `entity` and its ancestors that name an attribute whose values may be
    /// kept in files, each with the entity that declares it.
    static func fileKeptConstraints(of entity: NSEntityDescription) -> [(owner: NSEntityDescription, names: [String])] {
        var found: [(owner: NSEntityDescription, names: [String])] = []
        var current: NSEntityDescription? = entity
        while let constrained = current {
            for names in constrained.layout.uniquenessConstraintNames
            where names.contains(where: { (constrained.layout.propertiesByName[$0] as? NSAttributeDescription)?.storesDataExternally == true }) {
                found.append((constrained, names))
            }
            current = constrained.superentity
        }
        return found
    }

    /// Whether the update `row` changes one of the properties `names` of `owner`.
    private static func changes(_ row: SaveChanges.Row, anyOf names: [String], in owner: NSEntityDescription) -> Bool {
        names.contains { name in
            switch owner.layout.propertiesByName[name] {
            case let attribute as NSAttributeDescription: row.changedAttributeSlots.contains(attribute.attributeSlot)
            case let relationship as NSRelationshipDescription: row.changedRelationshipSlots.contains(relationship.relationshipSlot)
            default: false
            }
        }
    }

    /// Whether `row`'s value of one of the file-kept attributes among `names` is large enough
    /// for a file (smaller ones are in the row, where the unique index compares them).
    private func holdsFileKeptValue(_ row: SaveChanges.Row, in names: [String], of owner: NSEntityDescription) -> Bool {
        names.contains { name in
            guard let attribute = owner.layout.propertiesByName[name] as? NSAttributeDescription, attribute.storesDataExternally,
                  let data = Self.bytes(of: row.values[attribute.attributeSlot]) else { return false }
            return data.count > ExternalDataColumn.threshold
        }
    }

    /// The bytes of a binary value; nil for none, and for a value kept in a file that can't be
    /// read (an unchanged value whose file is missing is no value here: it must not stop a save
    /// that does not write it).
    private static func bytes(of value: PrimitiveValue) -> Data? {
        switch value {
        case .data(let data): data
        case .externalData(let external): external.dataIfReadable
        default: nil
        }
    }

    /// The keys of the rows this save writes, by table, with the IDs the context knows them by.
    private func savedRows(of changes: SaveChanges, insertedIDs: [NSManagedObjectID]) -> [ObjectIdentifier: [Int64: NSManagedObjectID]] {
        var saved: [ObjectIdentifier: [Int64: NSManagedObjectID]] = [:]
        for (row, id) in zip(changes.inserted, insertedIDs) {
            guard let table = schema.mapping(for: id.entity)?.table, let key = id.primaryKey else { continue }
            saved[ObjectIdentifier(table), default: [:]][key] = row.objectID
        }
        for row in changes.updated {
            guard let table = schema.mapping(for: row.objectID.entity)?.table, let key = row.objectID.primaryKey else { continue }
            saved[ObjectIdentifier(table), default: [:]][key] = row.objectID
        }
        return saved
    }

    private struct Holder {
        let table: SQLiteSchema.TableMapping
        let key: Int64
        let id: NSManagedObjectID
    }

    /// The rows other than `key` of `constrained`'s subtree whose `names` have `row`'s values; nil
    /// when one of the row's values is missing (which, as in a unique index, never conflicts).
    private func rows(sharing names: [String], of constrained: NSEntityDescription, with row: SaveChanges.Row, key: Int64,
                      resolve: (NSManagedObjectID?) -> Int64?) throws -> [Holder]? {
        guard let mapping = schema.mapping(for: constrained) else { return nil }
        let layout = constrained.layout
        var conditions: [String] = []
        var binders: [(SQLiteStatement, Int) throws -> Void] = []
        // Columns selected after Z_PK and Z_ENT whose files must hold these bytes.
        var fileChecks: [(column: String, data: Data)] = []
        for name in names {
            switch layout.propertiesByName[name] {
            case let attribute as NSAttributeDescription where attribute.storesDataExternally:
                // As the store writes it: the bytes after the inline marker, or a file's name.
                guard let column = mapping.attributeColumns[attribute.attributeSlot],
                      let data = Self.bytes(of: row.values[attribute.attributeSlot]) else { return nil }
                let inline = ExternalDataColumn.inline(data)
                if data.count > ExternalDataColumn.threshold {
                    // In the row (written before the store allowed files), or in some file.
                    conditions.append("(\(column) = ? OR (\(column) >= x'02' AND \(column) < x'03'))")
                    fileChecks.append((column, data))
                } else {
                    conditions.append("\(column) = ?")
                }
                binders.append { try $0.bind(inline, at: $1) }
            case let attribute as NSAttributeDescription:
                guard let column = mapping.attributeColumns[attribute.attributeSlot] else { return nil }
                let value = row.values[attribute.attributeSlot]
                if value.isNull { return nil }
                conditions.append("\(column) = ?")
                binders.append { try SQLiteValueCoding.bind(value, of: attribute, to: $0, at: $1) }
            case let relationship as NSRelationshipDescription where !relationship.isToMany:
                guard let column = mapping.toOneColumns[relationship.relationshipSlot],
                      let destination = resolve(row.toOne[relationship.relationshipSlot]) else { return nil }
                conditions.append("\(column) = ?")
                binders.append { try $0.bind(destination, at: $1) }
            default:
                return nil
            }
        }
        if mapping.table.entities.count > 1 { conditions.append(mapping.subtreeCondition(on: "Z_ENT")) }
        let selected = (["Z_PK", "Z_ENT"] + fileChecks.map(\.column)).joined(separator: ", ")
        let statement = try connection.cachedStatement(
            "SELECT \(selected) FROM \(mapping.table.name) WHERE \(conditions.joined(separator: " AND "))")
        defer { statement.reset() }
        for (index, bind) in binders.enumerated() { try bind(statement, index + 1) }
        var holders: [Holder] = []
        while try statement.step() {
            let found = statement.int64(at: 0)
            guard found != key else { continue }
            let sameFiles = fileChecks.indices.allSatisfy { index in
                let column = statement.data(at: 2 + index) ?? Data()
                // In the row: SQL compared it. A column in no known layout holds no value.
                if column.first == ExternalDataColumn.inlineMarker { return true }
                guard let name = ExternalDataColumn.referencedName(in: column) else { return false }
                return file(name, holds: fileChecks[index].data)
            }
            guard sameFiles else { continue }
            let entity = schema.mapping(number: statement.int64(at: 1))?.entity ?? constrained
            holders.append(Holder(table: mapping.table, key: found, id: NSManagedObjectID(entity: entity, store: store, primaryKey: found)))
        }
        return holders
    }
}
