import Foundation
import OCDSQLite

extension SQLiteStore {
    func writeChanges(_ changes: SaveChanges) throws -> SaveOutcome {
        try lock.withLock {
            let connection = try liveConnection()
            guard !isReadOnly else {
                throw CoreDataError.store(.persistentStoreSave, "The store \(url?.path ?? "?") is read-only", url: url)
            }
            let outcome = try connection.transaction(.immediate) { () throws -> SaveOutcome in
                var outcome = SaveOutcome()
                outcome.permanentIDs = try allocatePermanentIDs(for: changes.inserted.map(\.objectID).filter(\.isTemporaryID), on: connection)
                let resolve: (NSManagedObjectID?) -> Int64? = { id in id.flatMap { (outcome.permanentIDs[$0] ?? $0).primaryKey } }
                for row in changes.deleted { try delete(row, on: connection) }
                for row in changes.inserted { try insert(row, key: resolve(row.objectID)!, resolve: resolve, on: connection) }
                for row in changes.updated { try update(row, resolve: resolve, on: connection) }
                for change in changes.toMany { try write(change, resolve: resolve, on: connection) }
                if metadataNeedsWriting { try writeMetadata(on: connection) }
                return outcome
            }
            metadataNeedsWriting = false
            return outcome
        }
    }

    func reservePermanentIDs(for entities: [NSEntityDescription]) throws -> [NSManagedObjectID] {
        try lock.withLock {
            let connection = try liveConnection()
            let temporary = entities.map { NSManagedObjectID(temporaryFor: $0) }
            let ids = try connection.transaction(.immediate) { try allocatePermanentIDs(for: temporary, on: connection) }
            return temporary.map { ids[$0]! }
        }
    }

    // MARK: Primary keys

