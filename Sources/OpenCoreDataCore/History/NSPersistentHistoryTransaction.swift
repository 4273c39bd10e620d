import Foundation

/// One save (or batch request) recorded in a store's persistent history, with its changes.
///
/// ```swift
/// let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken))
/// for transaction in (result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? [] {
///     context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
///     lastToken = transaction.token
/// }
/// ```
public final class NSPersistentHistoryTransaction: NSObject {
    /// When the save was written.
    public let timestamp: Date
    /// The transaction's changes; nil when the request asked for transactions only.
    public let changes: [NSPersistentHistoryChange]?
    /// The transaction's number in its store, increasing with each transaction.
    public let transactionNumber: Int64
    /// The identifier (`NSStoreUUIDKey`) of the store it was written to.
    public let storeID: String
    /// The bundle identifier of the program that wrote it (its executable's name where there
    /// is no bundle, as on Linux).
    public let bundleID: String
    /// The process that wrote it: its name, as Core Data records it.
    public let processID: String
    /// The saving context's `name`.
    public let contextName: String?
    /// The saving context's `transactionAuthor`.
    public let author: String?

    package init(timestamp: Date, changes: [NSPersistentHistoryChange]?, transactionNumber: Int64, storeID: String,
                 bundleID: String, processID: String, contextName: String?, author: String?) {
        self.timestamp = timestamp
        self.changes = changes
        self.transactionNumber = transactionNumber
        self.storeID = storeID
        self.bundleID = bundleID
        self.processID = processID
        self.contextName = contextName
        self.author = author
        super.init()
        let header = Header(timestamp: timestamp, transactionNumber: transactionNumber, storeID: storeID,
                            bundleID: bundleID, processID: processID, contextName: contextName, author: author)
        for change in changes ?? [] {
            change.owner = self
            change.header = header
        }
    }

    /// A transaction's fields but its changes.
    struct Header {
        let timestamp: Date
        let transactionNumber: Int64
        let storeID: String
        let bundleID: String
        let processID: String
        let contextName: String?
        let author: String?
    }

    convenience init(header: Header, changes: [NSPersistentHistoryChange]?) {
        self.init(timestamp: header.timestamp, changes: changes, transactionNumber: header.transactionNumber,
                  storeID: header.storeID, bundleID: header.bundleID, processID: header.processID,
                  contextName: header.contextName, author: header.author)
    }

    /// The bookmark just after this transaction in its store.
    public var token: NSPersistentHistoryToken {
        NSPersistentHistoryToken(transactionNumbers: [storeID: transactionNumber])
    }

    /// A did-save notification of the transaction's changes, as object IDs, for
    /// `mergeChanges(fromContextDidSave:)`.
    public func objectIDNotification() -> Notification {
        var inserted = Set<NSManagedObjectID>(), updated = Set<NSManagedObjectID>(), deleted = Set<NSManagedObjectID>()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        return Notification(name: NSManagedObjectContext.didSaveObjectIDsNotification, object: nil, userInfo: [
            NSInsertedObjectIDsKey: inserted, NSUpdatedObjectIDsKey: updated, NSDeletedObjectIDsKey: deleted,
        ])
    }

    /// The entity `fetchHistory(withFetch:)` requests of transactions are made for: its
    /// attributes are `author`, `bundleID`, `contextName`, `processID`, `storeID`, `timestamp`
    /// and `transactionNumber`, usable in the request's predicate.
    public class var entityDescription: NSEntityDescription? { PersistentHistoryEntities.transaction }

    /// The same entity; `context` is not needed to find it here.
    public class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { entityDescription }

    /// A fetch request of history transactions, for `fetchHistory(withFetch:)`.
    public class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: PersistentHistoryEntities.transactionName)
        request.entity = PersistentHistoryEntities.transaction
        return request
    }

    public override var description: String {
        "<NSPersistentHistoryTransaction \(transactionNumber) of \(storeID) at \(timestamp), author \(author ?? "nil"), \(changes?.count ?? 0) changes>"
    }
}

@available(*, unavailable)
extension NSPersistentHistoryTransaction: Sendable {}

extension NSPersistentHistoryTransaction: KeyValueReadable {
    func value(forKey key: String) -> Any? {
        switch key {
        case "author": author
        case "bundleID": bundleID
        case "contextName": contextName
        case "processID": processID
        case "storeID": storeID
        case "timestamp": timestamp
        case "transactionNumber": transactionNumber
        case "changes": changes
        default: nil
        }
    }

    var rowObjectID: NSManagedObjectID? { nil }
}

extension NSPersistentHistoryTransaction: NSCopying {
    /// The same object: a transaction never changes, so a copy is the object itself, as with
    /// Foundation's immutable classes.
    ///
    /// ```swift
    /// let same = value.copy(with: nil) as! NSPersistentHistoryTransaction
    /// ```
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
