import Foundation

/// The kinds of change persistent history records. Raw values as Core Data's.
public enum NSPersistentHistoryChangeType: Int, Sendable {
    case insert = 0
    case update = 1
    case delete = 2
}

/// One object's change in a transaction of persistent history.
///
/// ```swift
/// for change in transaction.changes ?? [] where change.changeType == .update {
///     print(change.changedObjectID, change.updatedProperties?.map(\.name) ?? [])
/// }
/// ```
public final class NSPersistentHistoryChange: NSObject {
    /// The change's number in the store (unique across transactions).
    public let changeID: Int64
    /// The object that changed (for a deletion, the ID it had).
    public let changedObjectID: NSManagedObjectID
    public let changeType: NSPersistentHistoryChangeType
    /// For a deletion: the values of the attributes marked `preservesValueInHistoryOnDeletion`
    /// that the object had, by name; nil otherwise.
    public let tombstone: [AnyHashable: Any]?
    /// For an update: the properties it changed; nil otherwise.
    public let updatedProperties: Set<NSPropertyDescription>?
    /// The transaction the change belongs to. When the change outlives the transaction value
    /// it came in (a `.changesOnly` result), this is a transaction value with the same fields
    /// and no changes: holding the changes from here would make a reference cycle.
    public var transaction: NSPersistentHistoryTransaction? {
        if let owner { return owner }
        return header.map { NSPersistentHistoryTransaction(header: $0, changes: nil) }
    }
    weak var owner: NSPersistentHistoryTransaction?
    var header: NSPersistentHistoryTransaction.Header?

    package init(changeID: Int64, changedObjectID: NSManagedObjectID, changeType: NSPersistentHistoryChangeType,
                 tombstone: [AnyHashable: Any]?, updatedProperties: Set<NSPropertyDescription>?) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.tombstone = tombstone
        self.updatedProperties = updatedProperties
    }

    /// The entity `fetchHistory(withFetch:)` requests of changes are made for: its attributes
    /// are `changeID`, `changeType`, `changedEntity` (the changed object's entity name),
    /// `changedObjectID` and `transactionNumber`, usable in the request's predicate.
    public class var entityDescription: NSEntityDescription? { PersistentHistoryEntities.change }

    /// The same entity; `context` is not needed to find it here.
    public class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { entityDescription }

    /// A fetch request of history changes, for `fetchHistory(withFetch:)`.
    public class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: PersistentHistoryEntities.changeName)
        request.entity = PersistentHistoryEntities.change
        return request
    }

    public override var description: String {
        "<NSPersistentHistoryChange \(changeID) \(changeType) \(changedObjectID.uriRepresentation().absoluteString)>"
    }
}

@available(*, unavailable)
extension NSPersistentHistoryChange: Sendable {}

extension NSPersistentHistoryChange: KeyValueReadable {
    func value(forKey key: String) -> Any? {
        switch key {
        case "changeID": changeID
        case "changeType": changeType.rawValue
        case "changedEntity": changedObjectID.entity.name
        case "changedObjectID": changedObjectID
        case "tombstone": tombstone
        case "transactionNumber": transaction?.transactionNumber
        case "updatedProperties": updatedProperties.map { Set($0.map(\.name)) }
        default: nil
        }
    }

    var rowObjectID: NSManagedObjectID? { nil }
}

extension NSPersistentHistoryChange: NSCopying {
    /// The same object: a change never changes, so a copy is the object itself, as with
    /// Foundation's immutable classes.
    ///
    /// ```swift
    /// let same = value.copy(with: nil) as! NSPersistentHistoryChange
    /// ```
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
