import Foundation
import OCDSQLite
import OpenCoreDataCore

/// Persistent history in the SQLite store: each save (and batch request, which saves through
/// the same path) of a store added with `NSPersistentHistoryTrackingKey` writes one
/// `ATRANSACTION` row and one `ACHANGE` row per changed object, inside the save's own
/// transaction, so that history and data are committed (or lost) together.
///
/// `ACHANGE.ZCOLUMNS` of an update holds the properties it changed as a bit set, most
/// significant bit first (bit n is `0x80 >> (n % 8)` of byte n / 8), bit n standing for the
/// n-th non-transient property of the entity (inherited ones included, attributes and
/// relationships together) in name order: the layout a public, third-party description reports
/// from Apple-written stores (Docs/Differences.md), not verified here on a store of our corpus.
extension SQLiteStore: PersistentHistoryStore {
    var tracksHistory: Bool { StoreOptionFlag.isOn(options?[NSPersistentHistoryTrackingKey]) }

    /// Creates the history tables of a store that tracks history; opens a store whose history
    /// was tracked read-only when it is added without tracking, as Core Data does (its saves
    /// would leave gaps in a history that readers trust).
    func prepareHistory(on connection: SQLiteConnection) throws {
        guard !isReadOnly, tracksHistory, try !SQLiteHistoryTables.complete(on: connection) else { return }
        try connection.transaction { try SQLiteHistoryTables.create(on: connection) }
    }

    /// Makes the store read-only when its file has history tables and it is added without
    /// tracking (a store that needs migrating then reports it is incompatible: it can only be
    /// migrated with tracking on).
    func refuseWritesWithoutTracking(on connection: SQLiteConnection) throws {
        if !isReadOnly, !tracksHistory, try SQLiteHistoryTables.exist(on: connection) { isReadOnly = true }
    }

    /// Runs `commit`, telling the remote-change watcher (if any) that `transactions` are the
    /// store's own, at the same moment: it never sees them committed and not yet told.
    func committingHistory(_ transactions: [Int64], _ commit: () throws -> Void) throws {
        if let remoteChangeWatcher {
            try remoteChangeWatcher.committing(transactions, commit)
        } else {
            try commit()
        }
    }

    /// Starts posting `.NSPersistentStoreRemoteChange` for other connections' commits, when the
    /// store was added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`.
    func startWatchingRemoteChanges(url: URL) throws {
        guard StoreOptionFlag.isOn(options?[NSPersistentStoreRemoteChangeNotificationPostOptionKey]) else { return }
        let watcher = try SQLiteRemoteChangeWatcher(url: url, storeID: identifier, tracksHistory: tracksHistory,
                                                    coordinator: persistentStoreCoordinator)
        watcher.start()
        remoteChangeWatcher = watcher
    }

    // MARK: Recording

    /// Records the save being written as one transaction of history.
    func recordHistory(of changes: SaveChanges, insertedIDs: [NSManagedObjectID], tombstones: [NSManagedObjectID: [SQLiteValue]],
                       resolve: (NSManagedObjectID?) -> Int64?, on connection: SQLiteConnection) throws {
        let rows = HistoryChangeRow.rows(of: changes, insertedIDs: insertedIDs, tombstones: tombstones, resolve: resolve, schema: schema)
        guard !rows.isEmpty else { return }
        let transaction = try writeTransactionRow(authorship: changes.authorship, on: connection)
        let first = try SQLiteHistoryTables.allocateKeys(Int64(rows.count), of: SQLiteHistoryTables.changeEntity, on: connection)
        try SQLiteHistoryTables.insertChanges(rows, firstKey: first, transaction: transaction, on: connection)
        historyOfTry = transaction
        if !tombstones.isEmpty { try SQLiteHistoryTables.writeTombstones(of: rows, firstKey: first, on: connection) }
        if let retention = options?[OCDPersistentHistoryRetentionOption] as? PersistentHistoryRetention {
            try prune(keeping: retention, last: transaction, on: connection)
        }
    }

