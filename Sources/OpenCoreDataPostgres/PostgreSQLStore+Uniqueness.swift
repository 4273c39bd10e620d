import Foundation
import OCDPostgres
import OCDSQL
import OpenCoreDataCore
import OpenCoreDataSQLite

extension PostgreSQLStore {
    /// Every uniqueness constraint the written save breaks, found by query inside its
    /// transaction (the exclusion constraints themselves wait for the commit): for each
    /// constraint of the entities the save inserts or updates, the rows that now share the
    /// values of one of those objects (one query per constraint and thousand values). As in the
    /// in-memory stores, the save's own objects in a clash are listed by the IDs their context
    /// knows them by, and the first other row holding the values is the database object. A row
    /// whose constraint values include nil clashes with nothing, as with a unique index.
    func uniquenessConflicts(in changes: SaveChanges, insertedIDs: [NSManagedObjectID], resolve: (NSManagedObjectID?) -> Int64?,
                             on connection: PostgresConnection) throws -> [UniquenessConflicts.Conflict] {
        let groups = constrainedRows(of: changes)
        guard !groups.isEmpty else { return [] }
        // The save's rows by table and key, named as their context knows them.
        var saved: [RowIdentity: NSManagedObjectID] = [:]
        for index in changes.inserted.indices {
            if let key = insertedIDs[index].primaryKey { saved[RowIdentity(insertedIDs[index].rootIdentity, key)] = changes.inserted[index].objectID }
        }
        for row in changes.updated {
            if let key = row.objectID.primaryKey { saved[RowIdentity(row.objectID.rootIdentity, key)] = row.objectID }
        }
        var conflicts: [UniquenessConflicts.Conflict] = []
        for group in groups {
            guard let mapping = schema.mapping(for: group.entity) else { continue }
            let columns = group.names.compactMap { schema.column(for: $0, in: mapping) }
            guard columns.count == group.names.count else { continue }
            var keys: [[SQLValue]] = []
            var seen: Set<[SQLValue]> = []
            for row in group.rows {
                if let key = try constraintKey(of: row, names: group.names, resolve: resolve), seen.insert(Self.comparable(key)).inserted {
                    keys.append(key)
                }
            }
            let holders = try holders(of: keys, columns: columns, mapping: mapping, on: connection)
            let root = ObjectIdentifier(mapping.entity.rootEntity)
            for key in keys {
                guard let rows = holders[Self.comparable(key)], rows.count > 1 else { continue }
                var conflict = UniquenessConflicts.Conflict(entity: group.entity, properties: group.names, objectIDs: [], databaseObjectID: nil)
                for holder in rows {
                    if let mine = saved[RowIdentity(root, holder.key)] {
                        conflict.objectIDs.append(mine)
                    } else if conflict.databaseObjectID == nil {
                        conflict.databaseObjectID = NSManagedObjectID(entity: holder.entity, store: self, primaryKey: holder.key)
                    }
                }
                conflicts.append(conflict)
            }
        }
        return conflicts
    }

    /// `key` as PostgreSQL compares it, for finding it among others: NaN equals NaN there (and
    /// in its exclusion constraints), but not in Swift, so each NaN is one marker value.
    private static func comparable(_ key: [SQLValue]) -> [SQLValue] {
        guard key.contains(where: { if case .real(let number) = $0 { number.isNaN } else { false } }) else { return key }
        return key.map { if case .real(let number) = $0, number.isNaN { .text("\u{0}NaN") } else { $0 } }
    }

    private struct RowIdentity: Hashable {
        let root: ObjectIdentifier
        let key: Int64
        init(_ root: ObjectIdentifier, _ key: Int64) {
            self.root = root
            self.key = key
        }
    }

    private struct ConstrainedGroup {
        let entity: NSEntityDescription
        let names: [String]
        var rows: [SaveChanges.Row]
    }

    /// The inserted and updated rows, by each constraint of their entity and its superentities.
    private func constrainedRows(of changes: SaveChanges) -> [ConstrainedGroup] {
        var groups: [String: ConstrainedGroup] = [:]
        var order: [String] = []
        for row in changes.inserted + changes.updated {
            var entity: NSEntityDescription? = row.objectID.entity
            while let constrained = entity {
                for names in constrained.layout.uniquenessConstraintNames {
                    let name = "\(constrained.name ?? "")|\(names.joined(separator: ","))"
                    if groups[name] == nil {
                        groups[name] = ConstrainedGroup(entity: constrained, names: names, rows: [])
                        order.append(name)
                    }
                    groups[name]!.rows.append(row)
                }
                entity = constrained.superentity
            }
        }
        return order.map { groups[$0]! }
    }

    /// The values of a constraint's properties as the columns hold them; nil when one is nil.
    private func constraintKey(of row: SaveChanges.Row, names: [String], resolve: (NSManagedObjectID?) -> Int64?) throws -> [SQLValue]? {
        var key: [SQLValue] = []
        for name in names {
            switch row.objectID.entity.layout.propertiesByName[name] {
            case let attribute as NSAttributeDescription:
                let value = try PostgresValueCoding.sqlValue(row.values[attribute.attributeSlot], of: attribute)
                if value == .null { return nil }
                key.append(value)
            case let relationship as NSRelationshipDescription:
                guard let destination = resolve(row.toOne[relationship.relationshipSlot]) else { return nil }
                key.append(.integer(destination))
            default:
                return nil
            }
        }
        return key
    }

    /// The rows of the constrained entity (and its sub-entities) holding each of `keys`, in key
    /// order, as the save's transaction sees them.
    private func holders(of keys: [[SQLValue]], columns: [String], mapping: SQLiteSchema.EntityMapping,
                         on connection: PostgresConnection) throws -> [[SQLValue]: [(key: Int64, entity: NSEntityDescription)]] {
        var holders: [[SQLValue]: [(key: Int64, entity: NSEntityDescription)]] = [:]
        let subtree = mapping.table.isShared ? " AND \(mapping.subtreeCondition(on: "Z_ENT"))" : ""
        for start in stride(from: 0, to: keys.count, by: 1000) {
            let tuples = keys[start..<min(start + 1000, keys.count)].map { "(\(SQLFragment.list($0)))" as SQLFragment }.joined(separator: ", ")
            let sql: SQLFragment = "SELECT Z_PK, Z_ENT, \(raw: columns.joined(separator: ", ")) FROM \(raw: mapping.table.name) WHERE (\(raw: columns.joined(separator: ", "))) IN (\(tuples))\(raw: subtree) ORDER BY Z_PK"
            let result = try connection.query(sql)
            for row in 0..<result.rowCount {
                let values = Self.comparable((0..<columns.count).map { result.value(row, 2 + $0) })
                let entity = schema.mapping(number: result.int64(row, 1))?.entity ?? mapping.entity
                holders[values, default: []].append((result.int64(row, 0), entity))
            }
        }
        return holders
    }
}
