import Foundation
import CoreData

extension APISignatures {
    static func nsIncrementalStore(_ check: inout Checks) {
        check("NSIncrementalStore") {
            let _: (NSIncrementalStore) -> NSPersistentStore = { $0 }
            // OpenCoreData's class is @unchecked Sendable: a subclass must restate it (Apple's need not).
            final class Subclass: NSIncrementalStore, @unchecked Sendable {}
            let _: NSIncrementalStore = Subclass(persistentStoreCoordinator: nil, configurationName: nil, at: URL(fileURLWithPath: "/x"), options: nil)
        }
        check("NSIncrementalStore.loadMetadata()") {
            let _: (NSIncrementalStore) -> () throws -> Void = NSIncrementalStore.loadMetadata
        }
        check("NSIncrementalStore.execute(_:with:)") {
            let _: (NSIncrementalStore) -> (NSPersistentStoreRequest, NSManagedObjectContext?) throws -> Any = NSIncrementalStore.execute(_:with:)
        }
        check("NSIncrementalStore.newValuesForObject(with:with:)") {
            let _: (NSIncrementalStore) -> (NSManagedObjectID, NSManagedObjectContext) throws -> NSIncrementalStoreNode = NSIncrementalStore.newValuesForObject(with:with:)
        }
        check("NSIncrementalStore.newValue(forRelationship:forObjectWith:with:)") {
            let _: (NSIncrementalStore) -> (NSRelationshipDescription, NSManagedObjectID, NSManagedObjectContext?) throws -> Any
                = NSIncrementalStore.newValue(forRelationship:forObjectWith:with:)
        }
        check("NSIncrementalStore.identifierForNewStore(at:)") {
            let _: (URL) -> Any = NSIncrementalStore.identifierForNewStore(at:)
        }
        check("NSIncrementalStore.obtainPermanentIDs(for:)") {
            let _: (NSIncrementalStore) -> ([NSManagedObject]) throws -> [NSManagedObjectID] = NSIncrementalStore.obtainPermanentIDs(for:)
        }
        check("NSIncrementalStore.managedObjectContextDidRegisterObjects(with:)") {
            let _: (NSIncrementalStore) -> ([NSManagedObjectID]) -> Void = NSIncrementalStore.managedObjectContextDidRegisterObjects(with:)
        }
        check("NSIncrementalStore.managedObjectContextDidUnregisterObjects(with:)") {
            let _: (NSIncrementalStore) -> ([NSManagedObjectID]) -> Void = NSIncrementalStore.managedObjectContextDidUnregisterObjects(with:)
        }
        check("NSIncrementalStore.newObjectID(for:referenceObject:)") {
            let _: (NSIncrementalStore) -> (NSEntityDescription, Any) -> NSManagedObjectID = NSIncrementalStore.newObjectID(for:referenceObject:)
        }
        check("NSIncrementalStore.referenceObject(for:)") {
            let _: (NSIncrementalStore) -> (NSManagedObjectID) -> Any = NSIncrementalStore.referenceObject(for:)
        }
    }
}
