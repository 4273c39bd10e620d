import Foundation
import CoreData

extension APISignatures {
    static func nsManagedObjectID(_ check: inout Checks) {
        check("NSManagedObjectID.copy(with:)") {
            let _: (NSManagedObjectID) -> (NSZone?) -> Any = NSManagedObjectID.copy(with:)
        }
        check("NSManagedObjectID") {
            let _: KeyPath<NSManagedObjectID, Int> = \.hashValue
            let _: (NSManagedObjectID, NSManagedObjectID) -> Bool = (==)
            let _: KeyPath<NSManagedObjectID, String> = \.description
            let _: (NSManagedObjectID) -> any NSFetchRequestResult = { $0 }
            let _: (NSManagedObjectID) -> any NSObjectProtocol = { $0 }
            let _: (NSManagedObjectID) -> any NSCopying = { $0 }
            let _: (NSManagedObjectID) -> (Any?) -> Bool = NSManagedObjectID.isEqual
            let _: KeyPath<NSManagedObjectID, Int> = \.hash
        }
        check("NSManagedObjectID.entity") {
            let _: KeyPath<NSManagedObjectID, NSEntityDescription> = \.entity
        }
        check("NSManagedObjectID.persistentStore") {
            let _: KeyPath<NSManagedObjectID, NSPersistentStore?> = \.persistentStore
        }
        check("NSManagedObjectID.isTemporaryID") {
            let _: KeyPath<NSManagedObjectID, Bool> = \.isTemporaryID
        }
        check("NSManagedObjectID.uriRepresentation()") {
            let _: (NSManagedObjectID) -> () -> URL = NSManagedObjectID.uriRepresentation
        }
    }
}