    /// Deletes, inside the save being written, the history `retention` does not keep.
    private func prune(keeping retention: PersistentHistoryRetention, last: Int64, on connection: SQLiteConnection) throws {
        let through: Int64?
        switch retention.rule {
        case .transactions(let count):
            through = last - Int64(count)
        case .age(let seconds):
            through = try connection.scalar("SELECT max(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP < ?",
                                             [.real(Date().timeIntervalSinceReferenceDate - seconds)]).int64Value
        case .readByEveryConsumer:
            through = try SQLiteHistoryTables.consumers(on: connection).values.min()
        }
        // Never the transaction being written.
        guard let through = through.map({ min($0, last - 1) }), through > 0 else { return }
        _ = try deleteHistoryRows(condition: "Z_PK <= ?", arguments: [.integer(through)], reportingObjectIDs: false, on: connection)
    }

    func markHistoryRead(through number: Int64, byConsumer consumer: String) throws {
        let connection = try liveConnection()
        guard !isReadOnly else { throw readOnlyRefusal() }
        guard !writesHeld else { throw heldWritesRefusal() }
        // Not past the last transaction (a token of a history that began again, or a bogus one),
        // which would let pruning delete what nobody has read.
        let last = try readHistoryBounds().last
        try namingTheFile {
            try connection.transaction { try SQLiteHistoryTables.setConsumer(consumer, readThrough: min(number, last), on: connection) }
        }
    }

    func historyConsumers() throws -> [String: Int64] {
        try namingTheFile { try SQLiteHistoryTables.consumers(on: try liveConnection()) }
    }

    /// The stored values of the attributes that keep their values in history
    /// (`preservesValueInHistoryOnDeletion`) of each deleted row whose entity has some, in
    /// `ZTOMBSTONE<n>` order; read before the rows go.
    func tombstoneValues(of deleted: [SaveChanges.Row], on connection: SQLiteConnection) throws -> [NSManagedObjectID: [SQLiteValue]] {
        var values: [NSManagedObjectID: [SQLiteValue]] = [:]
        // Each entity's query (nil: it keeps nothing), made once per save.
        var queries: [ObjectIdentifier: (sql: String, attributes: [NSAttributeDescription])?] = [:]
        for row in deleted {
            let entity = row.objectID.entity
            let query = queries[ObjectIdentifier(entity)] ?? {
                let attributes = HistoryColumns.tombstoneAttributes(of: entity)
                guard !attributes.isEmpty, let mapping = schema.mapping(for: entity) else { return nil }
                let columns = attributes.map { mapping.attributeColumns[$0.attributeSlot].map { "\"\($0)\"" } ?? "NULL" }
                return ("SELECT \(columns.joined(separator: ", ")) FROM \(mapping.table.name) WHERE Z_PK = ?", attributes)
            }()
            queries[ObjectIdentifier(entity)] = .some(query)
            guard let query, let key = row.objectID.primaryKey else { continue }
            let statement = try connection.cachedStatement(query.sql)
            try statement.bind(key, at: 1)
            defer { statement.reset() }
            guard try statement.step() else { continue }
            values[row.objectID] = try query.attributes.indices.map { index in
                try keptInRow(statement.value(at: index), of: query.attributes[index], key: key)
            }
        }
        return values
    }

    /// A tombstone keeps an external-storage value in the row: its file goes with the object.
    /// A file that can't be read leaves the tombstone without the value: it must not stop the
    /// delete.
    private func keptInRow(_ value: SQLiteValue, of attribute: NSAttributeDescription, key: Int64) throws -> SQLiteValue {
        guard attribute.storesDataExternally, case .blob(let column) = value, ExternalDataColumn.referencedName(in: column) != nil else {
            return value
        }
        guard let data = try? externalData.value(ofColumn: column, object: "the object \(attribute.entity?.name ?? "?") \(key)", attribute: attribute) else {
            return .null
        }
        return .blob(ExternalDataColumn.inline(data))
    }

