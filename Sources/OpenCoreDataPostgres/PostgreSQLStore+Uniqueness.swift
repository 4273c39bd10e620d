import Foundation
import OCDPostgres
import OCDSQL
import OpenCoreDataCore
import OpenCoreDataSQLite

extension PostgreSQLStore {
    /// Every uniqueness constraint the save would break, found before anything is written: rows
    /// of the save that share a constraint's values, and saved rows that already have them (one
    /// query per constraint and thousand keys). A failed statement would end PostgreSQL's
    /// transaction, so the rows are checked first rather than refused one by one. A row whose
    /// constraint values include nil conflicts with nothing, as with a unique index.
    func uniquenessConflicts(in changes: SaveChanges, resolve: (NSManagedObjectID?) -> Int64?,
                             on connection: PostgresConnection) throws -> [UniquenessConflicts.Conflict] {
        let groups = constrainedRows(of: changes)
        guard !groups.isEmpty else { return [] }
        // Saved rows whose values the save replaces or removes hold no values any more.
        var replaced = Set<RowIdentity>()
        for row in changes.deleted { if let key = row.objectID.primaryKey { replaced.insert(RowIdentity(row.objectID.rootIdentity, key)) } }
        var conflicts: [UniquenessConflicts.Conflict] = []
        for group in groups {
            for row in group.rows where !row.isInsert {
                if let key = row.row.objectID.primaryKey { replaced.insert(RowIdentity(row.row.objectID.rootIdentity, key)) }
            }
        }
        for group in groups {
            guard let mapping = schema.mapping(for: group.entity) else { continue }
            let columns = group.names.compactMap { schema.column(for: $0, in: mapping) }
            guard columns.count == group.names.count else { continue }
            var holders: [[SQLValue]: [NSManagedObjectID]] = [:]
            var order: [[SQLValue]] = []
            for row in group.rows {
                guard let key = try constraintKey(of: row.row, names: group.names, entity: group.entity, resolve: resolve) else { continue }
                if holders[key] == nil { order.append(key) }
                holders[key, default: []].append(row.row.objectID)
            }
            let saved = try savedHolders(of: order, columns: columns, mapping: mapping, excluding: replaced, on: connection)
            for key in order {
                let mine = holders[key] ?? []
                let theirs = saved[key]
                guard mine.count + (theirs == nil ? 0 : 1) > 1 else { continue }
                conflicts.append(UniquenessConflicts.Conflict(entity: group.entity, properties: group.names, objectIDs: mine,
                                                               databaseObjectID: theirs))
            }
        }
        return conflicts
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
        var rows: [(row: SaveChanges.Row, isInsert: Bool)]
    }

    /// The inserted rows, and the updated rows that change a constrained value, by each
    /// constraint of their entity and its superentities.
    private func constrainedRows(of changes: SaveChanges) -> [ConstrainedGroup] {
        var groups: [String: ConstrainedGroup] = [:]
        var order: [String] = []
        func add(_ row: SaveChanges.Row, isInsert: Bool) {
            var entity: NSEntityDescription? = row.objectID.entity
            while let constrained = entity {
                for names in constrained.layout.uniquenessConstraintNames {
                    if !isInsert && !changesAny(of: names, in: row) { continue }
                    let name = "\(constrained.name ?? "")|\(names.joined(separator: ","))"
                    if groups[name] == nil {
                        groups[name] = ConstrainedGroup(entity: constrained, names: names, rows: [])
                        order.append(name)
                    }
                    groups[name]!.rows.append((row, isInsert))
                }
                entity = constrained.superentity
            }
        }
        for row in changes.inserted { add(row, isInsert: true) }
        for row in changes.updated { add(row, isInsert: false) }
        return order.map { groups[$0]! }
    }

    private func changesAny(of names: [String], in row: SaveChanges.Row) -> Bool {
        names.contains { name in
            switch row.objectID.entity.layout.propertiesByName[name] {
            case let attribute as NSAttributeDescription: row.changedAttributeSlots.contains(attribute.attributeSlot)
            case let relationship as NSRelationshipDescription: row.changedRelationshipSlots.contains(relationship.relationshipSlot)
            default: false
            }
        }
    }

    /// The values of a constraint's properties as the columns hold them; nil when one is nil.
    private func constraintKey(of row: SaveChanges.Row, names: [String], entity: NSEntityDescription,
                               resolve: (NSManagedObjectID?) -> Int64?) throws -> [SQLValue]? {
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

    /// The saved row (not one the save replaces) that holds each of `keys`, if any.
    private func savedHolders(of keys: [[SQLValue]], columns: [String], mapping: SQLiteSchema.EntityMapping,
                              excluding replaced: Set<RowIdentity>, on connection: PostgresConnection) throws -> [[SQLValue]: NSManagedObjectID] {
        var holders: [[SQLValue]: NSManagedObjectID] = [:]
        let root = ObjectIdentifier(mapping.entity.rootEntity)
        let subtree = mapping.table.isShared ? " AND \(mapping.subtreeCondition(on: "Z_ENT"))" : ""
        for start in stride(from: 0, to: keys.count, by: 1000) {
            let chunk = keys[start..<min(start + 1000, keys.count)]
            let tuples = chunk.map { "(\(SQLFragment.list($0)))" as SQLFragment }.joined(separator: ", ")
            let sql: SQLFragment = "SELECT Z_PK, Z_ENT, \(raw: columns.joined(separator: ", ")) FROM \(raw: mapping.table.name) WHERE (\(raw: columns.joined(separator: ", "))) IN (\(tuples))\(raw: subtree) ORDER BY Z_PK"
            let result = try connection.query(sql)
            for row in 0..<result.rowCount {
                let key = result.int64(row, 0)
                guard !replaced.contains(RowIdentity(root, key)) else { continue }
                let values = (0..<columns.count).map { result.value(row, 2 + $0) }
                guard holders[values] == nil else { continue }
                let entity = schema.mapping(number: result.int64(row, 1))?.entity ?? mapping.entity
                holders[values] = NSManagedObjectID(entity: entity, store: self, primaryKey: key)
            }
        }
        return holders
    }
}
