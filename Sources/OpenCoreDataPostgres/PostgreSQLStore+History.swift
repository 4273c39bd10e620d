import Foundation
import OCDPostgres
import OCDSQL
import OpenCoreDataCore
import OpenCoreDataSQLite

/// Persistent history in the PostgreSQL store: each save (and batch request) of a store added
/// with `NSPersistentHistoryTrackingKey` writes one `ATRANSACTION` row and one `ACHANGE` row per
/// changed object in the save's own transaction, as the SQLite store does
/// (`PostgresHistoryTables`): history and data commit together, on every server. Reads run on a
/// reader connection, a request's reads in one `REPEATABLE READ` snapshot.
extension PostgreSQLStore: PersistentHistoryStore {
    var tracksHistory: Bool { StoreOptionFlag.isOn(options?[NSPersistentHistoryTrackingKey]) }

    /// Creates the history tables of a store that tracks history; opens a store whose history
    /// was tracked read-only when it is added without tracking, as Core Data does (its saves
    /// would leave gaps in a history that readers — on every server — trust). Runs in the
    /// transaction that opens the store, under its lock.
    func prepareHistory(on connection: PostgresConnection) throws {
        if tracksHistory {
            guard !isReadOnly, try !PostgresHistoryTables.complete(on: connection) else { return }
            for statement in PostgresHistoryTables.creationStatements { try connection.execute(statement) }
        } else if !isReadOnly, try PostgresHistoryTables.exist(on: connection) {
            isReadOnly = true
        }
    }

    // MARK: Recording

    /// The stored values of the attributes that keep their values in history
    /// (`preservesValueInHistoryOnDeletion`) of each deleted row whose entity has some, in
    /// `ZTOMBSTONE<n>` order; read before the rows go, one query per entity and thousand rows.
    func tombstoneValues(of deleted: [SaveChanges.Row], on connection: PostgresConnection) throws -> [NSManagedObjectID: [SQLValue]] {
        var values: [NSManagedObjectID: [SQLValue]] = [:]
        let byEntity = Dictionary(grouping: deleted) { ObjectIdentifier($0.objectID.entity) }
        for rows in byEntity.values {
            let entity = rows[0].objectID.entity
            let attributes = HistoryColumns.tombstoneAttributes(of: entity)
            guard !attributes.isEmpty, let mapping = schema.mapping(for: entity) else { continue }
            let columns = attributes.map { mapping.attributeColumns[$0.attributeSlot] ?? "NULL" }.joined(separator: ", ")
            var idsByKey: [Int64: NSManagedObjectID] = [:]
            for row in rows { if let key = row.objectID.primaryKey { idsByKey[key] = row.objectID } }
            let keys = idsByKey.keys.sorted()
            for start in stride(from: 0, to: keys.count, by: 1000) {
                let list = SQLFragment.list(keys[start..<min(start + 1000, keys.count)].map { .integer($0) })
                let result = try connection.query("SELECT Z_PK, \(raw: columns) FROM \(raw: mapping.table.name) WHERE Z_PK IN (\(list))")
                for row in 0..<result.rowCount {
                    guard let id = idsByKey[result.int64(row, 0)] else { continue }
                    values[id] = attributes.indices.map { result.value(row, $0 + 1) }
                }
            }
        }
        return values
    }

