import Foundation
import OCDSQLite
import OpenCoreDataCore

extension SQLiteStore {
    /// Writes a save inside a transaction left open for `commitChanges()` or `rollbackChanges()`
    /// (a savepoint of the held transaction while `holdWrites()` holds the store).
    func writeChanges(_ changes: SaveChanges) throws -> SaveOutcome {
        try lock.withLock {
            let connection = try liveConnection()
            guard !isReadOnly else { throw readOnlyRefusal() }
            try beginSave(on: connection)
            do {
                var outcome = SaveOutcome()
                outcome.insertedIDs = try allocatePermanentIDs(for: changes.inserted.map(\.objectID), on: connection)
                let map = changes.temporaryKeyMap(outcome.insertedIDs)
                let resolve: (NSManagedObjectID?) -> Int64? = { map.key(of: $0) }
                // Rows changed elsewhere since they were read are collected, not thrown at the first,
                // so that the save can report every conflict; the transaction is rolled back then.
                var lockingFailures: [OptimisticLockingFailure] = []
                var unresolvedDeletes: [SQLiteDeleteBatches.Key] = []
                // Values persistent history keeps of deleted objects, read while their rows are there.
                let tombstones = tracksHistory ? try tombstoneValues(of: changes.deleted, on: connection) : [:]
                try delete(changes.deleted, on: connection, lockingFailures: &lockingFailures, unresolved: &unresolvedDeletes)
                // Rows a unique index refused, likewise collected; who shares their values is
                // found by query once every row is written.
                var refused: [RefusedRow] = []
                var insertStatements = InsertStatementCache()
                // Rows by index, here and below: iterating them would copy each row, retaining
                // and releasing its arrays — a good part of a large save.
                for index in changes.inserted.indices {
                    let key = outcome.insertedIDs[index].primaryKey!
                    if try !insert(changes.inserted[index], key: key, resolve: resolve, statements: &insertStatements, on: connection) {
                        refused.append(RefusedRow(row: changes.inserted[index], key: key, isInsert: true))
                    }
                }
                var updateStatements = UpdateStatementCache()
                for index in changes.updated.indices {
                    switch try update(changes.updated[index], resolve: resolve, statements: &updateStatements, on: connection) {
                    case .written: break
                    case .changedSinceRead(let failure): lockingFailures.append(failure)
                    case .refusedByUniqueIndex:
                        refused.append(RefusedRow(row: changes.updated[index], key: changes.updated[index].objectID.primaryKey!, isInsert: false))
                    }
                }
                // A row refused while another row of this save still held its values (one the
                // save changes after it) is written again once the others are, until nothing moves.
                var moved = !refused.isEmpty
                while moved {
                    moved = false
                    refused = try refused.filter { refusedRow in
                        let written: Bool
                        if refusedRow.isInsert {
                            written = try insert(refusedRow.row, key: refusedRow.key, resolve: resolve, statements: &insertStatements, on: connection)
                        } else {
                            switch try update(refusedRow.row, resolve: resolve, statements: &updateStatements, on: connection) {
                            case .written: written = true
                            case .changedSinceRead(let failure): lockingFailures.append(failure); written = true
                            case .refusedByUniqueIndex: written = false
                            }
                        }
                        if written { moved = true }
                        return !written
                    }
                }
                // Rows the save only locks (`detectConflicts(for:)`) must be where the context saw them.
                lockingFailures += try failures(among: changes.locked.map { row in
                    SQLiteDeleteBatches.Key(objectID: row.objectID, primaryKey: row.objectID.primaryKey ?? 0, expectedVersion: row.expectedVersion)
                }, on: connection)
                if !unresolvedDeletes.isEmpty {
                    // Nothing may be written after this: the save fails with what the reads find.
                    try undoSave(on: connection)
                    throw OptimisticLockingFailures(failures: lockingFailures + (try failures(among: unresolvedDeletes, on: connection)))
                }
                if !lockingFailures.isEmpty { throw OptimisticLockingFailures(failures: lockingFailures) }
                // A unique index compares a value kept in a file by the file's name: rows whose
                // constraints name such values are compared by content once all are written.
                let sharingFiles = schema.hasFileKeptConstraints
                    ? try UniquenessConflictQuery(schema: schema, store: self, connection: connection).rowsSharingFileKeptValues(
                        among: writtenRows(of: changes, insertedIDs: outcome.insertedIDs, refused: refused), resolve: resolve)
                    : []
                if !refused.isEmpty || !sharingFiles.isEmpty {
                    throw try UniquenessConflictQuery(schema: schema, store: self, connection: connection)
                        .conflicts(of: refused.map { ($0.row, $0.key, false) } + sharingFiles.map { ($0.row, $0.key, true) },
                                   in: changes, insertedIDs: outcome.insertedIDs, resolve: resolve)
                }
                for change in changes.toMany { try write(change, resolve: resolve, on: connection) }
                if tracksHistory {
                    try recordHistory(of: changes, insertedIDs: outcome.insertedIDs, tombstones: tombstones, resolve: resolve, on: connection)
                }
                if metadataNeedsWriting { try writeMetadata(on: connection) }
                externalData.flushCreatedFiles()
                return outcome
            } catch {
                try? undoSave(on: connection)
                throw error
            }
        }
    }

