import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentStoreRequest(_ check: inout Checks) {
        check("NSPersistentStoreRequest.copy(with:)") {
            let _: (NSPersistentStoreRequest) -> (NSZone?) -> Any = NSPersistentStoreRequest.copy(with:)
        }
        check("NSPersistentStoreRequestType") {
            let type: NSPersistentStoreRequestType = .fetchRequestType
            let _: UInt = type.rawValue
            let _: NSPersistentStoreRequestType? = NSPersistentStoreRequestType(rawValue: 2)
        }
        check("NSPersistentStoreRequestType.fetchRequestType") {
            let _: NSPersistentStoreRequestType = .fetchRequestType
        }
        check("NSPersistentStoreRequestType.saveRequestType") {
            let _: NSPersistentStoreRequestType = .saveRequestType
        }
        check("NSPersistentStoreRequestType.batchInsertRequestType") {
            let _: NSPersistentStoreRequestType = .batchInsertRequestType
        }
        check("NSPersistentStoreRequestType.batchUpdateRequestType") {
            let _: NSPersistentStoreRequestType = .batchUpdateRequestType
        }
        check("NSPersistentStoreRequestType.batchDeleteRequestType") {
            let _: NSPersistentStoreRequestType = .batchDeleteRequestType
        }
        check("NSPersistentStoreRequest") {
            let _: NSObject = NSPersistentStoreRequest()
        }
        check("NSPersistentStoreRequest.affectedStores") {
            let _: ReferenceWritableKeyPath<NSPersistentStoreRequest, [NSPersistentStore]?> = \.affectedStores
        }
        check("NSPersistentStoreRequest.requestType") {
            let _: KeyPath<NSPersistentStoreRequest, NSPersistentStoreRequestType> = \.requestType
        }
    }
}
