import Foundation
import OCDPostgres
import OCDSQL
import OpenCoreDataCore
import Synchronization

/// Tells a PostgreSQL store's coordinator about the saves other connections — other app
/// servers, other processes — commit to the store: each save sends the keys of the rows it
/// inserted, updated and deleted with `NOTIFY` (`PostgresChangeNotice`), delivered when it
/// commits; a connection of this listener's own receives them and posts
/// `.NSPersistentStoreRemoteChange` with their object IDs, which contexts with
/// `automaticallyMergesChangesFromParent` merge. Saves of the store's own writer are not told.
final class PostgresChangeListener: @unchecked Sendable {
    // @unchecked Sendable: `connection` is used only by the listening thread; `stopped` is
    // atomic; the store and coordinator are weak references; the rest is immutable.
    private let url: URL
    private let storeID: String
    private weak var store: PostgreSQLStore?
    private weak var coordinator: NSPersistentStoreCoordinator?
    private let stopped = Atomic<Bool>(false)
    private var connection: PostgresConnection?

    init(url: URL, storeID: String, store: PostgreSQLStore, coordinator: NSPersistentStoreCoordinator?) throws {
        self.url = url
        self.storeID = storeID
        self.store = store
        self.coordinator = coordinator
        connection = try Self.listeningConnection(url)
    }

    private static func listeningConnection(_ url: URL) throws -> PostgresConnection {
        let connection = try PostgresConnection(url: url.absoluteString)
        try connection.listen(PostgresChangeNotice.channel)
        return connection
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "OpenCoreData PostgreSQL change listener"
        thread.start()
    }

    /// Stops listening; the thread ends within a tenth of a second.
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
    }

    private func run() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            guard store != nil, coordinator != nil else { return }
            do {
                if connection == nil || connection?.isOpen == false {
                    // The server went away: listen again once it is back (saves made meanwhile
                    // are not told; contexts read them when they next fetch).
                    connection = try? Self.listeningConnection(url)
                    if connection == nil { Thread.sleep(forTimeInterval: 0.5) }
                    continue
                }
                for notification in try connection!.notifications(waitingUpTo: 0.1) { deliver(notification) }
            } catch {
                connection = nil
            }
        }
    }

    private func deliver(_ notification: PostgresConnection.Notification) {
        guard let store, let coordinator, notification.channel == PostgresChangeNotice.channel,
              notification.senderProcessID != store.writerProcessID,
              let notice = PostgresChangeNotice(payload: notification.payload), notice.storeID == storeID else { return }
        let ids = notice.objectIDs(in: store)
        var userInfo: [AnyHashable: Any] = [
            NSPersistentStoreURLKey: url, NSStoreUUIDKey: storeID,
            NSInsertedObjectIDsKey: ids.inserted, NSUpdatedObjectIDsKey: ids.updated, NSDeletedObjectIDsKey: ids.deleted,
        ]
        if let number = notice.transaction {
            userInfo[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(transactionNumbers: [storeID: number])
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: userInfo)
    }
}

/// What a save tells other connections: the store's UUID, the number of the save's history
/// transaction when the store records history (`t42`), then a word per changed row — `i`, `u`
/// or `d`, the row's `Z_ENT`, a colon, its `Z_PK` (`i3:17`) — in payloads of at most about
/// 7,000 bytes (PostgreSQL's limit is 8,000), several for a large save.
struct PostgresChangeNotice {
    static let channel = "ocd_changes"
    static let payloadLimit = 7_000

    let storeID: String
    var transaction: Int64?
    var rows: [(kind: Character, entity: Int64, key: Int64)]

    init(storeID: String, transaction: Int64? = nil, rows: [(kind: Character, entity: Int64, key: Int64)]) {
        self.storeID = storeID
        self.transaction = transaction
        self.rows = rows
    }

    init?(payload: String) {
        var words = payload.split(separator: " ")[...]
        guard let first = words.popFirst() else { return nil }
        storeID = String(first)
        if let word = words.first, word.first == "t", let number = Int64(word.dropFirst()) {
            transaction = number
            words = words.dropFirst()
        }
        rows = words.compactMap { word in
            guard let kind = word.first, "iud".contains(kind), let colon = word.firstIndex(of: ":"),
                  let entity = Int64(word[word.index(after: word.startIndex)..<colon]),
                  let key = Int64(word[word.index(after: colon)...]) else { return nil }
            return (kind, entity, key)
        }
    }

    /// The payloads that carry the rows.
    var payloads: [String] {
        let head = storeID + (transaction.map { " t\($0)" } ?? "")
        var payloads: [String] = []
        var current = head
        for row in rows {
            let word = " \(row.kind)\(row.entity):\(row.key)"
            if current.utf8.count + word.utf8.count > Self.payloadLimit {
                payloads.append(current)
                current = head
            }
            current += word
        }
        if current != head || payloads.isEmpty { payloads.append(current) }
        return payloads
    }

    /// The statements that send the payloads, delivered when the save commits.
    var statements: [(sql: String, arguments: [SQLValue])] {
        payloads.map { ("SELECT pg_notify(?, ?)", [.text(Self.channel), .text($0)]) }
    }

    /// The rows as object IDs of `store`; rows of entities it does not know are left out.
    func objectIDs(in store: PostgreSQLStore) -> (inserted: Set<NSManagedObjectID>, updated: Set<NSManagedObjectID>, deleted: Set<NSManagedObjectID>) {
        var inserted: Set<NSManagedObjectID> = [], updated: Set<NSManagedObjectID> = [], deleted: Set<NSManagedObjectID> = []
        for row in rows {
            guard let entity = store.schema.mapping(number: row.entity)?.entity else { continue }
            let id = NSManagedObjectID(entity: entity, store: store, primaryKey: row.key)
            switch row.kind {
            case "i": inserted.insert(id)
            case "u": updated.insert(id)
            default: deleted.insert(id)
            }
        }
        return (inserted, updated, deleted)
    }
}