    /// Records the save being written as one transaction of history, at its end: the
    /// transaction's number is taken last, and its row lock held until the save commits (see
    /// `PostgresHistoryTables`). Returns the number; nil when the save changed nothing.
    func recordHistory(of changes: SaveChanges, insertedIDs: [NSManagedObjectID], tombstones: [NSManagedObjectID: [SQLValue]],
                       resolve: (NSManagedObjectID?) -> Int64?, on connection: PostgresConnection) throws -> Int64? {
        let rows = HistoryChangeRow.rows(of: changes, insertedIDs: insertedIDs, tombstones: tombstones, resolve: resolve, schema: schema)
        guard !rows.isEmpty else { return nil }
        let transaction = try PostgresHistoryTables.allocateKeys(1, of: PostgresHistoryTables.transactionEntity, on: connection)
        let process = ProcessInfo.processInfo.processName
        let bundle = Bundle.main.bundleIdentifier ?? process
        let authorship = changes.authorship
        let keys = try PostgresHistoryTables.stringKeys(Set([authorship.author, bundle, authorship.contextName, process].compactMap { $0 }),
                                                        on: connection)
        func key(_ name: String?) -> SQLValue { name.flatMap { keys[$0] }.map { .integer($0) } ?? .null }
        let first = try PostgresHistoryTables.allocateKeys(rows.count, of: PostgresHistoryTables.changeEntity, on: connection)
        let needed = rows.reduce(0) { max($0, $1.tombstone?.count ?? 0) }
        if needed > tombstoneColumnsSeen {
            // Counted again only while a save needs more than the store has seen committed.
            let existing = try PostgresHistoryTables.tombstoneColumnCount(on: connection)
            try PostgresHistoryTables.addTombstoneColumns(from: existing, upTo: needed, on: connection)
            tombstoneColumnsSeen = existing
        }
        var statements: [(sql: String, arguments: [SQLValue])] = [(
            "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [.integer(transaction), .integer(PostgresHistoryTables.transactionEntity), key(authorship.author), key(bundle),
             key(authorship.contextName), key(process), .real(Date().timeIntervalSinceReferenceDate)]
        )]
        statements += PostgresHistoryTables.changeInsertions(rows, firstKey: first, transaction: transaction)
        statements += try pruning(last: transaction, on: connection)
        _ = try connection.runBatch(statements)
        return transaction
    }

    /// The statements that delete, inside the save being written, the history the store's
    /// retention (`OCDPersistentHistoryRetentionOption`) does not keep.
    private func pruning(last: Int64, on connection: PostgresConnection) throws -> [(sql: String, arguments: [SQLValue])] {
        guard let retention = options?[OCDPersistentHistoryRetentionOption] as? PersistentHistoryRetention else { return [] }
        let through: Int64?
        switch retention.rule {
        case .transactions(let count):
            through = last - Int64(count)
        case .age(let seconds):
            through = try connection.scalar("SELECT max(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP < ?",
                                             [.real(Date().timeIntervalSinceReferenceDate - seconds)]).int64Value
        case .readByEveryConsumer:
            through = try PostgresHistoryTables.consumers(on: connection).values.min()
        }
        // Never the transaction being written.
        guard let through = through.map({ min($0, last - 1) }), through > 0 else { return [] }
        return Self.historyDeletions(condition: "Z_PK <= ?", arguments: [.integer(through)])
    }

    /// The statements that delete the transactions `condition` selects, with their changes.
    private static func historyDeletions(condition: String, arguments: [SQLValue]) -> [(sql: String, arguments: [SQLValue])] {
        [("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition))", arguments),
         ("DELETE FROM ATRANSACTION WHERE \(condition)", arguments)]
    }

    // MARK: Reading

    func historyTransactions(afterNumber number: Int64?, after date: Date?, includingChanges: Bool) throws
        -> [NSPersistentHistoryTransaction] {
        try readingHistory { connection in
            guard try PostgresHistoryTables.exist(on: connection) else { return [] }
            let (condition, arguments) = Self.transactionCondition(afterNumber: number, after: date)
            let changes = includingChanges ? try readChanges(condition: condition, arguments: arguments, on: connection) : [:]
            let strings = try PostgresHistoryTables.strings(on: connection)
            let result = try connection.query("""
                SELECT Z_PK, ZTIMESTAMP, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZAUTHOR, ZBUNDLEID, ZCONTEXTNAME, ZPROCESSID
                FROM ATRANSACTION WHERE \(condition) ORDER BY Z_PK
                """, arguments)
            return (0..<result.rowCount).map { row in
                func string(_ keyColumn: Int, _ textColumn: Int) -> String? {
                    result.isNull(row, keyColumn) ? result.string(row, textColumn) : strings[result.int64(row, keyColumn)]
                }
                let key = result.int64(row, 0)
                return NSPersistentHistoryTransaction(
                    timestamp: Date(timeIntervalSinceReferenceDate: result.double(row, 1)),
                    changes: includingChanges ? changes[key] ?? [] : nil, transactionNumber: key,
                    storeID: identifier, bundleID: string(3, 7) ?? "", processID: string(5, 9) ?? "",
                    contextName: string(4, 8), author: string(2, 6))
            }
        }
    }

    /// The changes of the transactions `condition` selects, by transaction.
    private func readChanges(condition: String, arguments: [SQLValue], on connection: PostgresConnection) throws
        -> [Int64: [NSPersistentHistoryChange]] {
        let tombstoneColumns = try PostgresHistoryTables.tombstoneColumnCount(on: connection)
        let tombstoneList = (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0)" }.joined()
        let result = try connection.query("""
            SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneList) FROM ACHANGE
            WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition)) ORDER BY Z_PK
            """, arguments)
        var changes: [Int64: [NSPersistentHistoryChange]] = [:]
        // Each entity's numbering and tombstone attributes, worked out once per read.
        var layouts: [ObjectIdentifier: (numbered: [NSPropertyDescription], tombstone: [NSAttributeDescription])] = [:]
        for row in 0..<result.rowCount {
            guard let type = NSPersistentHistoryChangeType(rawValue: Int(result.int64(row, 1))),
                  let entity = schema.mapping(number: result.int64(row, 2))?.entity else { continue }
            let layout = layouts[ObjectIdentifier(entity)] ?? {
                let layout = (HistoryColumns.numbered(entity), HistoryColumns.tombstoneAttributes(of: entity))
                layouts[ObjectIdentifier(entity)] = layout
                return layout
            }()
            let id = NSManagedObjectID(entity: entity, store: self, primaryKey: result.int64(row, 3))
            let updated = type == .update ? HistoryColumns.properties(in: result.data(row, 5) ?? Data(), numbered: layout.numbered) : nil
            var tombstone: [AnyHashable: Any]?
            if type == .delete, !layout.tombstone.isEmpty {
                var values: [AnyHashable: Any] = [:]
                for (index, attribute) in layout.tombstone.enumerated() where index < tombstoneColumns {
                    guard let stored = result.data(row, 6 + index) else { continue }
                    let value = PostgresValueCoding.value(PostgresTombstoneCoding.value(stored), of: attribute)
                    values[attribute.name] = value.objectValue(for: attribute.attributeType)
                }
                tombstone = values
            }
            changes[result.int64(row, 4), default: []].append(NSPersistentHistoryChange(
                changeID: result.int64(row, 0), changedObjectID: id, changeType: type, tombstone: tombstone, updatedProperties: updated))
        }
        return changes
    }

    private static func transactionCondition(afterNumber number: Int64?, after date: Date?) -> (String, [SQLValue]) {
        var clauses = ["TRUE"]
        var arguments: [SQLValue] = []
        if let number {
            clauses.append("Z_PK > ?")
            arguments.append(.integer(number))
        }
        if let date {
            clauses.append("ZTIMESTAMP > ?")
            arguments.append(.real(date.timeIntervalSinceReferenceDate))
        }
        return (clauses.joined(separator: " AND "), arguments)
    }

    func historyBounds() throws -> (last: Int64, deletedThrough: Int64) {
        try readingHistory { connection in
            guard try PostgresHistoryTables.exist(on: connection) else { return (0, 0) }
            let last = try PostgresHistoryTables.lastTransaction(on: connection)
            let first = try connection.scalar("SELECT min(Z_PK) FROM ATRANSACTION").int64Value
            return (last, first.map { $0 - 1 } ?? last)
        }
    }

    func historyConsumers() throws -> [String: Int64] {
        try readingHistory { connection in
            try PostgresHistoryTables.exist(on: connection) ? try PostgresHistoryTables.consumers(on: connection) : [:]
        }
    }

    /// Runs `body`'s reads in one `REPEATABLE READ` snapshot of a reader connection, so that
    /// transactions and their changes, and the bounds checked before them, agree while other
    /// servers write.
    func readingHistoryConsistently<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            try reading { connection in
                try connection.transaction(isolation: "REPEATABLE READ READ ONLY") {
                    historyReader = connection
                    defer { historyReader = nil }
                    return try body()
                }
            }
        }
    }

    /// Runs `body` on the snapshot `readingHistoryConsistently` holds (on this thread: it holds
    /// the store's lock meanwhile), or else on a reader.
    private func readingHistory<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        if let historyReader = lock.withLock({ historyReader }) { return try failing(.persistentStoreOperation) { try body(historyReader) } }
        return try reading(body)
    }

    // MARK: Deleting and consumers

    func deleteHistory(throughNumber number: Int64?, before date: Date?, reportingObjectIDs: Bool) throws
        -> (count: Int, objectIDs: [NSManagedObjectID]) {
        var clauses = ["TRUE"]
        var arguments: [SQLValue] = []
        if let number {
            clauses.append("Z_PK <= ?")
            arguments.append(.integer(number))
        }
        if let date {
            // A prefix of the history, even if a server's clock went back: what lies before the
            // last transaction written before `date`.
            clauses.append("Z_PK <= coalesce((SELECT max(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP < ?), 0)")
            arguments.append(.real(date.timeIntervalSinceReferenceDate))
        }
        let condition = clauses.joined(separator: " AND ")
        return try writingHistory { connection in
            guard try PostgresHistoryTables.exist(on: connection) else { return (0, []) }
            // The last transaction to go, found once: each statement below reads the newest
            // commits, and another server's transaction committed meanwhile must not lose its
            // row and keep its changes. (Numbers follow commits: what is committed later is
            // numbered higher.)
            guard let through = try connection.scalar("SELECT max(Z_PK) FROM ATRANSACTION WHERE \(condition)", arguments).int64Value else {
                return (0, [])
            }
            var objectIDs: [NSManagedObjectID] = []
            if reportingObjectIDs {
                let result = try connection.query("SELECT ZENTITY, ZENTITYPK FROM ACHANGE WHERE ZTRANSACTIONID <= ? ORDER BY Z_PK",
                                                  [.integer(through)])
                objectIDs = (0..<result.rowCount).compactMap { row in
                    schema.mapping(number: result.int64(row, 0)).map {
                        NSManagedObjectID(entity: $0.entity, store: self, primaryKey: result.int64(row, 1))
                    }
                }
            }
            let counts = try connection.runBatch(Self.historyDeletions(condition: "Z_PK <= ?", arguments: [.integer(through)]))
            return (counts.first ?? 0, objectIDs)
        }
    }

    func markHistoryRead(through number: Int64, byConsumer consumer: String) throws {
        try writingHistory { connection in
            // Not past the last transaction (a token of a history that began again, or a bogus
            // one), which would let pruning delete what nobody has read.
            let last = try PostgresHistoryTables.lastTransaction(on: connection)
            try PostgresHistoryTables.setConsumer(consumer, readThrough: min(number, last), on: connection)
        }
    }

    /// Runs `body` in a transaction of the writer connection, refused on a read-only store and
    /// while a save is being written on it.
    private func writingHistory<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try lock.withLock {
            guard !isReadOnly else {
                throw CoreDataError.store(.persistentStoreOperation, "The store in \(place) is read-only: its history cannot change", url: url)
            }
            guard !savePrepared else {
                throw CoreDataError.store(.persistentStoreOperation, "A save is being written to the store in \(place): change its history after it", url: url)
            }
            let connection = try liveConnection()
            return try failing(.persistentStoreOperation) { try connection.transaction { try body(connection) } }
        }
    }
}
