import Foundation
import OCDPostgres
import OCDSQL
import OpenCoreDataCore
import OpenCoreDataSQLite

extension PostgreSQLStore {
    /// Writes a save in a transaction left open for `commitChanges()` or `rollbackChanges()`.
    ///
    /// The rows go as pipelined batches: the deletes, inserts and updates of a save, each
    /// checked against the version the context saw, take one round trip per thousand
    /// statements. Rows changed or deleted by another connection since they were read are all
    /// collected, then the save is rolled back and fails with them (`OptimisticLockingFailures`)
    /// for the context's merge policy.
    func writeChanges(_ changes: SaveChanges) throws -> SaveOutcome {
        try lock.withLock {
            guard !isReadOnly else {
                throw CoreDataError.store(.persistentStoreSave, "The store in \(place) is read-only", url: url)
            }
            let connection = try liveConnection()
            return try failing(.persistentStoreSave) {
                // Read committed whatever the database's default: a save that waited for another
                // one's rows (or its history number) goes on with what that one committed.
                try connection.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
                do {
                    let outcome = try write(changes, on: connection)
                    savePrepared = true
                    return outcome
                } catch {
                    if connection.isOpen { try? connection.execute("ROLLBACK") }
                    throw error
                }
            }
        }
    }

    private func write(_ changes: SaveChanges, on connection: PostgresConnection) throws -> SaveOutcome {
        var outcome = SaveOutcome()
        outcome.insertedIDs = try allocatePermanentIDs(for: changes.inserted.map(\.objectID), on: connection)
        let map = changes.temporaryKeyMap(outcome.insertedIDs)
        let resolve: (NSManagedObjectID?) -> Int64? = { map.key(of: $0) }

        // Rows the save only locks (`detectConflicts(for:)`) are locked first. Then deletes,
        // inserts and updates go as one batch, each kind in one order (by table, then key), so
        // that two saves of the same rows lock them in the same order rather than wait on each
        // other; each delete and update says by its count whether the row was still at the
        // version the context saw.
        var failures = try versionFailures(among: changes.locked, on: connection)
        let tombstones = tracksHistory ? try tombstoneValues(of: changes.deleted, on: connection) : [:]
        var statements: [(sql: String, arguments: [SQLValue])] = []
        var checked: [(index: Int, objectID: NSManagedObjectID, table: SQLiteSchema.TableMapping)] = []
        for row in Self.inKeyOrder(changes.deleted) {
            guard let mapping = schema.mapping(for: row.objectID.entity), let key = row.objectID.primaryKey else { continue }
            checked.append((statements.count, row.objectID, mapping.table))
            statements.append(("DELETE FROM \(mapping.table.name) WHERE Z_PK = ? AND Z_OPT = ?", [.integer(key), .integer(row.expectedVersion)]))
        }
        statements += try joinRowDeletions(of: changes.deleted)
        for index in changes.inserted.indices {
            let row = changes.inserted[index]
            guard let mapping = schema.mapping(for: row.objectID.entity) else { continue }
            var arguments: [SQLValue] = [.integer(outcome.insertedIDs[index].primaryKey!), .integer(mapping.number)]
            try appendColumns(of: row, mapping: mapping, attributeSlots: nil, relationshipSlots: nil, resolve: resolve, to: &arguments)
            statements.append((mapping.insertSQL, arguments))
        }
        for row in Self.inKeyOrder(changes.updated) {
            guard let mapping = schema.mapping(for: row.objectID.entity), let key = row.objectID.primaryKey else { continue }
            let attributeSlots = row.changedAttributeSlots.filter { mapping.attributeColumns[$0] != nil }
            let relationshipSlots = row.changedRelationshipSlots.filter { mapping.toOneColumns[$0] != nil }
            var assignments = ["Z_OPT = ?"]
            assignments += attributeSlots.map { "\(mapping.attributeColumns[$0]!) = ?" }
            for slot in relationshipSlots {
                assignments.append("\(mapping.toOneColumns[slot]!) = ?")
                if let entityColumn = mapping.toOneEntityColumns[slot] { assignments.append("\(entityColumn) = ?") }
            }
            var arguments: [SQLValue] = [.integer(row.expectedVersion + 1)]
            try appendColumns(of: row, mapping: mapping, attributeSlots: attributeSlots, relationshipSlots: relationshipSlots,
                              resolve: resolve, to: &arguments)
            arguments += [.integer(key), .integer(row.expectedVersion)]
            checked.append((statements.count, row.objectID, mapping.table))
            statements.append(("UPDATE \(mapping.table.name) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ? AND Z_OPT = ?", arguments))
        }
        statements += try membershipStatements(for: changes.toMany, resolve: resolve, on: connection)
        // Told to other connections when the save commits (`PostgresChangeListener`); with the
        // number of its history, once it has one.
        var notice = changeNotice(changes, insertedIDs: outcome.insertedIDs)
        if !tracksHistory { statements += notice.statements }
        let counts = try runRows(statements, on: connection)

        var stale: [(objectID: NSManagedObjectID, table: SQLiteSchema.TableMapping)] = []
        for check in checked where counts[check.index] != 1 { stale.append((check.objectID, check.table)) }
        if !stale.isEmpty {
            let versions = try currentVersions(of: stale.map { ($0.objectID, $0.table) }, on: connection)
            failures += stale.map { OptimisticLockingFailure(objectID: $0.objectID, storeVersion: versions[ObjectIdentifier($0.objectID)] ?? 0) }
        }
        if !failures.isEmpty { throw OptimisticLockingFailures(failures: failures) }
        // Uniqueness is checked by query once every row is written (the constraints themselves
        // wait for the commit), as the in-memory stores check the state a save makes.
        let conflicts = try uniquenessConflicts(in: changes, insertedIDs: outcome.insertedIDs, resolve: resolve, on: connection)
        if !conflicts.isEmpty { throw UniquenessConflicts(conflicts: conflicts) }
        if tracksHistory {
            try translatingConflicts {
                notice.transaction = try recordHistory(of: changes, insertedIDs: outcome.insertedIDs, tombstones: tombstones,
                                                       resolve: resolve, on: connection)
                preparedHistory = notice.transaction
                _ = try connection.runBatch(notice.statements)
            }
        }
        if metadataNeedsWriting { try writeMetadata(on: connection) }
        return outcome
    }

