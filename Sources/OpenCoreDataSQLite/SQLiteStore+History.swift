import Foundation
import OCDSQLite
import OpenCoreDataCore

/// Persistent history in the SQLite store: each save (and batch request, which saves through
/// the same path) of a store added with `NSPersistentHistoryTrackingKey` writes one
/// `ATRANSACTION` row and one `ACHANGE` row per changed object, inside the save's own
/// transaction, so that history and data are committed (or lost) together.
///
/// `ACHANGE.ZCOLUMNS` of an update holds the properties it changed as a bit set: bit n (byte
/// n / 8, bit n % 8) for the n-th persistent property of the entity (inherited ones included)
/// in name order. How Apple's Core Data numbers these bits is not publicly described; this
/// numbering is OpenCoreData's choice (Docs/Differences.md).
extension SQLiteStore: PersistentHistoryStore {
    var tracksHistory: Bool { Self.tracksHistory(options) }

    static func tracksHistory(_ options: [AnyHashable: Any]?) -> Bool {
        switch options?[NSPersistentHistoryTrackingKey] {
        case let flag as Bool: flag
        case let number as NSNumber: number.boolValue
        default: false
        }
    }

    /// Creates the history tables of a store that tracks history; opens a store whose history
    /// was tracked read-only when it is added without tracking, as Core Data does (its saves
    /// would leave gaps in a history that readers trust).
    func prepareHistory(on connection: SQLiteConnection) throws {
        guard !isReadOnly else { return }
        if tracksHistory {
            try connection.transaction { try SQLiteHistoryTables.create(on: connection) }
        } else if try SQLiteHistoryTables.exist(on: connection) {
            isReadOnly = true
        }
    }

    // MARK: Recording