    func commitChanges() throws {
        try lock.withLock {
            // Whatever happens, the try's number is not carried into another save.
            defer { historyOfTry = nil }
            if writesHeld {
                // Final when the hold ends (`releaseWrites(committing:)`).
                let connection = try liveConnection()
                try checkHeldTransaction(on: connection)
                try connection.execute("RELEASE ocd_save")
                externalData.commitTry(held: true)
            } else {
                let connection = try liveConnection()
                try committingHistory(historyOfTry.map { [$0] } ?? []) { try connection.execute("COMMIT TRANSACTION") }
                metadataNeedsWriting = false
                externalData.commitTry(held: false)
            }
            if writesHeld, let number = historyOfTry { historyOfHold.append(number) }
        }
    }

    func rollbackChanges() {
        lock.withLock {
            if let connection, connection.isInTransaction { try? undoSave(on: connection) }
            externalData?.undoTry()
        }
    }

    /// Begins writing a save: a transaction holding the store's write lock, or a savepoint of
    /// the transaction `holdWrites()` holds.
    private func beginSave(on connection: SQLiteConnection) throws {
        historyOfTry = nil
        // Files of a try whose end never came (its commit failed) are referred to by no row.
        externalData.undoTry()
        if writesHeld {
            guard heldWritesOpen else { throw heldWritesRefusal() }
            try checkHeldTransaction(on: connection)
            try connection.execute("SAVEPOINT ocd_save")
        } else {
            try connection.execute("BEGIN IMMEDIATE TRANSACTION")
        }
    }

    /// The error of a write to a read-only store.
    func readOnlyRefusal() -> CocoaError {
        CoreDataError.store(.persistentStoreSave, "The store \(url?.path ?? "?") is read-only", url: url)
    }

    /// The error for a write made inside another save's hold (from its merge policy, its
    /// validation or a change notification it posts, on its thread).
    func heldWritesRefusal() -> CocoaError {
        CoreDataError.store(.persistentStoreSave,
                            "The store \(url?.path ?? "?") is held by a save settling its conflicts on this thread: save, run batch requests and obtain permanent IDs after that save, not from its merge policy, validation or notifications",
                            url: url)
    }

    /// Throws when SQLite ended the held transaction on its own (an I/O error or a full disk
    /// rolls it back): a savepoint would then begin a transaction of its own.
    private func checkHeldTransaction(on connection: SQLiteConnection) throws {
        guard connection.isInTransaction else {
            throw CoreDataError.store(.persistentStoreSave, "The store \(url?.path ?? "?") ended the transaction the save held", url: url)
        }
    }

    /// Throws away what the save being written wrote (only that, while writes are held).
    private func undoSave(on connection: SQLiteConnection) throws {
        historyOfTry = nil
        // The files go whether or not SQLite managed to roll back: no commit will refer to them.
        defer { externalData.undoTry() }
        try connection.execute(writesHeld ? "ROLLBACK TO ocd_save; RELEASE ocd_save" : "ROLLBACK TRANSACTION")
    }

