import Foundation
import CoreData

extension APISignatures {
    static func nsAtomicStoreCacheNode(_ check: inout Checks) {
        check("NSAtomicStoreCacheNode") {
            let _: (NSAtomicStoreCacheNode) -> NSObject = { $0 }
            // OpenCoreData's class is @unchecked Sendable: a subclass must restate it (Apple's need not).
            final class Subclass: NSAtomicStoreCacheNode, @unchecked Sendable {}
            let _: (NSManagedObjectID) -> NSAtomicStoreCacheNode = Subclass.init(objectID:)
        }
        check("NSAtomicStoreCacheNode.init(objectID:)") {
            let _: (NSManagedObjectID) -> NSAtomicStoreCacheNode = NSAtomicStoreCacheNode.init(objectID:)
        }
        check("NSAtomicStoreCacheNode.objectID") {
            let _: KeyPath<NSAtomicStoreCacheNode, NSManagedObjectID> = \.objectID
        }
        check("NSAtomicStoreCacheNode.propertyCache") {
            let _: ReferenceWritableKeyPath<NSAtomicStoreCacheNode, NSMutableDictionary?> = \.propertyCache
        }
        check("NSAtomicStoreCacheNode.value(forKey:)") {
            let _: (NSAtomicStoreCacheNode) -> (String) -> Any? = NSAtomicStoreCacheNode.value(forKey:)
        }
        check("NSAtomicStoreCacheNode.setValue(_:forKey:)") {
            let _: (NSAtomicStoreCacheNode) -> (Any?, String) -> Void = NSAtomicStoreCacheNode.setValue(_:forKey:)
        }
    }
}