    /// Hands out primary keys per inheritance tree from `Z_PRIMARYKEY.Z_MAX` of the root entity.
    private func allocatePermanentIDs(for ids: [NSManagedObjectID], on connection: SQLiteConnection) throws
        -> [NSManagedObjectID: NSManagedObjectID] {
        guard !ids.isEmpty else { return [:] }
        var result: [NSManagedObjectID: NSManagedObjectID] = [:]
        result.reserveCapacity(ids.count)
        for (_, group) in Dictionary(grouping: ids, by: { ObjectIdentifier($0.entity.rootEntity) }) {
            guard let root = schema.mapping(for: group[0].entity.rootEntity) else { continue }
            var next = try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(root.number)]).int64Value ?? 0
            for id in group {
                next += 1
                result[id] = NSManagedObjectID(entity: id.entity, store: self, primaryKey: next)
            }
            try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(next), .integer(root.number)])
        }
        return result
    }

    // MARK: Rows

    private func insert(_ row: SaveChanges.Row, key: Int64, resolve: (NSManagedObjectID?) -> Int64?,
                        on connection: SQLiteConnection) throws {
        guard let mapping = schema.mapping(for: row.objectID.entity) else { return }
        let statement = try connection.cachedStatement(mapping.insertSQL)
        try statement.bind(key, at: 1)
        try statement.bind(mapping.number, at: 2)
        var index = 3
        try bindColumns(of: row, mapping: mapping, slots: nil, relationshipSlots: nil, resolve: resolve, to: statement, from: &index)
        do {
            try statement.run()
        } catch let error as SQLiteError where error.isUniqueConstraintViolation {
            throw uniquenessViolation(error, entity: row.objectID.entity, objectID: row.objectID)
        }
    }

    /// Binds attribute and to-one values (all of them, or the listed slots) in column order.
    private func bindColumns(of row: SaveChanges.Row, mapping: SQLiteSchema.EntityMapping, slots: [Int]?, relationshipSlots: [Int]?,
                             resolve: (NSManagedObjectID?) -> Int64?, to statement: SQLiteStatement, from index: inout Int) throws {
        let layout = mapping.entity.layout
        func bindAttribute(_ slot: Int, _ index: inout Int) throws {
            guard mapping.attributeColumns[slot] != nil else { return }
            do {
                try SQLiteValueCoding.bind(row.values[slot], of: layout.attributes[slot], to: statement, at: index)
            } catch let error as TransformableCodingError {
                throw CoreDataError.make(.persistentStoreSave, "Can't save \(error)")
            }
            index += 1
        }
        if let slots {
            for slot in slots { try bindAttribute(slot, &index) }
        } else {
            for slot in layout.attributes.indices { try bindAttribute(slot, &index) }
        }
        guard !layout.relationships.isEmpty else { return }
        for slot in relationshipSlots ?? Array(layout.relationships.indices) where mapping.toOneColumns[slot] != nil {
            let destination = row.toOne[slot]
            if let key = resolve(destination) { try statement.bind(key, at: index) } else { try statement.bindNull(at: index) }
            index += 1
            if mapping.toOneEntityColumns[slot] != nil {
                if let destination, let number = schema.mapping(for: destination.entity)?.number {
                    try statement.bind(number, at: index)
                } else {
                    try statement.bindNull(at: index)
                }
                index += 1
            }
        }
    }

    private func update(_ row: SaveChanges.Row, resolve: (NSManagedObjectID?) -> Int64?, on connection: SQLiteConnection) throws {
        guard let mapping = schema.mapping(for: row.objectID.entity), let key = row.objectID.primaryKey else { return }
        let attributeSlots = row.changedAttributeSlots.filter { mapping.attributeColumns[$0] != nil }
        let relationshipSlots = row.changedRelationshipSlots.filter { mapping.toOneColumns[$0] != nil }
        var assignments = ["Z_OPT = ?"]
        assignments += attributeSlots.map { "\(mapping.attributeColumns[$0]!) = ?" }
        for slot in relationshipSlots {
            assignments.append("\(mapping.toOneColumns[slot]!) = ?")
            if let entityColumn = mapping.toOneEntityColumns[slot] { assignments.append("\(entityColumn) = ?") }
        }
        let sql = "UPDATE \(mapping.table.name) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ? AND Z_OPT = ?"
        let statement = try connection.cachedStatement(sql)
        try statement.bind(row.expectedVersion + 1, at: 1)
        var index = 2
        try bindColumns(of: row, mapping: mapping, slots: attributeSlots, relationshipSlots: relationshipSlots, resolve: resolve,
                        to: statement, from: &index)
        try statement.bind(key, at: index)
        try statement.bind(row.expectedVersion, at: index + 1)
        do {
            try statement.run()
        } catch let error as SQLiteError where error.isUniqueConstraintViolation {
            throw uniquenessViolation(error, entity: row.objectID.entity, objectID: row.objectID)
        }
        if connection.changes != 1 { throw try lockingFailure(for: row.objectID, table: mapping.table, on: connection) }
    }

    private func delete(_ row: SaveChanges.Row, on connection: SQLiteConnection) throws {
        guard let mapping = schema.mapping(for: row.objectID.entity), let key = row.objectID.primaryKey else { return }
        try connection.run("DELETE FROM \(mapping.table.name) WHERE Z_PK = ? AND Z_OPT = ?", [.integer(key), .integer(row.expectedVersion)])
        if connection.changes != 1 { throw try lockingFailure(for: row.objectID, table: mapping.table, on: connection) }
        for relationship in mapping.entity.layout.relationships {
            guard let join = schema.joinTables[ObjectIdentifier(relationship)] else { continue }
            try connection.run("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?", [.integer(key)])
        }
    }

    private func lockingFailure(for objectID: NSManagedObjectID, table: SQLiteSchema.TableMapping,
                                on connection: SQLiteConnection) throws -> OptimisticLockingFailure {
        let current = try connection.scalar("SELECT Z_OPT FROM \(table.name) WHERE Z_PK = ?", [.integer(objectID.primaryKey ?? 0)])
        return OptimisticLockingFailure(objectID: objectID, storeVersion: current.int64Value ?? 0)
    }

    private func uniquenessViolation(_ error: SQLiteError, entity: NSEntityDescription, objectID: NSManagedObjectID) -> UniquenessConstraintViolation {
        // SQLite names the columns: "UNIQUE constraint failed: ZITEM.ZEMAIL, ZITEM.ZNAME".
        let columns = Set(error.message.components(separatedBy: ":").last?
            .split(separator: ",").compactMap { $0.split(separator: ".").last.map { $0.trimmingCharacters(in: .whitespaces) } } ?? [])
        var constrained: NSEntityDescription? = entity
        while let candidate = constrained, let mapping = schema.mapping(for: candidate) {
            for names in candidate.layout.uniquenessConstraintNames {
                let constraintColumns = Set(names.compactMap { schema.column(for: $0, in: mapping) })
                if constraintColumns == columns {
                    return UniquenessConstraintViolation(entity: candidate, properties: names, objectID: objectID, underlying: error)
                }
            }
            constrained = candidate.superentity
        }
        return UniquenessConstraintViolation(entity: entity, properties: columns.sorted(), objectID: objectID, underlying: error)
    }

    // MARK: To-many memberships

    private func write(_ change: SaveChanges.ToMany, resolve: (NSManagedObjectID?) -> Int64?, on connection: SQLiteConnection) throws {
        guard let source = resolve(change.source) else { return }
        let members = change.members.compactMap(resolve)
        if let join = schema.joinTables[ObjectIdentifier(change.relationship)] {
            try connection.run("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?", [.integer(source)])
            for (index, member) in members.enumerated() {
                if let order = join.orderColumn {
                    try connection.run("INSERT OR REPLACE INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn), \(order)) VALUES (?, ?, ?)",
                                       [.integer(source), .integer(member), .integer(Int64(index + 1) * 1024)])
                } else {
                    try connection.run("INSERT OR REPLACE INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn)) VALUES (?, ?)",
                                       [.integer(source), .integer(member)])
                }
            }
        } else if let destination = change.relationship.destinationEntity.flatMap(schema.mapping(for:)),
                  let orderColumn = destination.table.orderColumns[ObjectIdentifier(change.relationship)] {
            for (index, member) in members.enumerated() {
                try connection.run("UPDATE \(destination.table.name) SET \(orderColumn) = ? WHERE Z_PK = ?",
                                   [.integer(Int64(index + 1) * 1024), .integer(member)])
            }
        }
    }
}