    // MARK: Holding writes

    /// Holds the store for a save that may be written several times: no other connection, of
    /// this process or another, writes to the file until `releaseWrites(committing:)`, so that
    /// what a merge policy reads between two tries is still the store's state when the next try
    /// writes. Takes the store's lock until then.
    func holdWrites() throws {
        lock.lock()
        do {
            let connection = try liveConnection()
            // Another save's hold on this thread: its fate must not be this save's.
            if writesHeld { throw heldWritesRefusal() }
            // A read-only store holds nothing: its save fails as it would anyway.
            if !isReadOnly {
                try connection.execute("BEGIN IMMEDIATE TRANSACTION")
                writesHeld = true
            }
        } catch {
            lock.unlock()
            throw error
        }
    }

    /// Opens the hold to the holding save's next try, or closes it again.
    func openHeldWrites(_ open: Bool) {
        lock.withLock { heldWritesOpen = open && writesHeld }
    }

    /// Ends a hold: commits what its tries made final, or throws it all away.
    func releaseWrites(committing: Bool) throws {
        defer { lock.unlock() }
        guard writesHeld, let connection else {
            writesHeld = false
            externalData?.endHold(committing: false)
            return
        }
        writesHeld = false
        heldWritesOpen = false
        let history = historyOfHold
        historyOfHold = []
        if !committing {
            try? connection.execute("ROLLBACK TRANSACTION")
            externalData.endHold(committing: false)
            return
        }
        do {
            try checkHeldTransaction(on: connection)
            try committingHistory(history) { try connection.execute("COMMIT TRANSACTION") }
            metadataNeedsWriting = false
            externalData.endHold(committing: true)
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK TRANSACTION") }
            externalData.endHold(committing: false)
            throw error
        }
    }

    func reservePermanentIDs(for entities: [NSEntityDescription]) throws -> [NSManagedObjectID] {
        try lock.withLock {
            let connection = try liveConnection()
            guard !isReadOnly else {
                throw CoreDataError.store(.persistentStoreSave, "The store \(url?.path ?? "?") is read-only: it gives out no permanent IDs", url: url)
            }
            // Reserved inside a hold, the IDs would be given out again should the holding save fail.
            if writesHeld { throw heldWritesRefusal() }
            let temporary = entities.map { NSManagedObjectID(temporaryFor: $0) }
            return try connection.transaction(.immediate) { try allocatePermanentIDs(for: temporary, on: connection) }
        }
    }

    // MARK: Primary keys

