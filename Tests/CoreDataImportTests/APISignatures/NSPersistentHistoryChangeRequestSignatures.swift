import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentHistoryChangeRequest(_ check: inout Checks) {
        check("NSPersistentHistoryChangeRequest") {
            let _: NSPersistentStoreRequest = NSPersistentHistoryChangeRequest.fetchHistory(after: Date())
        }
        check("NSPersistentHistoryChangeRequest.fetchHistory(after:) [date]") {
            let _: (Date) -> NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.fetchHistory(after:)
            let _: NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.fetchHistory(after: Date())
        }
        check("NSPersistentHistoryChangeRequest.fetchHistory(after:) [token]") {
            let _: (NSPersistentHistoryToken?) -> NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.fetchHistory(after:)
            let token: NSPersistentHistoryToken? = nil
            let _: NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
        }
        check("NSPersistentHistoryChangeRequest.fetchHistory(after:) [transaction]") {
            let _: (NSPersistentHistoryTransaction?) -> NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.fetchHistory(after:)
            let transaction: NSPersistentHistoryTransaction? = nil
            let _: NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.fetchHistory(after: transaction)
        }
        check("NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)") {
            let _: (NSFetchRequest<any NSFetchRequestResult>) -> NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)
        }
        check("NSPersistentHistoryChangeRequest.deleteHistory(before:) [date]") {
            let _: (Date) -> NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.deleteHistory(before:)
            let _: NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.deleteHistory(before: Date())
        }
        check("NSPersistentHistoryChangeRequest.deleteHistory(before:) [token]") {
            let _: (NSPersistentHistoryToken?) -> NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.deleteHistory(before:)
            let token: NSPersistentHistoryToken? = nil
            let _: NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.deleteHistory(before: token)
        }
        check("NSPersistentHistoryChangeRequest.deleteHistory(before:) [transaction]") {
            let _: (NSPersistentHistoryTransaction?) -> NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.deleteHistory(before:)
            let transaction: NSPersistentHistoryTransaction? = nil
            let _: NSPersistentHistoryChangeRequest = NSPersistentHistoryChangeRequest.deleteHistory(before: transaction)
        }
        check("NSPersistentHistoryChangeRequest.resultType") {
            let _: ReferenceWritableKeyPath<NSPersistentHistoryChangeRequest, NSPersistentHistoryResultType> = \.resultType
        }
        check("NSPersistentHistoryChangeRequest.token") {
            let _: KeyPath<NSPersistentHistoryChangeRequest, NSPersistentHistoryToken?> = \.token
        }
        check("NSPersistentHistoryChangeRequest.fetchRequest") {
            let _: ReferenceWritableKeyPath<NSPersistentHistoryChangeRequest, NSFetchRequest<any NSFetchRequestResult>?> = \.fetchRequest
        }
    }
}
