import Foundation
import CoreData

extension APISignatures {
    static func nsBatchUpdateRequest(_ check: inout Checks) {
        check("NSBatchUpdateRequest") {
            let _: NSPersistentStoreRequest = NSBatchUpdateRequest(entityName: "Item")
        }
        check("NSBatchUpdateRequest.init(entityName:)") {
            let _: (String) -> NSBatchUpdateRequest = NSBatchUpdateRequest.init(entityName:)
        }
        check("NSBatchUpdateRequest.init(entity:)") {
            let _: (NSEntityDescription) -> NSBatchUpdateRequest = NSBatchUpdateRequest.init(entity:)
        }
        check("NSBatchUpdateRequest.entityName") {
            let _: KeyPath<NSBatchUpdateRequest, String> = \.entityName
        }
        check("NSBatchUpdateRequest.entity") {
            // Apple's is a non-optional `NSEntityDescription { get }`.
            let _: ReferenceWritableKeyPath<NSBatchUpdateRequest, NSEntityDescription?> = \.entity
        }
        check("NSBatchUpdateRequest.predicate") {
            let _: ReferenceWritableKeyPath<NSBatchUpdateRequest, NSPredicate?> = \.predicate
        }
        check("NSBatchUpdateRequest.includesSubentities") {
            let _: ReferenceWritableKeyPath<NSBatchUpdateRequest, Bool> = \.includesSubentities
        }
        check("NSBatchUpdateRequest.resultType") {
            let _: ReferenceWritableKeyPath<NSBatchUpdateRequest, NSBatchUpdateRequestResultType> = \.resultType
        }
        check("NSBatchUpdateRequest.propertiesToUpdate") {
            let _: ReferenceWritableKeyPath<NSBatchUpdateRequest, [AnyHashable: Any]?> = \.propertiesToUpdate
        }
    }
}
