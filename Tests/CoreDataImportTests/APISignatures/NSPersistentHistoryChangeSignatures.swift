import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentHistoryChange(_ check: inout Checks) {
        check("NSPersistentHistoryChange.copy(with:)") {
            let _: (NSPersistentHistoryChange) -> (NSZone?) -> Any = NSPersistentHistoryChange.copy(with:)
        }
        check("NSPersistentHistoryChangeType") {
            let type: NSPersistentHistoryChangeType = .update
            let _: Int = type.rawValue
            let _: NSPersistentHistoryChangeType? = NSPersistentHistoryChangeType(rawValue: 2)
        }
        check("NSPersistentHistoryChangeType.insert") {
            let _: NSPersistentHistoryChangeType = .insert
        }
        check("NSPersistentHistoryChangeType.update") {
            let _: NSPersistentHistoryChangeType = .update
        }
        check("NSPersistentHistoryChangeType.delete") {
            let _: NSPersistentHistoryChangeType = .delete
        }
        check("NSPersistentHistoryChange") {
            let _: (NSPersistentHistoryChange) -> NSObject = { $0 }
        }
        check("NSPersistentHistoryChange.entityDescription(with:)") {
            let _: (NSManagedObjectContext) -> NSEntityDescription? = NSPersistentHistoryChange.entityDescription(with:)
        }
        check("NSPersistentHistoryChange.entityDescription") {
            let _: NSEntityDescription? = NSPersistentHistoryChange.entityDescription
        }
        check("NSPersistentHistoryChange.fetchRequest") {
            let _: NSFetchRequest<any NSFetchRequestResult>? = NSPersistentHistoryChange.fetchRequest
        }
        check("NSPersistentHistoryChange.changeID") {
            let _: KeyPath<NSPersistentHistoryChange, Int64> = \.changeID
        }
        check("NSPersistentHistoryChange.changedObjectID") {
            let _: KeyPath<NSPersistentHistoryChange, NSManagedObjectID> = \.changedObjectID
        }
        check("NSPersistentHistoryChange.changeType") {
            let _: KeyPath<NSPersistentHistoryChange, NSPersistentHistoryChangeType> = \.changeType
        }
        check("NSPersistentHistoryChange.tombstone") {
            let _: KeyPath<NSPersistentHistoryChange, [AnyHashable: Any]?> = \.tombstone
        }
        check("NSPersistentHistoryChange.transaction") {
            let _: KeyPath<NSPersistentHistoryChange, NSPersistentHistoryTransaction?> = \.transaction
        }
        check("NSPersistentHistoryChange.updatedProperties") {
            let _: KeyPath<NSPersistentHistoryChange, Set<NSPropertyDescription>?> = \.updatedProperties
        }
    }
}
