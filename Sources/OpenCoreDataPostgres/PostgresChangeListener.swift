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
///
/// `NOTIFY` reaches only connections listening when the save commits. For a store that records
/// persistent history, the history is the durable record: when the listener connects again
/// after losing its connection (a server restart, a network failure), it reads the
/// transactions committed since the last one it was told of, and tells them.
final class PostgresChangeListener: @unchecked Sendable {
    // @unchecked Sendable: `connection` and `needsCatchUp` are used only by the listening thread;
    // `stopped`, `holdsReconnecting` and `history` synchronise themselves; the store and
    // coordinator are weak references; the rest is immutable.
    private let url: URL
    private let storeID: String
    private weak var store: PostgreSQLStore?
    private weak var coordinator: NSPersistentStoreCoordinator?
    private let stopped = Atomic<Bool>(false)
    /// While set, a lost connection is not made anew (for tests of what is missed meanwhile).
    let holdsReconnecting = Atomic<Bool>(false)
    private var connection: PostgresConnection?
    /// Set when the connection was lost: what was committed meanwhile is read from the history.
    private var needsCatchUp = false

    /// Where the listener is in the store's history (only for a store that records it).
    private struct HistoryPosition {
        /// The last transaction told (by a notice, or by reading the history).
        var lastSeen: Int64
        /// Transactions up to this one were read from the history: their notices are not told again.
        var caughtUpThrough: Int64
        /// Transactions the store's own writer committed whose notices have not come yet: not
        /// told when read from the history.
        var own: Set<Int64> = []
    }
    private let history: Mutex<HistoryPosition>
    /// Whether the store records history (a catch-up reads it).
    private let tracksHistory: Bool

    /// `lastTransaction`: the store's last history transaction when it records history (nil:
    /// it does not), so that a catch-up starts there.
    init(url: URL, storeID: String, store: PostgreSQLStore, coordinator: NSPersistentStoreCoordinator?, lastTransaction: Int64?) throws {
        self.url = url
        self.storeID = storeID
        self.store = store
        self.coordinator = coordinator
        history = Mutex(HistoryPosition(lastSeen: lastTransaction ?? 0, caughtUpThrough: lastTransaction ?? 0))
        tracksHistory = lastTransaction != nil
        // What was committed between reading the last transaction and listening is read once
        // the listening starts.
        needsCatchUp = tracksHistory
        connection = try Self.listeningConnection(url)
        listeningProcessID.store(connection?.backendProcessID ?? 0, ordering: .sequentiallyConsistent)
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

    /// The store's writer committed history transaction `number`: not to be told, should it be
    /// read from the history rather than its notice come.
    func committedOwn(_ number: Int64) {
        guard tracksHistory else { return }
        history.withLock { position in
            if number > position.lastSeen { position.own.insert(number) }
        }
    }

    /// The server process of the listening connection, 0 while there is none (for tests that
    /// cut it).
    let listeningProcessID = Atomic<Int32>(0)

    private func run() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            guard store != nil, coordinator != nil else { return }
            do {
                if connection == nil || connection?.isOpen == false {
                    needsCatchUp = true
                    if holdsReconnecting.load(ordering: .sequentiallyConsistent) {
                        Thread.sleep(forTimeInterval: 0.02)
                        continue
                    }
                    // The server went away: listen again once it is back.
                    connection = try? Self.listeningConnection(url)
                    listeningProcessID.store(connection?.backendProcessID ?? 0, ordering: .sequentiallyConsistent)
                    if connection == nil { Thread.sleep(forTimeInterval: 0.5) }
                    continue
                }
                // Listening again first, then reading what was missed: nothing falls between.
                if needsCatchUp { needsCatchUp = !catchUp() }
                for notification in try connection!.notifications(waitingUpTo: 0.1) { deliver(notification) }
            } catch {
                connection = nil
            }
        }
    }

    /// Tells the transactions other connections committed since the last one told, read from
    /// the store's history; false when they could not be read (tried again).
    private func catchUp() -> Bool {
        guard tracksHistory, let store, let coordinator else { return true }
        let after = history.withLock { $0.lastSeen }
        guard let transactions = try? store.lock.withLock({
            try store.historyTransactions(afterNumber: after, after: nil, includingChanges: true)
        }) else { return false }
        guard let last = transactions.last?.transactionNumber else { return true }
        let own = history.withLock { position in
            defer {
                position.lastSeen = max(position.lastSeen, last)
                position.caughtUpThrough = max(position.caughtUpThrough, last)
                position.own = position.own.filter { $0 > last }
            }
            return position.own
        }
        var inserted: Set<NSManagedObjectID> = [], updated: Set<NSManagedObjectID> = [], deleted: Set<NSManagedObjectID> = []
        for transaction in transactions where !own.contains(transaction.transactionNumber) {
            for change in transaction.changes ?? [] {
                switch change.changeType {
                case .insert: inserted.insert(change.changedObjectID)
                case .update: updated.insert(change.changedObjectID)
                case .delete: deleted.insert(change.changedObjectID)
                @unknown default: break
                }
            }
        }
        if !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) {
            post(to: coordinator, inserted: inserted, updated: updated, deleted: deleted, transaction: last)
        }
        return true
    }

    private func deliver(_ notification: PostgresConnection.Notification) {
        guard let store, let coordinator, notification.channel == PostgresChangeNotice.channel,
              let notice = PostgresChangeNotice(payload: notification.payload), notice.storeID == storeID else { return }
        let own = notification.senderProcessID == store.writerProcessID
        if let number = notice.transaction, tracksHistory {
            let alreadyTold = history.withLock { position in
                position.lastSeen = max(position.lastSeen, number)
                position.own.remove(number)
                return number <= position.caughtUpThrough
            }
            if alreadyTold { return }
        }
        guard !own else { return }
        let ids = notice.objectIDs(in: store)
        post(to: coordinator, inserted: ids.inserted, updated: ids.updated, deleted: ids.deleted, transaction: notice.transaction)
    }

    private func post(to coordinator: NSPersistentStoreCoordinator, inserted: Set<NSManagedObjectID>, updated: Set<NSManagedObjectID>,
                      deleted: Set<NSManagedObjectID>, transaction: Int64?) {
        var userInfo: [AnyHashable: Any] = [
            NSPersistentStoreURLKey: url, NSStoreUUIDKey: storeID,
            NSInsertedObjectIDsKey: inserted, NSUpdatedObjectIDsKey: updated, NSDeletedObjectIDsKey: deleted,
        ]
        if let transaction {
            userInfo[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(transactionNumbers: [storeID: transaction])
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
