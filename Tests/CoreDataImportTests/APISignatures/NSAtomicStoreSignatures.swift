import Foundation
import CoreData

extension APISignatures {
    static func nsAtomicStore(_ check: inout Checks) {
        check("NSAtomicStore") {
            let _: (NSAtomicStore) -> NSPersistentStore = { $0 }
            // OpenCoreData's class is @unchecked Sendable: a subclass must restate it (Apple's need not).
            final class Subclass: NSAtomicStore, @unchecked Sendable {
                override func load() throws {}
                override func save() throws {}
            }
            let _: NSAtomicStore = Subclass(persistentStoreCoordinator: nil, configurationName: nil, at: URL(fileURLWithPath: "/x"))
        }
        check("NSAtomicStore.init(persistentStoreCoordinator:configurationName:at:options:)") {
            let _: (NSPersistentStoreCoordinator?, String?, URL, [AnyHashable: Any]?) -> NSAtomicStore
                = NSAtomicStore.init(persistentStoreCoordinator:configurationName:at:options:)
            let _: NSAtomicStore = NSAtomicStore(persistentStoreCoordinator: nil, configurationName: nil, at: URL(fileURLWithPath: "/x"))
        }
        check("NSAtomicStore.load()") {
            let _: (NSAtomicStore) -> () throws -> Void = NSAtomicStore.load
        }
        check("NSAtomicStore.save()") {
            let _: (NSAtomicStore) -> () throws -> Void = NSAtomicStore.save
        }
        check("NSAtomicStore.newCacheNode(for:)") {
            let _: (NSAtomicStore) -> (NSManagedObject) -> NSAtomicStoreCacheNode = NSAtomicStore.newCacheNode(for:)
        }
        check("NSAtomicStore.updateCacheNode(_:from:)") {
            let _: (NSAtomicStore) -> (NSAtomicStoreCacheNode, NSManagedObject) -> Void = NSAtomicStore.updateCacheNode(_:from:)
        }
        check("NSAtomicStore.cacheNodes()") {
            let _: (NSAtomicStore) -> () -> Set<NSAtomicStoreCacheNode> = NSAtomicStore.cacheNodes
        }
        check("NSAtomicStore.addCacheNodes(_:)") {
            let _: (NSAtomicStore) -> (Set<NSAtomicStoreCacheNode>) -> Void = NSAtomicStore.addCacheNodes(_:)
        }
        check("NSAtomicStore.willRemoveCacheNodes(_:)") {
            let _: (NSAtomicStore) -> (Set<NSAtomicStoreCacheNode>) -> Void = NSAtomicStore.willRemoveCacheNodes(_:)
        }
        check("NSAtomicStore.cacheNode(for:)") {
            let _: (NSAtomicStore) -> (NSManagedObjectID) -> NSAtomicStoreCacheNode? = NSAtomicStore.cacheNode(for:)
        }
        check("NSAtomicStore.objectID(for:withReferenceObject:)") {
            let _: (NSAtomicStore) -> (NSEntityDescription, Any) -> NSManagedObjectID = NSAtomicStore.objectID(for:withReferenceObject:)
        }
        check("NSAtomicStore.newReferenceObject(for:)") {
            let _: (NSAtomicStore) -> (NSManagedObject) -> Any = NSAtomicStore.newReferenceObject(for:)
        }
        check("NSAtomicStore.referenceObject(for:)") {
            let _: (NSAtomicStore) -> (NSManagedObjectID) -> Any = NSAtomicStore.referenceObject(for:)
        }
    }
}