    /// Hands out primary keys per inheritance tree from `Z_PRIMARYKEY.Z_MAX` of the root entity:
    /// the permanent ID of each of `ids`, in order (IDs already permanent are kept).
    private func allocatePermanentIDs(for ids: [NSManagedObjectID], on connection: SQLiteConnection) throws -> [NSManagedObjectID] {
        // Per inheritance tree: its root's identity, `Z_ENT` and last key. Few trees per save, so
        // a scan (starting with the last tree used) beats hashing for every row.
        var lastKeys: [(root: ObjectIdentifier, number: Int64, key: Int64)] = []
        var current = 0
        var result: [NSManagedObjectID] = []
        result.reserveCapacity(ids.count)
        for id in ids {
            guard id.isTemporaryID else {
                result.append(id)
                continue
            }
            let root = id.rootIdentity
            if current >= lastKeys.count || lastKeys[current].root != root {
                if let index = lastKeys.firstIndex(where: { $0.root == root }) {
                    current = index
                } else {
                    guard let mapping = schema.mapping(for: id.entity.rootEntity) else {
                        throw CoreDataError.make(.persistentStoreSave, "The store does not hold entity '\(id.entity.name ?? "?")'")
                    }
                    let stored = try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(mapping.number)]).int64Value ?? 0
                    lastKeys.append((root, mapping.number, stored))
                    current = lastKeys.count - 1
                }
            }
            lastKeys[current].key += 1
            result.append(NSManagedObjectID(entity: id.entity, store: self, primaryKey: lastKeys[current].key, rootIdentity: root))
        }
        for (_, number, key) in lastKeys {
            try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(key), .integer(number)])
        }
        return result
    }

    // MARK: Rows

    /// The rows of `changes` that are in the table now (all but `refused`), in the save's order.
    private func writtenRows(of changes: SaveChanges, insertedIDs: [NSManagedObjectID], refused: [RefusedRow])
        -> [(row: SaveChanges.Row, key: Int64, isInsert: Bool)] {
        let notWritten = Set(refused.map { ObjectIdentifier($0.row.objectID) })
        var rows: [(row: SaveChanges.Row, key: Int64, isInsert: Bool)] = []
        for index in changes.inserted.indices where !notWritten.contains(ObjectIdentifier(changes.inserted[index].objectID)) {
            rows.append((changes.inserted[index], insertedIDs[index].primaryKey!, true))
        }
        for row in changes.updated where !notWritten.contains(ObjectIdentifier(row.objectID)) {
            if let key = row.objectID.primaryKey { rows.append((row, key, false)) }
        }
        return rows
    }

    /// Writes one new row; false when a unique index refused it (the transaction goes on).
    private func insert(_ row: SaveChanges.Row, key: Int64, resolve: (NSManagedObjectID?) -> Int64?,
                        statements: inout InsertStatementCache, on connection: SQLiteConnection) throws -> Bool {
        guard let (mapping, statement) = try statements.statement(for: row.objectID.entity, schema: schema, connection: connection) else { return true }
        try statement.bind(key, at: 1)
        try statement.bind(mapping.number, at: 2)
        var index = 3
        try bindColumns(of: row, mapping: mapping, slots: nil, relationshipSlots: nil, resolve: resolve, to: statement, from: &index)
        do {
            try statement.run()
        } catch let error as SQLiteError where error.isUniqueConstraintViolation {
            return false
        }
        return true
    }

    /// Binds attribute and to-one values (all of them, or the listed slots) in column order.
    private func bindColumns(of row: SaveChanges.Row, mapping: SQLiteSchema.EntityMapping, slots: [Int]?, relationshipSlots: [Int]?,
                             resolve: (NSManagedObjectID?) -> Int64?, to statement: SQLiteStatement, from index: inout Int) throws {
        let layout = mapping.layout
        let hasExternalData = mapping.hasExternalData
        func bindAttribute(_ slot: Int, _ index: inout Int) throws {
            guard mapping.attributeColumns[slot] != nil else { return }
            do {
                if hasExternalData && mapping.externalDataSlots.contains(slot), case .data(let data) = try row.values[slot].readingExternalData() {
                    try statement.bind(try externalData.column(for: data, object: row.objectID, slot: slot), at: index)
                } else {
                    try SQLiteValueCoding.bind(row.values[slot], of: layout.attributes[slot], to: statement, at: index)
                }
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

    /// A row a unique index refused, to try again once the save's other rows are written.
    private struct RefusedRow {
        let row: SaveChanges.Row
        let key: Int64
        let isInsert: Bool
    }

    /// What became of one changed row.
    private enum UpdateResult {
        case written
        /// The row changed (or vanished) since it was read.
        case changedSinceRead(OptimisticLockingFailure)
        /// A unique index refused the new values (the transaction goes on).
        case refusedByUniqueIndex
    }

    /// Writes one changed row.
    private func update(_ row: SaveChanges.Row, resolve: (NSManagedObjectID?) -> Int64?, statements: inout UpdateStatementCache,
                        on connection: SQLiteConnection) throws -> UpdateResult {
        guard let mapping = schema.mapping(for: row.objectID.entity), let key = row.objectID.primaryKey else { return .written }
        // Usually every changed slot has a column: the row's own lists are used, not copies.
        let attributeSlots = row.changedAttributeSlots.allSatisfy { mapping.attributeColumns[$0] != nil }
            ? row.changedAttributeSlots : row.changedAttributeSlots.filter { mapping.attributeColumns[$0] != nil }
        let relationshipSlots = row.changedRelationshipSlots.allSatisfy { mapping.toOneColumns[$0] != nil }
            ? row.changedRelationshipSlots : row.changedRelationshipSlots.filter { mapping.toOneColumns[$0] != nil }
        let statement = try statements.statement(for: mapping, attributeSlots, relationshipSlots) {
            var assignments = ["Z_OPT = ?"]
            assignments += attributeSlots.map { "\(mapping.attributeColumns[$0]!) = ?" }
            for slot in relationshipSlots {
                assignments.append("\(mapping.toOneColumns[slot]!) = ?")
                if let entityColumn = mapping.toOneEntityColumns[slot] { assignments.append("\(entityColumn) = ?") }
            }
            return try connection.cachedStatement(
                "UPDATE \(mapping.table.name) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ? AND Z_OPT = ?")
        }
        if mapping.hasExternalData {
            try releaseExternalData(of: key, slots: attributeSlots.filter(mapping.externalDataSlots.contains), in: mapping, on: connection)
        }
        try statement.bind(row.expectedVersion + 1, at: 1)
        var index = 2
        try bindColumns(of: row, mapping: mapping, slots: attributeSlots, relationshipSlots: relationshipSlots, resolve: resolve,
                        to: statement, from: &index)
        try statement.bind(key, at: index)
        try statement.bind(row.expectedVersion, at: index + 1)
        do {
            try statement.run()
        } catch let error as SQLiteError where error.isUniqueConstraintViolation {
            return .refusedByUniqueIndex
        }
        return connection.changes == 1 ? .written : .changedSinceRead(try lockingFailure(for: row.objectID, table: mapping.table, on: connection))
    }

    /// Deletes rows, checking each row's version (optimistic locking) in the same statement, and
    /// removes their join-table rows.
    ///
    /// Rows go many to a statement (`SQLiteDeleteBatches`). A batch that deletes fewer rows than
    /// it names met rows changed or vanished since they were read: the rows still there are
    /// failures at once; when rows also vanished, which of the missing ones this save deleted
    /// cannot be told inside the transaction, so they come back as `unresolved`, to be looked up
    /// once the save is rolled back.
    private func delete(_ rows: [SaveChanges.Row], on connection: SQLiteConnection,
                        lockingFailures: inout [OptimisticLockingFailure],
                        unresolved: inout [SQLiteDeleteBatches.Key]) throws {
        guard !rows.isEmpty else { return }
        let batches = SQLiteDeleteBatches(rows: rows, schema: schema)
        for batch in batches.batches {
            try releaseExternalData(of: batch.keys.map(\.primaryKey), in: batch.table, on: connection)
            let statement = try connection.cachedStatement(batch.sql)
            for (index, key) in batch.keys.enumerated() { try statement.bind(key.primaryKey, at: index + 1) }
            try statement.bind(batch.expectedVersion, at: batch.keys.count + 1)
            try statement.run()
            guard connection.changes != batch.keys.count else { continue }
            // A row that changed (or vanished) since it was read fails the save; the transaction
            // rolls the whole save back.
            let remaining = try versions(of: batch.keys, in: batch.table, on: connection)
            for key in batch.keys {
                if let version = remaining[key.primaryKey] {
                    lockingFailures.append(OptimisticLockingFailure(objectID: key.objectID, storeVersion: version))
                }
            }
            if batch.keys.count - remaining.count != connection.changes {
                unresolved += batch.keys.filter { remaining[$0.primaryKey] == nil }
            }
        }
        for table in batches.tables {
            let joins = Set(table.entities.flatMap { mapping in
                mapping.entity.layout.relationships.compactMap { schema.joinTables[ObjectIdentifier($0)] }
            }.map { "\($0.name)\u{0}\($0.sourceColumn)" })
            guard !joins.isEmpty else { continue }
            let keys = rows.compactMap { row in schema.mapping(for: row.objectID.entity)?.table === table ? row.objectID.primaryKey : nil }
            for join in joins.sorted() {
                let parts = join.split(separator: "\u{0}").map(String.init)
                for chunk in keys.chunked(into: 500) {
                    try connection.run("DELETE FROM \(raw: parts[0]) WHERE \(raw: parts[1]) IN (\(SQLFragment.list(chunk.map { .integer($0) })))")
                }
            }
        }
    }

    /// Notes the external data files the columns of `slots` of row `key` refer to now, before
    /// the save overwrites them: they go once it is final.
    private func releaseExternalData(of key: Int64, slots: [Int], in mapping: SQLiteSchema.EntityMapping,
                                     on connection: SQLiteConnection) throws {
        guard !slots.isEmpty else { return }
        let columns = slots.compactMap { mapping.attributeColumns[$0] }.joined(separator: ", ")
        for row in try connection.rows("SELECT \(columns) FROM \(mapping.table.name) WHERE Z_PK = ?", [.integer(key)]) {
            for case .blob(let column) in row { externalData.release(column) }
        }
    }

    /// Notes the external data files the rows `keys` of `table` refer to, before the save
    /// deletes them: they go once it is final.
    private func releaseExternalData(of keys: [Int64], in table: SQLiteSchema.TableMapping, on connection: SQLiteConnection) throws {
        let columns = table.externalDataColumns
        guard !columns.isEmpty else { return }
        let list = SQLFragment.list(keys.map { .integer($0) })
        for row in try connection.rows("SELECT \(raw: columns.joined(separator: ", ")) FROM \(raw: table.name) WHERE Z_PK IN (\(list))") {
            for case .blob(let column) in row { externalData.release(column) }
        }
    }

    /// The versions (`Z_OPT`) of the rows of `keys` that `table` holds.
    private func versions(of keys: some Collection<SQLiteDeleteBatches.Key>, in table: SQLiteSchema.TableMapping,
                          on connection: SQLiteConnection) throws -> [Int64: Int64] {
        var versions: [Int64: Int64] = [:]
        let list = SQLFragment.list(keys.map { .integer($0.primaryKey) })
        for row in try connection.rows("SELECT Z_PK, Z_OPT FROM \(raw: table.name) WHERE Z_PK IN (\(list))") {
            if let key = row[0].int64Value { versions[key] = row[1].int64Value ?? 0 }
        }
        return versions
    }

    /// The rows of `keys` missing from the store or at another version than the context saw.
    /// Read for the rows a save only locks, inside its transaction, and for deleted rows whose
    /// fate the transaction could not tell (see `delete`), after it was rolled back: a row
    /// missing then was gone before the save; one still at the version the context saw was
    /// deleted by this save, and is no failure. (Another writer may commit between the rollback
    /// and these reads; a row it changed then is reported too, as changed since this context
    /// read it.)
    private func failures(among keys: [SQLiteDeleteBatches.Key], on connection: SQLiteConnection) throws -> [OptimisticLockingFailure] {
        var failures: [OptimisticLockingFailure] = []
        for key in keys {
            guard let table = schema.mapping(for: key.objectID.entity)?.table else { continue }
            guard let version = try versions(of: [key], in: table, on: connection)[key.primaryKey] else {
                failures.append(OptimisticLockingFailure(objectID: key.objectID, storeVersion: 0))
                continue
            }
            if version != key.expectedVersion { failures.append(OptimisticLockingFailure(objectID: key.objectID, storeVersion: version)) }
        }
        return failures
    }

    private func lockingFailure(for objectID: NSManagedObjectID, table: SQLiteSchema.TableMapping,
                                on connection: SQLiteConnection) throws -> OptimisticLockingFailure {
        let current = try connection.scalar("SELECT Z_OPT FROM \(table.name) WHERE Z_PK = ?", [.integer(objectID.primaryKey ?? 0)])
        return OptimisticLockingFailure(objectID: objectID, storeVersion: current.int64Value ?? 0)
    }

    // MARK: To-many memberships

    private func write(_ change: SaveChanges.ToMany, resolve: (NSManagedObjectID?) -> Int64?, on connection: SQLiteConnection) throws {
        guard let source = resolve(change.source) else { return }
        let members = change.members.compactMap(resolve)
        if let join = schema.joinTables[ObjectIdentifier(change.relationship)] {
            try writeJoinRows(of: source, members: members, in: join, on: connection)
        } else if let destination = change.relationship.destinationEntity.flatMap(schema.mapping(for:)),
                  let orderColumn = destination.table.orderColumns[ObjectIdentifier(change.relationship)] {
            for (index, member) in members.enumerated() {
                try connection.run("UPDATE \(destination.table.name) SET \(orderColumn) = ? WHERE Z_PK = ?",
                                   [.integer(Int64(index + 1) * 1024), .integer(member)])
            }
        }
    }
}

extension SQLiteStore {
    /// Makes the join-table rows of `source` match `members`, touching only what differs: both
    /// sides of a many-to-many relationship share the rows, and each side's order column must
    /// survive the other side's write.
    fileprivate func writeJoinRows(of source: Int64, members: [Int64], in join: SQLiteSchema.JoinTable,
                                   on connection: SQLiteConnection) throws {
        var stale: [Int64] = []
        let wanted = Set(members)
        let existing = try connection.rows("SELECT \(join.destinationColumn) FROM \(join.name) WHERE \(join.sourceColumn) = ?",
                                           [.integer(source)])
        for row in existing {
            if let member = row[0].int64Value, !wanted.contains(member) { stale.append(member) }
        }
        for member in stale {
            try connection.run("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ? AND \(join.destinationColumn) = ?",
                               [.integer(source), .integer(member)])
        }
        let key = [join.sourceColumn, join.destinationColumn].sorted().joined(separator: ", ")
        for (index, member) in members.enumerated() {
            if let order = join.orderColumn {
                let sql = "INSERT INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn), \(order)) VALUES (?, ?, ?) "
                    + "ON CONFLICT (\(key)) DO UPDATE SET \(order) = excluded.\(order)"
                try connection.run(sql, [.integer(source), .integer(member), .integer(Int64(index + 1) * 1024)])
            } else {
                try connection.run("INSERT OR IGNORE INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn)) VALUES (?, ?)",
                                   [.integer(source), .integer(member)])
            }
        }
    }
}

/// The INSERT statement of the previous row's entity, reused while rows are of the same entity
/// (inserts come grouped by entity), so that neither the mapping nor the statement is looked up
/// per row.
struct InsertStatementCache {
    private var lastEntity: ObjectIdentifier?
    private var last: (mapping: SQLiteSchema.EntityMapping, statement: SQLiteStatement)?

    mutating func statement(for entity: NSEntityDescription, schema: SQLiteSchema, connection: SQLiteConnection) throws
        -> (SQLiteSchema.EntityMapping, SQLiteStatement)? {
        if let last, lastEntity == ObjectIdentifier(entity) {
            last.statement.reset()
            return last
        }
        guard let mapping = schema.mapping(for: entity) else { return nil }
        let statement = try connection.cachedStatement(mapping.insertSQL)
        statement.reset()
        lastEntity = ObjectIdentifier(entity)
        last = (mapping, statement)
        return (mapping, statement)
    }
}

/// The UPDATE statement of the previous row, reused while rows change the same columns of the
/// same entity (the usual case in a save), so that the SQL is not rebuilt and looked up per row.
struct UpdateStatementCache {
    private var lastMapping: ObjectIdentifier?
    private var lastAttributeSlots: [Int] = []
    private var lastRelationshipSlots: [Int] = []
    private var lastStatement: SQLiteStatement?

    mutating func statement(for mapping: SQLiteSchema.EntityMapping, _ attributeSlots: [Int], _ relationshipSlots: [Int],
                            make: () throws -> SQLiteStatement) throws -> SQLiteStatement {
        if let lastStatement, lastMapping == ObjectIdentifier(mapping), lastAttributeSlots == attributeSlots,
           lastRelationshipSlots == relationshipSlots {
            lastStatement.reset()
            return lastStatement
        }
        let statement = try make()
        lastMapping = ObjectIdentifier(mapping)
        lastAttributeSlots = attributeSlots
        lastRelationshipSlots = relationshipSlots
        lastStatement = statement
        return statement
    }
}
