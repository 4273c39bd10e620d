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

    func conflicts(of refused: [(row: SaveChanges.Row, key: Int64)], in changes: SaveChanges, insertedIDs: [NSManagedObjectID],
                   resolve: (NSManagedObjectID?) -> Int64?) throws -> UniquenessConflicts {
        let saved = savedRows(of: changes, insertedIDs: insertedIDs)
        var conflicts: [UniquenessConflicts.Conflict] = []
        // One conflict per constraint and set of rows that share its values.
        var conflictIndex: [String: Int] = [:]
        for (row, key) in refused {
            var explained = false
            var entity: NSEntityDescription? = row.objectID.entity
            while let constrained = entity {
                for names in constrained.layout.uniquenessConstraintNames {
                    guard let holders = try rows(sharing: names, of: constrained, with: row, key: key, resolve: resolve),
                          !holders.isEmpty else { continue }
                    explained = true
                    let group = "\(constrained.name ?? "")|\(names.joined(separator: ","))|\(holders.map(\.key).sorted())"
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
        for name in names {
            switch layout.propertiesByName[name] {
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
        let statement = try connection.cachedStatement(
            "SELECT Z_PK, Z_ENT FROM \(mapping.table.name) WHERE \(conditions.joined(separator: " AND "))")
        defer { statement.reset() }
        for (index, bind) in binders.enumerated() { try bind(statement, index + 1) }
        var holders: [Holder] = []
        while try statement.step() {
            let found = statement.int64(at: 0)
            guard found != key else { continue }
            let entity = schema.mapping(number: statement.int64(at: 1))?.entity ?? constrained
            holders.append(Holder(table: mapping.table, key: found, id: NSManagedObjectID(entity: entity, store: store, primaryKey: found)))
        }
        return holders
    }
}