    private func writeTransactionRow(authorship: HistoryAuthorship, on connection: SQLiteConnection) throws -> Int64 {
        let transaction = try SQLiteHistoryTables.allocateKeys(1, of: SQLiteHistoryTables.transactionEntity, on: connection)
        let process = ProcessInfo.processInfo.processName
        func key(_ name: String?) throws -> SQLiteValue {
            try name.map { .integer(try SQLiteHistoryTables.stringKey($0, on: connection)) } ?? .null
        }
        try connection.run("""
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [
                .integer(transaction), .integer(SQLiteHistoryTables.transactionEntity), try key(authorship.author),
                try key(Bundle.main.bundleIdentifier ?? process), try key(authorship.contextName), try key(process),
                .real(Date().timeIntervalSinceReferenceDate),
            ])
        return transaction
    }

    // MARK: Reading

    func historyTransactions(afterNumber number: Int64?, after date: Date?, includingChanges: Bool) throws
        -> [NSPersistentHistoryTransaction] {
        try namingTheFile { try readHistoryTransactions(afterNumber: number, after: date, includingChanges: includingChanges) }
    }

    private func readHistoryTransactions(afterNumber number: Int64?, after date: Date?, includingChanges: Bool) throws
        -> [NSPersistentHistoryTransaction] {
        let connection = try liveConnection()
        guard try SQLiteHistoryTables.exist(on: connection) else { return [] }
        let (condition, arguments) = Self.transactionCondition(afterNumber: number, after: date)
        let strings = try SQLiteHistoryTables.strings(on: connection)
        var changesByTransaction: [Int64: [NSPersistentHistoryChange]] = [:]
        if includingChanges {
            let tombstoneColumns = try SQLiteHistoryTables.tombstoneColumnCount(on: connection)
            let tombstoneList = (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0)" }.joined()
            let statement = try connection.prepare("""
                SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneList) FROM ACHANGE
                WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition)) ORDER BY Z_PK
                """)
            try statement.bind(arguments)
            // Each entity's numbering and tombstone attributes, worked out once per read rather
            // than once per change.
            var entities: [ObjectIdentifier: (numbered: [NSPropertyDescription], tombstone: [NSAttributeDescription])] = [:]
            while try statement.step() {
                guard let type = NSPersistentHistoryChangeType(rawValue: Int(statement.int64(at: 1))),
                      let entity = schema.mapping(number: statement.int64(at: 2))?.entity else { continue }
                let layout = entities[ObjectIdentifier(entity)] ?? {
                    let layout = (HistoryColumns.numbered(entity), HistoryColumns.tombstoneAttributes(of: entity))
                    entities[ObjectIdentifier(entity)] = layout
                    return layout
                }()
                let id = NSManagedObjectID(entity: entity, store: self, primaryKey: statement.int64(at: 3))
                let updated = type == .update ? HistoryColumns.properties(in: statement.data(at: 5) ?? Data(), numbered: layout.numbered) : nil
                let tombstone = type == .delete ? Self.tombstone(of: layout.tombstone, in: statement, from: 6, count: tombstoneColumns) : nil
                let change = NSPersistentHistoryChange(changeID: statement.int64(at: 0), changedObjectID: id, changeType: type,
                                                       tombstone: tombstone, updatedProperties: updated)
                changesByTransaction[statement.int64(at: 4), default: []].append(change)
            }
        }
        var transactions: [NSPersistentHistoryTransaction] = []
        let statement = try connection.prepare("""
            SELECT Z_PK, ZTIMESTAMP, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZAUTHOR, ZBUNDLEID, ZCONTEXTNAME, ZPROCESSID
            FROM ATRANSACTION WHERE \(condition) ORDER BY Z_PK
            """)
        try statement.bind(arguments)
        func string(_ keyColumn: Int, _ textColumn: Int) -> String? {
            statement.isNull(at: keyColumn) ? statement.string(at: textColumn) : strings[statement.int64(at: keyColumn)]
        }
        while try statement.step() {
            let key = statement.int64(at: 0)
            transactions.append(NSPersistentHistoryTransaction(
                timestamp: Date(timeIntervalSinceReferenceDate: statement.double(at: 1)),
                changes: includingChanges ? changesByTransaction[key] ?? [] : nil, transactionNumber: key,
                storeID: identifier, bundleID: string(3, 7) ?? "", processID: string(5, 9) ?? "",
                contextName: string(4, 8), author: string(2, 6)))
        }
        return transactions
    }

    /// The values a deletion kept of `attributes` (an entity's, in `ZTOMBSTONE<n>` order), by
    /// name, from the statement's columns `first`…; nil when the entity keeps none.
    private static func tombstone(of attributes: [NSAttributeDescription], in statement: SQLiteStatement, from first: Int, count: Int)
        -> [AnyHashable: Any]? {
        guard !attributes.isEmpty else { return nil }
        var values: [AnyHashable: Any] = [:]
        for (index, attribute) in attributes.enumerated() where index < count && !statement.isNull(at: first + index) {
            var value = SQLiteValueCoding.read(statement, at: first + index, as: attribute)
            if attribute.storesDataExternally, case .data(let column) = value {
                // Tombstones keep such values in the row (`keptInRow`).
                guard case .inline(let data)? = try? ExternalDataColumn.content(of: column) else { continue }
                value = .data(data)
            }
            values[attribute.name] = value.objectValue(for: attribute.attributeType)
        }
        return values
    }

    private static func transactionCondition(afterNumber number: Int64?, after date: Date?) -> (String, [SQLiteValue]) {
        var clauses = ["1"]
        var arguments: [SQLiteValue] = []
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

    // MARK: Deleting

    func deleteHistory(throughNumber number: Int64?, before date: Date?, reportingObjectIDs: Bool) throws
        -> (count: Int, objectIDs: [NSManagedObjectID]) {
        try namingTheFile { try deleteHistoryTransactions(throughNumber: number, before: date, reportingObjectIDs: reportingObjectIDs) }
    }

    private func deleteHistoryTransactions(throughNumber number: Int64?, before date: Date?, reportingObjectIDs: Bool) throws
        -> (count: Int, objectIDs: [NSManagedObjectID]) {
        let connection = try liveConnection()
        guard !isReadOnly else { throw readOnlyRefusal() }
        guard !writesHeld else { throw heldWritesRefusal() }
        guard try SQLiteHistoryTables.exist(on: connection) else { return (0, []) }
        var clauses = ["1"]
        var arguments: [SQLiteValue] = []
        if let number {
            clauses.append("Z_PK <= ?")
            arguments.append(.integer(number))
        }
        if let date {
            // A prefix of the history, even if the clock went back: what lies before the last
            // transaction written before `date` (a token's expiry assumes history is deleted
            // from the start).
            clauses.append("Z_PK <= ifnull((SELECT max(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP < ?), 0)")
            arguments.append(.real(date.timeIntervalSinceReferenceDate))
        }
        let condition = clauses.joined(separator: " AND ")
        return try connection.transaction {
            try deleteHistoryRows(condition: condition, arguments: arguments, reportingObjectIDs: reportingObjectIDs, on: connection)
        }
    }

    /// Deletes the transactions `condition` selects, with their changes, in the transaction
    /// under way.
    private func deleteHistoryRows(condition: String, arguments: [SQLiteValue], reportingObjectIDs: Bool,
                                   on connection: SQLiteConnection) throws -> (count: Int, objectIDs: [NSManagedObjectID]) {
        var objectIDs: [NSManagedObjectID] = []
        if reportingObjectIDs {
            let rows = try connection.rows("""
                SELECT ZENTITY, ZENTITYPK FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition))
                ORDER BY Z_PK
                """, arguments)
            objectIDs = rows.compactMap { row in
                guard let number = row[0].int64Value, let key = row[1].int64Value,
                      let entity = schema.mapping(number: number)?.entity else { return nil }
                return NSManagedObjectID(entity: entity, store: self, primaryKey: key)
            }
        }
        try connection.run("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition))", arguments)
        let deleted = Int(try connection.scalar("SELECT changes()").int64Value ?? 0)
        try connection.run("DELETE FROM ATRANSACTION WHERE \(condition)", arguments)
        return (deleted, objectIDs)
    }

    /// Runs `body` on one state of the file (a savepoint: a read transaction of its own, or a
    /// part of the one a held save keeps open), so that transactions and their changes, and the
    /// bounds checked before them, agree even while other processes write.
    func readingHistoryConsistently<T>(_ body: () throws -> T) throws -> T {
        let connection = try liveConnection()
        try namingTheFile { try connection.execute("SAVEPOINT ocd_history_read") }
        defer { try? connection.execute("RELEASE ocd_history_read") }
        return try body()
    }

    func historyBounds() throws -> (last: Int64, deletedThrough: Int64) {
        try namingTheFile { try readHistoryBounds() }
    }

    private func readHistoryBounds() throws -> (last: Int64, deletedThrough: Int64) {
        let connection = try liveConnection()
        guard try SQLiteHistoryTables.exist(on: connection) else { return (0, 0) }
        let last = try SQLiteHistoryTables.lastTransaction(on: connection)
        let first = try connection.scalar("SELECT min(Z_PK) FROM ATRANSACTION").int64Value
        return (last, first.map { $0 - 1 } ?? last)
    }
}