    /// Runs the save's statements as batches. (The uniqueness constraints wait for the commit, so
    /// no row is refused here but by a unique index of the application's own.)
    private func runRows(_ statements: [(sql: String, arguments: [SQLValue])], on connection: PostgresConnection) throws -> [Int] {
        try translatingConflicts { try connection.runBatch(statements) }
    }

    /// Runs `body`, turning a deadlock with another connection's save, and a row another save
    /// took first, into errors that say to save again.
    private func translatingConflicts<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as PostgresError where error.sqlState == "40P01" || error.sqlState == "40001" {
            throw CoreDataError.store(.persistentStoreSave,
                                      "The save to \(place) met another connection's save on the same rows and was rolled back, nothing written; save again: \(error.message)",
                                      url: url, underlying: error)
        } catch let error as PostgresError where error.isUniqueViolation || error.sqlState == "23P01" {
            throw CoreDataError.store(.persistentStoreSave,
                                      "The store in \(place) refused a row that breaks a uniqueness constraint, saved by another connection meanwhile; save again to settle it by the merge policy: \(error.message)",
                                      url: url, underlying: error)
        }
    }

    /// Commits the prepared save. A save whose connection dropped, or whose transaction the
    /// server already ended, fails here with nothing written: the connection is never made anew
    /// between a save's two phases.
    func commitChanges() throws {
        try lock.withLock {
            guard savePrepared, let connection else {
                throw CoreDataError.store(.persistentStoreSave, "No save is prepared on the store in \(place)", url: url)
            }
            savePrepared = false
            defer { preparedHistory = nil }
            do {
                try connection.commit()
            } catch let error as PostgresError where error.sqlState == "23P01" {
                // The constraints are checked now: another connection saved the same values
                // after this save's check.
                throw CoreDataError.store(.persistentStoreSave,
                                          "The store in \(place) refused the save: another connection saved values a uniqueness constraint keeps unique meanwhile; save again to settle it by the merge policy: \(error.message)",
                                          url: url, underlying: error)
            } catch let error as PostgresError where error.kind == .connectionLost {
                throw CoreDataError.store(.persistentStoreSave,
                                          "The connection to \(place) was lost while the save was being committed: it may or may not have been written (fetch before saving again): \(error.message)",
                                          url: url, underlying: error)
            } catch let error as PostgresError {
                throw CoreDataError.store(.persistentStoreSave, "The save to \(place) was not committed, and nothing of it was written: \(error)",
                                          url: url, underlying: error)
            }
            metadataNeedsWriting = false
            if let number = preparedHistory { changeListener?.committedOwn(number) }
            preparedHistory = nil
        }
    }

    func rollbackChanges() {
        lock.withLock {
            savePrepared = false
            preparedHistory = nil
            if let connection, connection.isOpen, connection.isInTransaction { try? connection.execute("ROLLBACK") }
        }
    }

    /// The rows a save changes, as other connections are told of them.
    private func changeNotice(_ changes: SaveChanges, insertedIDs: [NSManagedObjectID]) -> PostgresChangeNotice {
        var notice = PostgresChangeNotice(storeID: identifier, rows: [])
        notice.rows.reserveCapacity(changes.inserted.count + changes.updated.count + changes.deleted.count)
        for id in insertedIDs {
            if let number = schema.mapping(for: id.entity)?.number, let key = id.primaryKey { notice.rows.append(("i", number, key)) }
        }
        for (kind, rows) in [(Character("u"), changes.updated), (Character("d"), changes.deleted)] {
            for row in rows {
                if let number = schema.mapping(for: row.objectID.entity)?.number, let key = row.objectID.primaryKey {
                    notice.rows.append((kind, number, key))
                }
            }
        }
        return notice
    }

    /// `rows` by table (the root entity's name: the same order in every process), then key.
    private static func inKeyOrder(_ rows: [SaveChanges.Row]) -> [SaveChanges.Row] {
        guard let first = rows.first?.objectID.rootIdentity else { return rows }
        // Usually every row is of one table: then only the keys are compared.
        if rows.allSatisfy({ $0.objectID.rootIdentity == first }) {
            return rows.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        }
        let tables = rows.map { $0.objectID.entity.rootEntity.name ?? "" }
        return rows.indices.sorted { a, b in
            tables[a] != tables[b] ? tables[a] < tables[b] : (rows[a].objectID.primaryKey ?? 0) < (rows[b].objectID.primaryKey ?? 0)
        }.map { rows[$0] }
    }

    // MARK: Keys

    /// The permanent ID of each of `ids`, in order (IDs already permanent are kept): new keys
    /// from each table's sequence, one query per table.
    func allocatePermanentIDs(for ids: [NSManagedObjectID], on connection: PostgresConnection) throws -> [NSManagedObjectID] {
        var needed: [ObjectIdentifier: (table: SQLiteSchema.TableMapping, count: Int)] = [:]
        for id in ids where id.isTemporaryID {
            guard let table = schema.mapping(for: id.entity)?.table else {
                throw CoreDataError.make(.persistentStoreSave, "The store in \(place) does not hold entity '\(id.entity.name ?? "?")'")
            }
            needed[ObjectIdentifier(table), default: (table, 0)].count += 1
        }
        var keys: [ObjectIdentifier: [Int64]] = [:]
        for (identity, request) in needed {
            let result = try connection.query("SELECT nextval(?) FROM generate_series(1, ?)",
                                              [.text(PostgresSchemaDefinition.sequence(of: request.table)), .integer(Int64(request.count))])
            keys[identity] = (0..<result.rowCount).map { result.int64($0, 0) }.reversed()
        }
        return ids.map { id in
            guard id.isTemporaryID, let table = schema.mapping(for: id.entity)?.table else { return id }
            let key = keys[ObjectIdentifier(table)]!.removeLast()
            return NSManagedObjectID(entity: id.entity, store: self, primaryKey: key, rootIdentity: id.rootIdentity)
        }
    }

    // MARK: Rows

    /// Appends the values of `row`'s attributes and to-ones (all, or the listed slots), in the
    /// order of the insert's or update's columns.
    private func appendColumns(of row: SaveChanges.Row, mapping: SQLiteSchema.EntityMapping, attributeSlots: [Int]?,
                               relationshipSlots: [Int]?, resolve: (NSManagedObjectID?) -> Int64?, to arguments: inout [SQLValue]) throws {
        let layout = mapping.layout
        for slot in attributeSlots ?? Array(layout.attributes.indices) where mapping.attributeColumns[slot] != nil {
            do {
                arguments.append(try PostgresValueCoding.sqlValue(row.values[slot], of: layout.attributes[slot]))
            } catch let error as TransformableCodingError {
                throw CoreDataError.make(.persistentStoreSave, "Can't save \(error)")
            }
        }
        for slot in relationshipSlots ?? Array(layout.relationships.indices) where mapping.toOneColumns[slot] != nil {
            let destination = row.toOne[slot]
            arguments.append(resolve(destination).map { .integer($0) } ?? .null)
            if mapping.toOneEntityColumns[slot] != nil {
                arguments.append(destination.flatMap { schema.mapping(for: $0.entity)?.number }.map { .integer($0) } ?? .null)
            }
        }
    }

    /// The join-table rows of deleted objects, deleted with them.
    private func joinRowDeletions(of rows: [SaveChanges.Row]) throws -> [(sql: String, arguments: [SQLValue])] {
        var statements: [(sql: String, arguments: [SQLValue])] = []
        var keysByJoin: [String: (join: SQLiteSchema.JoinTable, keys: [Int64])] = [:]
        for row in rows {
            guard let key = row.objectID.primaryKey else { continue }
            for relationship in row.objectID.entity.layout.relationships {
                guard let join = schema.joinTables[ObjectIdentifier(relationship)] else { continue }
                keysByJoin["\(join.name)\u{0}\(join.sourceColumn)", default: (join, [])].keys.append(key)
            }
        }
        for (_, entry) in keysByJoin.sorted(by: { $0.key < $1.key }) {
            for start in stride(from: 0, to: entry.keys.count, by: 1000) {
                let list = SQLFragment.list(entry.keys[start..<min(start + 1000, entry.keys.count)].map { .integer($0) })
                let statement: SQLFragment = "DELETE FROM \(raw: entry.join.name) WHERE \(raw: entry.join.sourceColumn) IN (\(list))"
                statements.append((statement.text, statement.arguments))
            }
        }
        return statements
    }

    /// The statements that make the stored memberships of `changes` their new members: join rows
    /// (only those that differ, so that the other side's order survives; the rows there now read
    /// with one query per join table and thousand sources) or order columns.
    private func membershipStatements(for changes: [SaveChanges.ToMany], resolve: (NSManagedObjectID?) -> Int64?,
                                      on connection: PostgresConnection) throws -> [(sql: String, arguments: [SQLValue])] {
        var statements: [(sql: String, arguments: [SQLValue])] = []
        var existing: [String: [Int64: Set<Int64>]] = [:]
        var sourcesByJoin: [String: (join: SQLiteSchema.JoinTable, sources: [Int64])] = [:]
        for change in changes {
            guard let join = schema.joinTables[ObjectIdentifier(change.relationship)], let source = resolve(change.source) else { continue }
            sourcesByJoin["\(join.name)\u{0}\(join.sourceColumn)", default: (join, [])].sources.append(source)
        }
        for (name, entry) in sourcesByJoin {
            var members: [Int64: Set<Int64>] = [:]
            for start in stride(from: 0, to: entry.sources.count, by: 1000) {
                let list = SQLFragment.list(entry.sources[start..<min(start + 1000, entry.sources.count)].map { .integer($0) })
                let result = try connection.query(
                    "SELECT \(raw: entry.join.sourceColumn), \(raw: entry.join.destinationColumn) FROM \(raw: entry.join.name) WHERE \(raw: entry.join.sourceColumn) IN (\(list))")
                for row in 0..<result.rowCount { members[result.int64(row, 0), default: []].insert(result.int64(row, 1)) }
            }
            existing[name] = members
        }
        for change in changes {
            guard let source = resolve(change.source) else { continue }
            let members = change.members.compactMap(resolve)
            if let join = schema.joinTables[ObjectIdentifier(change.relationship)] {
                let wanted = Set(members)
                for stale in (existing["\(join.name)\u{0}\(join.sourceColumn)"]?[source] ?? []).sorted() where !wanted.contains(stale) {
                    statements.append(("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ? AND \(join.destinationColumn) = ?",
                                       [.integer(source), .integer(stale)]))
                }
                let key = [join.sourceColumn, join.destinationColumn].sorted().joined(separator: ", ")
                for (index, member) in members.enumerated() {
                    if let order = join.orderColumn {
                        statements.append(("INSERT INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn), \(order)) VALUES (?, ?, ?) "
                                           + "ON CONFLICT (\(key)) DO UPDATE SET \(order) = EXCLUDED.\(order)",
                                           [.integer(source), .integer(member), .integer(Int64(index + 1) * 1024)]))
                    } else {
                        statements.append(("INSERT INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn)) VALUES (?, ?) ON CONFLICT DO NOTHING",
                                           [.integer(source), .integer(member)]))
                    }
                }
            } else if let destination = change.relationship.destinationEntity.flatMap(schema.mapping(for:)),
                      let orderColumn = destination.table.orderColumns[ObjectIdentifier(change.relationship)] {
                for (index, member) in members.enumerated() {
                    statements.append(("UPDATE \(destination.table.name) SET \(orderColumn) = ? WHERE Z_PK = ?",
                                       [.integer(Int64(index + 1) * 1024), .integer(member)]))
                }
            }
        }
        return statements
    }

    // MARK: Versions

    /// The rows of `rows` (IDs and versions the context saw) that are gone or at another version.
    private func versionFailures(among rows: [SaveChanges.Row], on connection: PostgresConnection) throws -> [OptimisticLockingFailure] {
        let located = rows.compactMap { row in
            schema.mapping(for: row.objectID.entity).map { (row.objectID, $0.table, row.expectedVersion) }
        }
        guard !located.isEmpty else { return [] }
        let versions = try currentVersions(of: located.map { ($0.0, $0.1) }, on: connection)
        return located.compactMap { objectID, _, expected in
            let version = versions[ObjectIdentifier(objectID)] ?? 0
            return version == expected ? nil : OptimisticLockingFailure(objectID: objectID, storeVersion: version)
        }
    }

    /// The `Z_OPT` of each row that is still there, by its object ID's identity.
    private func currentVersions(of rows: [(NSManagedObjectID, SQLiteSchema.TableMapping)],
                                 on connection: PostgresConnection) throws -> [ObjectIdentifier: Int64] {
        var versions: [ObjectIdentifier: Int64] = [:]
        let byTable = Dictionary(grouping: rows) { ObjectIdentifier($0.1) }
        for group in byTable.values {
            let table = group[0].1
            var idsByKey: [Int64: [NSManagedObjectID]] = [:]
            for (id, _) in group { if let key = id.primaryKey { idsByKey[key, default: []].append(id) } }
            let keys = idsByKey.keys.sorted()
            for start in stride(from: 0, to: keys.count, by: 1000) {
                let list = SQLFragment.list(keys[start..<min(start + 1000, keys.count)].map { .integer($0) })
                // FOR SHARE: a row checked here cannot change before the save commits.
                let result = try connection.query("SELECT Z_PK, Z_OPT FROM \(raw: table.name) WHERE Z_PK IN (\(list)) FOR SHARE")
                for row in 0..<result.rowCount {
                    for id in idsByKey[result.int64(row, 0)] ?? [] { versions[ObjectIdentifier(id)] = result.int64(row, 1) }
                }
            }
        }
        return versions
    }
}
