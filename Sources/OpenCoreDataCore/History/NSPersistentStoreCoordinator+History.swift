import Foundation

/// The coordinator's side of persistent history: a history request asks each store that
/// records history, and the answers are put together in time order.
extension NSPersistentStoreCoordinator {
    /// A token of the newest transaction of each of `stores` (every store for nil) that records
    /// history; nil when none does.
    ///
    /// ```swift
    /// let token = coordinator.currentPersistentHistoryToken(fromStores: nil)
    /// ```
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        let chosen = (stores?.compactMap { $0 as? NSPersistentStore }) ?? persistentStores
        var numbers: [String: Int64] = [:]
        for store in chosen {
            guard let history = Self.historyStore(of: store),
                  let bounds = try? store.lock.withLock({ try history.historyBounds() }) else { continue }
            numbers[store.identifier] = bounds.last
        }
        return numbers.isEmpty ? nil : NSPersistentHistoryToken(transactionNumbers: numbers)
    }

    /// Runs a history request against the stores it affects.
    func executeHistory(_ request: NSPersistentHistoryChangeRequest) throws -> NSPersistentHistoryResult {
        let stores = (request.affectedStores ?? persistentStores).filter { Self.historyStore(of: $0) != nil }
        guard !stores.isEmpty else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "No store records persistent history: add the store with the option NSPersistentHistoryTrackingKey set to true")
        }
        if case .token(let token) = request.boundary,
           !stores.contains(where: { token.transactionNumbers[$0.identifier] != nil }) {
            throw CoreDataError.make(.persistentHistoryTokenExpired,
                                     "The history token \(token) names none of the stores asked (\(stores.map(\.identifier).joined(separator: ", ")))")
        }
        return request.isDeletion ? try deleteHistory(request, in: stores) : try fetchHistory(request, in: stores)
    }

    /// The history side of `store`'s seam, when the store records history.
    static func historyStore(of store: NSPersistentStore) -> (any PersistentHistoryStore)? {
        guard let history = store.seam as? any PersistentHistoryStore, history.tracksHistory else { return nil }
        return history
    }

    // MARK: Fetching

    private func fetchHistory(_ request: NSPersistentHistoryChangeRequest, in stores: [NSPersistentStore]) throws
        -> NSPersistentHistoryResult {
        var transactions: [NSPersistentHistoryTransaction] = []
        let needsChanges = request.resultType != .transactionsOnly || request.filtersChanges
        for store in stores {
            let history = Self.historyStore(of: store)!
            transactions += try store.lock.withLock {
                try history.readingHistoryConsistently {
                    guard let (number, date) = try fetchBoundary(of: request, in: store) else { return [] }
                    return try history.historyTransactions(afterNumber: number, after: date, includingChanges: needsChanges)
                }
            }
        }
        if stores.count > 1 { transactions.sort { $0.timestamp < $1.timestamp } }
        transactions = request.filtered(transactions)
        return NSPersistentHistoryResult(resultType: request.resultType, result: request.result(of: transactions))
    }

    /// Where a fetch starts in `store`: after a transaction number and/or a date; nil when the
    /// request asks nothing of this store.
    private func fetchBoundary(of request: NSPersistentHistoryChangeRequest, in store: NSPersistentStore) throws
        -> (number: Int64?, date: Date?)? {
        switch request.boundary {
        case .none:
            return (nil, nil)
        case .date(let date):
            return (nil, date)
        case .transaction(let number, let storeID):
            return storeID == store.identifier ? (number, nil) : nil
        case .token(let token):
            guard let number = token.transactionNumbers[store.identifier] else { return (nil, nil) }
            try checkNotExpired(token, number: number, in: store)
            return (number, nil)
        }
    }

    /// Refuses a token that points into history already deleted (some of what follows it is
    /// gone), or past the store's last transaction (a store whose history began again: a
    /// migrated or replaced file keeps its identifier).
    private func checkNotExpired(_ token: NSPersistentHistoryToken, number: Int64, in store: NSPersistentStore) throws {
        let history = Self.historyStore(of: store)!
        let bounds = try store.lock.withLock { try history.historyBounds() }
        if number < bounds.deletedThrough {
            throw CoreDataError.make(.persistentHistoryTokenExpired,
                                     "The history token \(token) is expired: the history of store \(store.identifier) after transaction \(number) was deleted up to transaction \(bounds.deletedThrough)")
        }
        if number > bounds.last {
            throw CoreDataError.make(.persistentHistoryTokenExpired,
                                     "The history token \(token) is expired: it has seen transaction \(number) of store \(store.identifier), whose history ends at transaction \(bounds.last) (the store was replaced or migrated since)")
        }
    }

    // MARK: Deleting

    private func deleteHistory(_ request: NSPersistentHistoryChangeRequest, in stores: [NSPersistentStore]) throws
        -> NSPersistentHistoryResult {
        var deletedIDs: [NSManagedObjectID] = []
        var count = 0
        for store in stores {
            let bound: (number: Int64?, date: Date?)
            switch request.boundary {
            case .none: bound = (nil, nil)
            case .date(let date): bound = (nil, date)
            case .transaction(let number, let storeID):
                guard storeID == store.identifier else { continue }
                guard number > 1 else { continue }  // nothing is older than the first transaction
                bound = (number - 1, nil)
            case .token(let token):
                guard let number = token.transactionNumbers[store.identifier] else { continue }
                bound = (number, nil)
            }
            let history = Self.historyStore(of: store)!
            let deleted = try store.lock.withLock {
                try history.deleteHistory(throughNumber: bound.number, before: bound.date,
                                          reportingObjectIDs: request.resultType == .objectIDs)
            }
            count += deleted.count
            deletedIDs += deleted.objectIDs
        }
        let result: Any? = switch request.resultType {
        case .objectIDs: deletedIDs
        case .count: count
        default: true
        }
        return NSPersistentHistoryResult(resultType: request.resultType, result: result)
    }
}

