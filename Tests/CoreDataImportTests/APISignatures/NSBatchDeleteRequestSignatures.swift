import Foundation
import CoreData

extension APISignatures {
    static func nsBatchDeleteRequest(_ check: inout Checks) {
        check("NSBatchDeleteRequest") {
            let _: NSPersistentStoreRequest = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<any NSFetchRequestResult>(entityName: "Item"))
        }
        check("NSBatchDeleteRequest.init(fetchRequest:)") {
            let _: (NSFetchRequest<any NSFetchRequestResult>) -> NSBatchDeleteRequest = NSBatchDeleteRequest.init(fetchRequest:)
        }
        check("NSBatchDeleteRequest.init(objectIDs:)") {
            let _: ([NSManagedObjectID]) -> NSBatchDeleteRequest = NSBatchDeleteRequest.init(objectIDs:)
        }
        check("NSBatchDeleteRequest.resultType") {
            let _: ReferenceWritableKeyPath<NSBatchDeleteRequest, NSBatchDeleteRequestResultType> = \.resultType
        }
        check("NSBatchDeleteRequest.fetchRequest") {
            let _: KeyPath<NSBatchDeleteRequest, NSFetchRequest<any NSFetchRequestResult>> = \.fetchRequest
        }
    }
}
