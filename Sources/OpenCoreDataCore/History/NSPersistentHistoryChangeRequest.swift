import Foundation

/// The option (`NSPersistentStoreDescription.setOption(_:forKey:)` or `addPersistentStore`'s
/// options) that turns on persistent history: every save and batch request is then recorded
/// in the store, in Core Data's history tables, for `NSPersistentHistoryChangeRequest` to read.
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"

/// What a persistent history request returns. Raw values as Core Data's.
public enum NSPersistentHistoryResultType: Int, Sendable {
    /// `true` once the request has run.
    case statusOnly = 0
    /// The IDs of the objects changed (for a deletion: of the changes' objects deleted from history).
    case objectIDs = 1
    /// The number of changes.
    case count = 2
    /// The transactions, without their changes.
    case transactionsOnly = 3
    /// The changes, each still naming its transaction.
    case changesOnly = 4
    /// The transactions with their changes.
    case transactionsAndChanges = 5
}

/// A request to read or purge persistent history, run with `context.execute(_:)`.
///
/// ```swift
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let result = try context.execute(request) as? NSPersistentHistoryResult
/// let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
/// try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: lastToken))
/// ```
/// Boundaries: `fetchHistory(after:)` returns the transactions after the token, the date or
/// the transaction; `deleteHistory(before:)` deletes the transactions a token has seen (up to
/// and including its last one), those strictly older than a transaction, or those written
/// before a date. A token that names none of the stores asked, or that points into history
/// already deleted, fails with `NSPersistentHistoryTokenExpiredError` (134301).
public final class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest {
    /// Where the request starts (fetches) or ends (deletions).
    package enum Boundary {
        case none
        case token(NSPersistentHistoryToken)
        case date(Date)
        case transaction(Int64, storeID: String)
    }

    package let boundary: Boundary
    package let isDeletion: Bool

    /// What the request returns; `.transactionsAndChanges` unless set.
    public var resultType: NSPersistentHistoryResultType = .transactionsAndChanges
    /// The token the request starts after or ends with, when it was made with one.
    public var token: NSPersistentHistoryToken? {
        if case .token(let token) = boundary { return token }
        return nil
    }
    /// A fetch request of `NSPersistentHistoryTransaction.fetchRequest` or
    /// `NSPersistentHistoryChange.fetchRequest` whose predicate (and fetch limit) filters what
    /// the request returns.
    public var fetchRequest: NSFetchRequest<NSFetchRequestResult>?

    package init(boundary: Boundary, isDeletion: Bool) {
        self.boundary = boundary
        self.isDeletion = isDeletion
        super.init()
    }

    public override var requestType: NSPersistentStoreRequestType { .persistentHistoryRequestType }

    /// The transactions written after `date`.
    public class func fetchHistory(after date: Date) -> Self { Self(boundary: .date(date), isDeletion: false) }

    /// The transactions after `token` (every transaction for nil).
    public class func fetchHistory(after token: NSPersistentHistoryToken?) -> Self {
        Self(boundary: token.map { .token($0) } ?? .none, isDeletion: false)
    }

    /// The transactions after `transaction` in its store (every transaction for nil).
    public class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> Self {
        Self(boundary: transaction.map { .transaction($0.transactionNumber, storeID: $0.storeID) } ?? .none, isDeletion: false)
    }

    /// The transactions or changes `fetchRequest` selects (see `fetchRequest`).
    public class func fetchHistory(withFetch fetchRequest: NSFetchRequest<NSFetchRequestResult>) -> Self {
        let request = Self(boundary: .none, isDeletion: false)
        request.fetchRequest = fetchRequest
        return request
    }

    /// Deletes the transactions written before `date`.
    public class func deleteHistory(before date: Date) -> Self { Self(boundary: .date(date), isDeletion: true) }

    /// Deletes the transactions `token` has seen (all of them for nil).
    public class func deleteHistory(before token: NSPersistentHistoryToken?) -> Self {
        Self(boundary: token.map { .token($0) } ?? .none, isDeletion: true)
    }

    /// Deletes the transactions older than `transaction` in its store (all of them for nil).
    public class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> Self {
        Self(boundary: transaction.map { .transaction($0.transactionNumber, storeID: $0.storeID) } ?? .none, isDeletion: true)
    }

    /// A new request for the same history, with the same result type, fetch request and stores.
    public override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentHistoryChangeRequest(boundary: boundary, isDeletion: isDeletion)
        copy.resultType = resultType
        copy.fetchRequest = fetchRequest?.copy(as: NSFetchRequestResult.self)
        copy.affectedStores = affectedStores
        return copy
    }
}

/// What a `NSPersistentHistoryChangeRequest` returns: `result` is of the kind its `resultType`
/// names.
public final class NSPersistentHistoryResult: NSPersistentStoreResult {
    public let resultType: NSPersistentHistoryResultType
    /// `true`, `[NSManagedObjectID]`, an `Int`, `[NSPersistentHistoryTransaction]` or
    /// `[NSPersistentHistoryChange]`.
    public let result: Any?

    package init(resultType: NSPersistentHistoryResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
        super.init()
    }
}

