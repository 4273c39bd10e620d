import Foundation
import CoreData

extension APISignatures {
    static func nsFetchRequest(_ check: inout Checks) {
        check("NSFetchRequestResultType") {
            var type: NSFetchRequestResultType = [.managedObjectIDResultType]
            type.insert(.dictionaryResultType)
            let _: UInt = type.rawValue
            let _: any Sendable = type
        }
        check("NSFetchRequestResultType.init(rawValue:)") {
            let _: NSFetchRequestResultType = NSFetchRequestResultType(rawValue: 2)
        }
        check("NSFetchRequestResultType.managedObjectResultType") {
            let _: NSFetchRequestResultType = NSFetchRequestResultType.managedObjectResultType
        }
        check("NSFetchRequestResultType.managedObjectIDResultType") {
            let _: NSFetchRequestResultType = NSFetchRequestResultType.managedObjectIDResultType
        }
        check("NSFetchRequestResultType.dictionaryResultType") {
            let _: NSFetchRequestResultType = NSFetchRequestResultType.dictionaryResultType
        }
        check("NSFetchRequestResultType.countResultType") {
            let _: NSFetchRequestResultType = NSFetchRequestResultType.countResultType
        }
        check("NSFetchRequestResult") {
            // differs: an AnyObject protocol, not NSObjectProtocol.
            let _: any NSFetchRequestResult.Type = NSNumber.self
            let _: NSFetchRequest<any NSFetchRequestResult> = NSFetchRequest<any NSFetchRequestResult>(entityName: "E")
        }
        check("NSFetchRequestResult [NSNumber]") {
            let _: any NSFetchRequestResult = NSNumber(value: 1)
        }
        check("NSFetchRequestResult [NSDictionary]") {
            let _: any NSFetchRequestResult = NSDictionary()
        }
        check("NSFetchRequestResult [NSManagedObject]") {
            let _: any NSFetchRequestResult.Type = NSManagedObject.self
        }
        check("NSFetchRequestResult [NSManagedObjectID]") {
            let _: any NSFetchRequestResult.Type = NSManagedObjectID.self
        }
        check("NSFetchRequest") {
            // differs: final, ResultType unconstrained, no NSCoding.
            let _: NSPersistentStoreRequest = NSFetchRequest<NSManagedObject>(entityName: "E")
            let _: NSObject = NSFetchRequest<NSDictionary>()
        }
        check("NSFetchRequest.init()") {
            let _: NSFetchRequest<NSManagedObject> = NSFetchRequest<NSManagedObject>()
        }
        check("NSFetchRequest.init(entityName:)") {
            let _: NSFetchRequest<NSManagedObjectID> = NSFetchRequest<NSManagedObjectID>(entityName: "E")
            let _: NSFetchRequest<any NSFetchRequestResult> = NSFetchRequest(entityName: "E")
        }
        check("NSFetchRequest.entity") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, NSEntityDescription?> = \.entity
        }
        check("NSFetchRequest.entityName") {
            let _: KeyPath<NSFetchRequest<NSManagedObject>, String?> = \.entityName
        }
        check("NSFetchRequest.predicate") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, NSPredicate?> = \.predicate
        }
        check("NSFetchRequest.sortDescriptors") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, [NSSortDescriptor]?> = \.sortDescriptors
        }
        check("NSFetchRequest.fetchLimit") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, Int> = \.fetchLimit
        }
        check("NSFetchRequest.resultType") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, NSFetchRequestResultType> = \.resultType
        }
        check("NSFetchRequest.includesSubentities") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, Bool> = \.includesSubentities
        }
        check("NSFetchRequest.includesPropertyValues") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, Bool> = \.includesPropertyValues
        }
        check("NSFetchRequest.execute()") {
            let _: (NSFetchRequest<NSManagedObject>) -> () throws -> [NSManagedObject] = NSFetchRequest<NSManagedObject>.execute
        }
        check("NSFetchRequest.returnsObjectsAsFaults") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, Bool> = \.returnsObjectsAsFaults
        }
        check("NSFetchRequest.relationshipKeyPathsForPrefetching") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, [String]?> = \.relationshipKeyPathsForPrefetching
        }
        check("NSFetchRequest.includesPendingChanges") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, Bool> = \.includesPendingChanges
        }
        check("NSFetchRequest.returnsDistinctResults") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSDictionary>, Bool> = \.returnsDistinctResults
        }
        check("NSFetchRequest.propertiesToFetch") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSDictionary>, [Any]?> = \.propertiesToFetch
        }
        check("NSFetchRequest.fetchOffset") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, Int> = \.fetchOffset
        }
        check("NSFetchRequest.fetchBatchSize") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, Int> = \.fetchBatchSize
        }
        check("NSFetchRequest.shouldRefreshRefetchedObjects") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSManagedObject>, Bool> = \.shouldRefreshRefetchedObjects
        }
        check("NSFetchRequest.propertiesToGroupBy") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSDictionary>, [Any]?> = \.propertiesToGroupBy
        }
        check("NSFetchRequest.havingPredicate") {
            let _: ReferenceWritableKeyPath<NSFetchRequest<NSDictionary>, NSPredicate?> = \.havingPredicate
        }
    check("NSAsynchronousFetchRequest") {
            let _: NSPersistentStoreRequest = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "E"))
        }
        check("NSAsynchronousFetchRequest.init(fetchRequest:completionBlock:)") {
            var notSendable = 0
            let _: NSAsynchronousFetchRequest<NSManagedObject> = NSAsynchronousFetchRequest(
                fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "E"),
                completionBlock: { (result: NSAsynchronousFetchResult<NSManagedObject>) in notSendable += result.finalResult?.count ?? 0 })
            let _: NSAsynchronousFetchRequest<NSManagedObject> = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "E"))
        }
        check("NSAsynchronousFetchRequest.fetchRequest") {
            let _: KeyPath<NSAsynchronousFetchRequest<NSManagedObject>, NSFetchRequest<NSManagedObject>> = \.fetchRequest
        }
        check("NSAsynchronousFetchRequest.completionBlock") {
            let _: KeyPath<NSAsynchronousFetchRequest<NSManagedObject>, ((NSAsynchronousFetchResult<NSManagedObject>) -> Void)?> = \.completionBlock
        }
        check("NSAsynchronousFetchRequest.estimatedResultCount") {
            let _: ReferenceWritableKeyPath<NSAsynchronousFetchRequest<NSManagedObject>, Int> = \.estimatedResultCount
        }
    }
}
