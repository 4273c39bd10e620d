import Dispatch
import Foundation
import OCDSQLite
import OpenCoreDataCore
import Synchronization

/// Watches a SQLite store's file for commits made by other connections — another coordinator,
/// another process — and posts `.NSPersistentStoreRemoteChange` for them.
///
/// A connection of its own asks SQLite every `interval` whether another connection committed
/// since it last asked (`PRAGMA data_version`, which costs no read of the database). When the
/// store tracks history, the newest transaction number says what is new, and transactions the
/// store's own writer committed (`noteOwnTransaction`) are not announced.
final class SQLiteRemoteChangeWatcher: @unchecked Sendable {
    // @unchecked Sendable: `connection`, `dataVersion` and `seenTransaction` are used only on
    // `queue` (under `own`'s mutex); `timer` is set once, by `start()`, before the store is
    // shared; `stopped` is atomic; the rest is immutable.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "OpenCoreData.remote-change-watcher")
    private var timer: DispatchSourceTimer?
    private let stopped = Atomic<Bool>(false)
    private var dataVersion: Int64 = 0
    private var seenTransaction: Int64 = 0
    private let own = Mutex<Set<Int64>>([])
    private let tracksHistory: Bool
    private let url: URL
    private let storeID: String
    private weak var coordinator: NSPersistentStoreCoordinator?

    static let interval: DispatchTimeInterval = .milliseconds(50)

    init(url: URL, storeID: String, tracksHistory: Bool, coordinator: NSPersistentStoreCoordinator?) throws {
        var configuration = SQLiteConnection.Configuration()
        configuration.readOnly = true
        configuration.walMode = false
        // Never waits for a lock: the store's commit waits for a check (see `committing`), and
        // the next check, 50 ms later, tries again.
        configuration.busyTimeoutMilliseconds = 0
        connection = try SQLiteConnection(path: url.path, configuration: configuration)
        self.url = url
        self.storeID = storeID
        self.tracksHistory = tracksHistory
        self.coordinator = coordinator
        dataVersion = try connection.scalar("PRAGMA data_version").int64Value ?? 0
        seenTransaction = try lastTransaction()
    }

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
        timer.setEventHandler { [weak self] in self?.check() }
        self.timer = timer
        timer.resume()
    }

    /// Stops watching; no check starts once this returns. (Not waiting for a check under way:
    /// an observer of the notification may be the one removing the store.)
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        timer?.cancel()
    }

    /// Runs the store's own `commit` of history `transactions`, noting them as its own in the
    /// same step (a check runs before or after both, never between).
    func committing(_ transactions: [Int64], _ commit: () throws -> Void) throws {
        try own.withLock { own in
            try commit()
            own.formUnion(transactions)
        }
    }

    private func check() {
        guard !stopped.load(ordering: .sequentiallyConsistent) else { return }
        // A store whose coordinator is gone (released without removing the store) has nobody
        // to tell.
        guard coordinator != nil else {
            stop()
            return
        }
        let token: NSPersistentHistoryToken?? = own.withLock { own in
            guard let version = try? connection.scalar("PRAGMA data_version").int64Value, version != dataVersion else { return nil }
            guard tracksHistory else {
                dataVersion = version
                return .some(nil)
            }
            // The version is taken as seen only once what it brought is read: a read that
            // fails is tried again at the next check.
            guard let last = try? lastTransaction() else { return nil }
            dataVersion = version
            guard last != seenTransaction else { return nil }
            // Below what was seen: the file's history began again (restored or migrated).
            let mine = last > seenTransaction && ((seenTransaction + 1)...last).allSatisfy { own.contains($0) }
            seenTransaction = last
            own = own.filter { $0 > last }
            return mine ? nil : .some(NSPersistentHistoryToken(transactionNumbers: [storeID: last]))
        }
        if case .some(let token) = token { post(token: token) }
    }

    private func lastTransaction() throws -> Int64 {
        guard tracksHistory else { return 0 }
        return try SQLiteHistoryTables.lastTransaction(on: connection)
    }

    private func post(token: NSPersistentHistoryToken?) {
        var userInfo: [AnyHashable: Any] = [NSPersistentStoreURLKey: url, NSStoreUUIDKey: storeID]
        if let token { userInfo[NSPersistentHistoryTokenKey] = token }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: userInfo)
    }
}
