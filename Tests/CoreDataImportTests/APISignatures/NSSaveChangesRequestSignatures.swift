import Foundation
import CoreData

extension APISignatures {
    static func nsSaveChangesRequest(_ check: inout Checks) {
        check("NSSaveChangesRequest") {
            let _: NSPersistentStoreRequest = NSSaveChangesRequest(inserted: nil, updated: nil, deleted: nil, locked: nil)
        }
        check("NSSaveChangesRequest.init(inserted:updated:deleted:locked:)") {
            let _: (Set<NSManagedObject>?, Set<NSManagedObject>?, Set<NSManagedObject>?, Set<NSManagedObject>?) -> NSSaveChangesRequest
                = NSSaveChangesRequest.init(inserted:updated:deleted:locked:)
        }
        check("NSSaveChangesRequest.insertedObjects") {
            let _: KeyPath<NSSaveChangesRequest, Set<NSManagedObject>?> = \.insertedObjects
        }
        check("NSSaveChangesRequest.updatedObjects") {
            let _: KeyPath<NSSaveChangesRequest, Set<NSManagedObject>?> = \.updatedObjects
        }
        check("NSSaveChangesRequest.deletedObjects") {
            let _: KeyPath<NSSaveChangesRequest, Set<NSManagedObject>?> = \.deletedObjects
        }
        check("NSSaveChangesRequest.lockedObjects") {
            let _: KeyPath<NSSaveChangesRequest, Set<NSManagedObject>?> = \.lockedObjects
        }
    }
}
