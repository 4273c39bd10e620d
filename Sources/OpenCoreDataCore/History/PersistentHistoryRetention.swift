import Foundation

/// How much persistent history a store keeps: pruned in each save, so that history does not
/// grow without bound (reports of millions of changes after weeks of use are common with Core
/// Data, which keeps everything until the app deletes it). An OpenCoreData addition.
///
/// ```swift
/// description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
/// description.setOption(PersistentHistoryRetention.keepingDays(7), forKey: OCDPersistentHistoryRetentionOption)
/// ```
/// With `.deletingWhatEveryConsumerRead`, each reader of history says how far it has read
/// (`coordinator.markHistoryRead(through:byConsumer:)`, kept in the store, so readers in
/// other processes count); history every consumer has read is deleted. Until a consumer is
/// registered nothing is deleted.
///
/// A class (an `NSObject`) so that `NSPersistentStoreDescription.setOption(_:forKey:)` takes it.
public final class PersistentHistoryRetention: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable (a final class whose one field is a `let` of a Sendable type).
    package enum Rule: Sendable, Equatable {
        case transactions(Int)
        case age(TimeInterval)
        case readByEveryConsumer
    }

    package let rule: Rule

    private init(rule: Rule) {
        self.rule = rule
        super.init()
    }

    /// Keeps the newest `count` transactions (at least the one being written).
    public static func keepingTransactions(_ count: Int) -> PersistentHistoryRetention {
        PersistentHistoryRetention(rule: .transactions(max(1, count)))
    }

    /// Keeps the transactions of the last `days` days (and at least the one being written).
    public static func keepingDays(_ days: Double) -> PersistentHistoryRetention {
        PersistentHistoryRetention(rule: .age(max(0, days) * 86_400))
    }

    /// Keeps what some registered consumer has not read yet.
    public static var deletingWhatEveryConsumerRead: PersistentHistoryRetention { PersistentHistoryRetention(rule: .readByEveryConsumer) }

    public override func isEqual(_ object: Any?) -> Bool { (object as? PersistentHistoryRetention)?.rule == rule }

    public override var hash: Int { "\(rule)".hashValue }
}

/// The store option (`addPersistentStore`'s options, `NSPersistentStoreDescription.setOption`)
/// holding a `PersistentHistoryRetention`. An OpenCoreData addition.
public let OCDPersistentHistoryRetentionOption = "OCDPersistentHistoryRetentionOption"

extension NSPersistentStoreCoordinator {
    /// Records that `consumer` has read the history `token` has seen, in each store the token
    /// names: what every consumer has read is what `.deletingWhatEveryConsumerRead` deletes.
    ///
    /// ```swift
    /// try coordinator.markHistoryRead(through: lastToken, byConsumer: "search-indexer")
    /// ```
    /// An OpenCoreData addition.
    public func markHistoryRead(through token: NSPersistentHistoryToken, byConsumer consumer: String) throws {
        for store in persistentStores {
            guard let number = token.transactionNumbers[store.identifier], let history = Self.historyStore(of: store) else { continue }
            try store.lock.withLock { try history.markHistoryRead(through: number, byConsumer: consumer) }
        }
    }

    /// How far each registered consumer has read the history of `store`, by consumer name.
    public func historyReadByConsumers(in store: NSPersistentStore) throws -> [String: NSPersistentHistoryToken] {
        guard let history = Self.historyStore(of: store) else { return [:] }
        let numbers = try store.lock.withLock { try history.historyConsumers() }
        return numbers.mapValues { NSPersistentHistoryToken(transactionNumbers: [store.identifier: $0]) }
    }
}
