import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentHistoryTransaction(_ check: inout Checks) {
        check("NSPersistentHistoryTransaction.copy(with:)") {
            let _: (NSPersistentHistoryTransaction) -> (NSZone?) -> Any = NSPersistentHistoryTransaction.copy(with:)
        }
        check("NSPersistentHistoryTransaction") {
            let _: (NSPersistentHistoryTransaction) -> NSObject = { $0 }
        }
        check("NSPersistentHistoryTransaction.entityDescription(with:)") {
            let _: (NSManagedObjectContext) -> NSEntityDescription? = NSPersistentHistoryTransaction.entityDescription(with:)
        }
        check("NSPersistentHistoryTransaction.entityDescription") {
            let _: NSEntityDescription? = NSPersistentHistoryTransaction.entityDescription
        }
        check("NSPersistentHistoryTransaction.fetchRequest") {
            let _: NSFetchRequest<any NSFetchRequestResult>? = NSPersistentHistoryTransaction.fetchRequest
        }
        check("NSPersistentHistoryTransaction.timestamp") {
            let _: KeyPath<NSPersistentHistoryTransaction, Date> = \.timestamp
        }
        check("NSPersistentHistoryTransaction.changes") {
            let _: KeyPath<NSPersistentHistoryTransaction, [NSPersistentHistoryChange]?> = \.changes
        }
        check("NSPersistentHistoryTransaction.transactionNumber") {
            let _: KeyPath<NSPersistentHistoryTransaction, Int64> = \.transactionNumber
        }
        check("NSPersistentHistoryTransaction.storeID") {
            let _: KeyPath<NSPersistentHistoryTransaction, String> = \.storeID
        }
        check("NSPersistentHistoryTransaction.bundleID") {
            let _: KeyPath<NSPersistentHistoryTransaction, String> = \.bundleID
        }
        check("NSPersistentHistoryTransaction.processID") {
            let _: KeyPath<NSPersistentHistoryTransaction, String> = \.processID
        }
        check("NSPersistentHistoryTransaction.contextName") {
            let _: KeyPath<NSPersistentHistoryTransaction, String?> = \.contextName
        }
        check("NSPersistentHistoryTransaction.author") {
            let _: KeyPath<NSPersistentHistoryTransaction, String?> = \.author
        }
        check("NSPersistentHistoryTransaction.token") {
            let _: KeyPath<NSPersistentHistoryTransaction, NSPersistentHistoryToken> = \.token
        }
        check("NSPersistentHistoryTransaction.objectIDNotification()") {
            let _: (NSPersistentHistoryTransaction) -> () -> Notification = NSPersistentHistoryTransaction.objectIDNotification
        }
    }
}