    /// Records the save being written as one transaction of history.
    func recordHistory(of changes: SaveChanges, insertedIDs: [NSManagedObjectID],
                       resolve: (NSManagedObjectID?) -> Int64?, on connection: SQLiteConnection) throws {
        var updates: [(id: NSManagedObjectID, key: Int64, properties: Set<String>)] = []
        var updateIndex: [NSManagedObjectID: Int] = [:]
        for row in changes.updated {
            guard let key = row.objectID.primaryKey else { continue }
            let layout = row.objectID.entity.layout
            var names = Set(row.changedAttributeSlots.map { layout.attributes[$0].name })
            names.formUnion(row.changedRelationshipSlots.map { layout.relationships[$0].name })
            if let object = changes.context?.registeredObject(for: row.objectID) {
                names.formUnion(object.changedToManyRelationshipNames)
            }
            updateIndex[row.objectID] = updates.count
            updates.append((row.objectID, key, names))
        }
        let insertedSources = Set(changes.inserted.map(\.objectID))
        let deletedSources = Set(changes.deleted.map(\.objectID))
        for change in changes.toMany where !insertedSources.contains(change.source) && !deletedSources.contains(change.source) {
            if let index = updateIndex[change.source] {
                updates[index].properties.insert(change.relationship.name)
            } else if let key = resolve(change.source) ?? change.source.primaryKey {
                updateIndex[change.source] = updates.count
                updates.append((change.source, key, [change.relationship.name]))
            }
        }
        let changeCount = Int64(changes.inserted.count + updates.count + changes.deleted.count)
        guard changeCount > 0 else { return }

        let transaction = try SQLiteHistoryTables.allocateKeys(1, of: SQLiteHistoryTables.transactionEntity, on: connection)
        let process = ProcessInfo.processInfo.processName
        try connection.run("""
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [
                .integer(transaction), .integer(SQLiteHistoryTables.transactionEntity),
                try changes.authorship.author.map { .integer(try SQLiteHistoryTables.stringKey($0, on: connection)) } ?? .null,
                .integer(try SQLiteHistoryTables.stringKey(Bundle.main.bundleIdentifier ?? process, on: connection)),
                try changes.authorship.contextName.map { .integer(try SQLiteHistoryTables.stringKey($0, on: connection)) } ?? .null,
                .integer(try SQLiteHistoryTables.stringKey(process, on: connection)),
                .real(Date().timeIntervalSinceReferenceDate),
            ])

        var next = try SQLiteHistoryTables.allocateKeys(changeCount, of: SQLiteHistoryTables.changeEntity, on: connection)
        let insert = try connection.cachedStatement("""
            INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        func record(_ type: NSPersistentHistoryChangeType, _ entity: NSEntityDescription, _ key: Int64, columns: Data?) throws {
            guard let number = schema.mapping(for: entity)?.number else { return }
            try insert.bind(next, at: 1)
            try insert.bind(SQLiteHistoryTables.changeEntity, at: 2)
            try insert.bind(Int64(type.rawValue), at: 3)
            try insert.bind(number, at: 4)
            try insert.bind(key, at: 5)
            try insert.bind(transaction, at: 6)
            if let columns { try insert.bind(columns, at: 7) } else { try insert.bindNull(at: 7) }
            try insert.run()
            next += 1
        }
        for (index, row) in changes.inserted.enumerated() {
            try record(.insert, row.objectID.entity, insertedIDs[index].primaryKey!, columns: nil)
        }
        for update in updates {
            try record(.update, update.id.entity, update.key, columns: HistoryColumns.bits(of: update.properties, in: update.id.entity))
        }
        for row in changes.deleted {
            guard let key = row.objectID.primaryKey else { continue }
            try record(.delete, row.objectID.entity, key, columns: nil)
        }
    }

    // MARK: Reading

    func historyTransactions(afterNumber number: Int64?, after date: Date?, includingChanges: Bool) throws
        -> [NSPersistentHistoryTransaction] {
        let connection = try liveConnection()
        guard try SQLiteHistoryTables.exist(on: connection) else { return [] }
        let (condition, arguments) = Self.transactionCondition(afterNumber: number, after: date)
        let strings = try SQLiteHistoryTables.strings(on: connection)
        var changesByTransaction: [Int64: [NSPersistentHistoryChange]] = [:]
        if includingChanges {
            let statement = try connection.prepare("""
                SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE
                WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition)) ORDER BY Z_PK
                """)
            try statement.bind(arguments)
            while try statement.step() {
                guard let type = NSPersistentHistoryChangeType(rawValue: Int(statement.int64(at: 1))),
                      let entity = schema.mapping(number: statement.int64(at: 2))?.entity else { continue }
                let id = NSManagedObjectID(entity: entity, store: self, primaryKey: statement.int64(at: 3))
                let updated = type == .update ? HistoryColumns.properties(in: statement.data(at: 5) ?? Data(), of: entity) : nil
                let change = NSPersistentHistoryChange(changeID: statement.int64(at: 0), changedObjectID: id, changeType: type,
                                                       tombstone: nil, updatedProperties: updated)
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

    func deleteHistory(throughNumber number: Int64?, before date: Date?) throws -> Int {
        let connection = try liveConnection()
        guard !isReadOnly else {
            throw CoreDataError.store(.persistentStoreSave, "The store \(url?.path ?? "?") is read-only", url: url)
        }
        guard !writesHeld else { throw heldWritesRefusal() }
        guard try SQLiteHistoryTables.exist(on: connection) else { return 0 }
        var clauses = ["1"]
        var arguments: [SQLiteValue] = []
        if let number {
            clauses.append("Z_PK <= ?")
            arguments.append(.integer(number))
        }
        if let date {
            clauses.append("ZTIMESTAMP < ?")
            arguments.append(.real(date.timeIntervalSinceReferenceDate))
        }
        let condition = clauses.joined(separator: " AND ")
        return try connection.transaction {
            try connection.run("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition))", arguments)
            let deleted = Int(try connection.scalar("SELECT changes()").int64Value ?? 0)
            try connection.run("DELETE FROM ATRANSACTION WHERE \(condition)", arguments)
            return deleted
        }
    }

    func historyBounds() throws -> (last: Int64, deletedThrough: Int64) {
        let connection = try liveConnection()
        guard try SQLiteHistoryTables.exist(on: connection) else { return (0, 0) }
        let last = try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
                                         [.integer(SQLiteHistoryTables.transactionEntity)]).int64Value ?? 0
        let first = try connection.scalar("SELECT min(Z_PK) FROM ATRANSACTION").int64Value
        return (last, first.map { $0 - 1 } ?? last)
    }
}

/// The bit set of `ACHANGE.ZCOLUMNS` (see `SQLiteStore+History`).
enum HistoryColumns {
    /// The persistent properties bits are numbered over: inherited ones included, in name order.
    static func numbered(_ entity: NSEntityDescription) -> [NSPropertyDescription] {
        entity.propertiesByName.values.filter { !$0.isTransient }.sorted { $0.name < $1.name }
    }

    static func bits(of names: Set<String>, in entity: NSEntityDescription) -> Data? {
        guard !names.isEmpty else { return nil }
        let properties = numbered(entity)
        var bytes = [UInt8](repeating: 0, count: (properties.count + 7) / 8)
        for (index, property) in properties.enumerated() where names.contains(property.name) {
            bytes[index / 8] |= 1 << UInt8(index % 8)
        }
        return Data(bytes)
    }

    static func properties(in bits: Data, of entity: NSEntityDescription) -> Set<NSPropertyDescription> {
        let properties = numbered(entity)
        var chosen = Set<NSPropertyDescription>()
        for (offset, byte) in bits.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << UInt8(bit)) != 0 {
                let index = offset * 8 + bit
                if index < properties.count { chosen.insert(properties[index]) }
            }
        }
        return chosen
    }
}