extension NSPersistentHistoryChangeRequest {
    /// Whether the request's fetch request selects changes (rather than transactions).
    var filtersChanges: Bool {
        fetchRequest?.entityName == PersistentHistoryEntities.changeName
            || fetchRequest?.entity?.name == PersistentHistoryEntities.changeName
    }

    /// The transactions the fetch request selects: by their own values, or, for a fetch
    /// request of changes, those with changes it selects, holding only those changes. The
    /// fetch limit counts what the fetch request is of.
    func filtered(_ transactions: [NSPersistentHistoryTransaction]) -> [NSPersistentHistoryTransaction] {
        guard let fetchRequest else { return transactions }
        let limit = fetchRequest.fetchLimit > 0 ? fetchRequest.fetchLimit : Int.max
        let predicate = fetchRequest.predicate
        if filtersChanges {
            var kept: [NSPersistentHistoryTransaction] = []
            var taken = 0
            for transaction in transactions where taken < limit {
                var changes = (transaction.changes ?? []).filter { predicate?.evaluate(with: $0) ?? true }
                if changes.count > limit - taken { changes.removeLast(changes.count - (limit - taken)) }
                guard !changes.isEmpty else { continue }
                taken += changes.count
                kept.append(transaction.keeping(changes))
            }
            return kept
        }
        var kept = transactions.filter { predicate?.evaluate(with: $0) ?? true }
        if kept.count > limit { kept.removeLast(kept.count - limit) }
        return kept
    }

    /// What `resultType` asks for, from the transactions selected.
    func result(of transactions: [NSPersistentHistoryTransaction]) -> Any? {
        switch resultType {
        case .statusOnly: true
        case .objectIDs: transactions.flatMap { $0.changes ?? [] }.map(\.changedObjectID)
        case .count: transactions.reduce(0) { $0 + ($1.changes?.count ?? 0) }
        case .transactionsOnly: transactions.map { $0.keeping(nil) }
        case .changesOnly: transactions.flatMap { $0.changes ?? [] }
        case .transactionsAndChanges: transactions
        }
    }
}

extension NSPersistentHistoryTransaction {
    /// The same transaction holding only `changes` (nil: none asked for).
    func keeping(_ changes: [NSPersistentHistoryChange]?) -> NSPersistentHistoryTransaction {
        if let changes, changes.count == self.changes?.count { return self }
        return NSPersistentHistoryTransaction(timestamp: timestamp, changes: changes.map { $0.map { $0.copy() } },
                                              transactionNumber: transactionNumber, storeID: storeID, bundleID: bundleID,
                                              processID: processID, contextName: contextName, author: author)
    }
}

extension NSPersistentHistoryChange {
    /// The same change, for another transaction value to hold.
    func copy() -> NSPersistentHistoryChange {
        NSPersistentHistoryChange(changeID: changeID, changedObjectID: changedObjectID, changeType: changeType,
                                  tombstone: tombstone, updatedProperties: updatedProperties)
    }
}
