import Foundation
import CoreData

extension APISignatures {
    static func nsIncrementalStoreNode(_ check: inout Checks) {
        check("NSIncrementalStoreNode") {
            let _: (NSIncrementalStoreNode) -> NSObject = { $0 }
        }
        check("NSIncrementalStoreNode.init(objectID:withValues:version:)") {
            let _: (NSManagedObjectID, [String: Any], UInt64) -> NSIncrementalStoreNode = NSIncrementalStoreNode.init(objectID:withValues:version:)
        }
        check("NSIncrementalStoreNode.update(withValues:version:)") {
            let _: (NSIncrementalStoreNode) -> ([String: Any], UInt64) -> Void = NSIncrementalStoreNode.update(withValues:version:)
        }
        check("NSIncrementalStoreNode.objectID") {
            let _: KeyPath<NSIncrementalStoreNode, NSManagedObjectID> = \.objectID
        }
        check("NSIncrementalStoreNode.version") {
            let _: KeyPath<NSIncrementalStoreNode, UInt64> = \.version
        }
        check("NSIncrementalStoreNode.value(for:)") {
            let _: (NSIncrementalStoreNode) -> (NSPropertyDescription) -> Any? = NSIncrementalStoreNode.value(for:)
        }
    }
}
