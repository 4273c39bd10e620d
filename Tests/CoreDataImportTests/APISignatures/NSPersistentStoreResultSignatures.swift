import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentStoreResult(_ check: inout Checks) {
        check("NSBatchInsertRequestResultType") {
            let type: NSBatchInsertRequestResultType = .statusOnly
            let _: UInt = type.rawValue
            let _: NSBatchInsertRequestResultType? = NSBatchInsertRequestResultType(rawValue: 1)
        }
        check("NSBatchInsertRequestResultType.statusOnly") {
            let _: NSBatchInsertRequestResultType = .statusOnly
        }
        check("NSBatchInsertRequestResultType.objectIDs") {
            let _: NSBatchInsertRequestResultType = .objectIDs
        }
        check("NSBatchInsertRequestResultType.count") {
            let _: NSBatchInsertRequestResultType = .count
        }
        check("NSBatchUpdateRequestResultType") {
            let type: NSBatchUpdateRequestResultType = .statusOnlyResultType
            let _: UInt = type.rawValue
            let _: NSBatchUpdateRequestResultType? = NSBatchUpdateRequestResultType(rawValue: 1)
        }
        check("NSBatchUpdateRequestResultType.statusOnlyResultType") {
            let _: NSBatchUpdateRequestResultType = .statusOnlyResultType
        }
        check("NSBatchUpdateRequestResultType.updatedObjectIDsResultType") {
            let _: NSBatchUpdateRequestResultType = .updatedObjectIDsResultType
        }
        check("NSBatchUpdateRequestResultType.updatedObjectsCountResultType") {
            let _: NSBatchUpdateRequestResultType = .updatedObjectsCountResultType
        }
        check("NSBatchDeleteRequestResultType") {
            let type: NSBatchDeleteRequestResultType = .resultTypeStatusOnly
            let _: UInt = type.rawValue
            let _: NSBatchDeleteRequestResultType? = NSBatchDeleteRequestResultType(rawValue: 1)
        }
        check("NSBatchDeleteRequestResultType.resultTypeStatusOnly") {
            let _: NSBatchDeleteRequestResultType = .resultTypeStatusOnly
        }
        check("NSBatchDeleteRequestResultType.resultTypeObjectIDs") {
            let _: NSBatchDeleteRequestResultType = .resultTypeObjectIDs
        }
        check("NSBatchDeleteRequestResultType.resultTypeCount") {
            let _: NSBatchDeleteRequestResultType = .resultTypeCount
        }
        check("NSPersistentHistoryResultType") {
            let type: NSPersistentHistoryResultType = .statusOnly
            let _: Int = type.rawValue
            let _: NSPersistentHistoryResultType? = NSPersistentHistoryResultType(rawValue: 3)
        }
        check("NSPersistentHistoryResultType.statusOnly") {
            let _: NSPersistentHistoryResultType = .statusOnly
        }
        check("NSPersistentHistoryResultType.objectIDs") {
            let _: NSPersistentHistoryResultType = .objectIDs
        }
        check("NSPersistentHistoryResultType.count") {
            let _: NSPersistentHistoryResultType = .count
        }
        check("NSPersistentHistoryResultType.transactionsOnly") {
            let _: NSPersistentHistoryResultType = .transactionsOnly
        }
        check("NSPersistentHistoryResultType.changesOnly") {
            let _: NSPersistentHistoryResultType = .changesOnly
        }
        check("NSPersistentHistoryResultType.transactionsAndChanges") {
            let _: NSPersistentHistoryResultType = .transactionsAndChanges
        }
        check("NSPersistentStoreResult") {
            let _: (NSPersistentStoreResult) -> NSObject = { $0 }
        }
        check("NSBatchInsertResult") {
            let _: (NSBatchInsertResult) -> NSPersistentStoreResult = { $0 }
        }
        check("NSBatchInsertResult.result") {
            let _: KeyPath<NSBatchInsertResult, Any?> = \.result
        }
        check("NSBatchInsertResult.resultType") {
            let _: KeyPath<NSBatchInsertResult, NSBatchInsertRequestResultType> = \.resultType
        }
        check("NSBatchUpdateResult") {
            let _: (NSBatchUpdateResult) -> NSPersistentStoreResult = { $0 }
        }
        check("NSBatchUpdateResult.result") {
            let _: KeyPath<NSBatchUpdateResult, Any?> = \.result
        }
        check("NSBatchUpdateResult.resultType") {
            let _: KeyPath<NSBatchUpdateResult, NSBatchUpdateRequestResultType> = \.resultType
        }
        check("NSBatchDeleteResult") {
            let _: (NSBatchDeleteResult) -> NSPersistentStoreResult = { $0 }
        }
        check("NSBatchDeleteResult.result") {
            let _: KeyPath<NSBatchDeleteResult, Any?> = \.result
        }
        check("NSBatchDeleteResult.resultType") {
            let _: KeyPath<NSBatchDeleteResult, NSBatchDeleteRequestResultType> = \.resultType
        }
        check("NSPersistentHistoryResult") {
            let _: (NSPersistentHistoryResult) -> NSPersistentStoreResult = { $0 }
        }
        check("NSPersistentHistoryResult.result") {
            let _: KeyPath<NSPersistentHistoryResult, Any?> = \.result
        }
        check("NSPersistentHistoryResult.resultType") {
            let _: KeyPath<NSPersistentHistoryResult, NSPersistentHistoryResultType> = \.resultType
        }
        check("NSPersistentStoreAsynchronousResult") {
            let _: NSPersistentStoreResult.Type = NSPersistentStoreAsynchronousResult.self
        }
        check("NSPersistentStoreAsynchronousResult.managedObjectContext") {
            let _: KeyPath<NSPersistentStoreAsynchronousResult, NSManagedObjectContext> = \.managedObjectContext
        }
        check("NSPersistentStoreAsynchronousResult.operationError") {
            let _: KeyPath<NSPersistentStoreAsynchronousResult, (any Error)?> = \.operationError
        }
        check("NSPersistentStoreAsynchronousResult.progress") {
            let _: KeyPath<NSPersistentStoreAsynchronousResult, Progress?> = \.progress
        }
        check("NSPersistentStoreAsynchronousResult.cancel()") {
            let _: (NSPersistentStoreAsynchronousResult) -> () -> Void = NSPersistentStoreAsynchronousResult.cancel
        }
        check("NSAsynchronousFetchResult") {
            let _: NSPersistentStoreAsynchronousResult.Type = NSAsynchronousFetchResult<NSManagedObject>.self
        }
        check("NSAsynchronousFetchResult.fetchRequest") {
            let _: KeyPath<NSAsynchronousFetchResult<NSManagedObject>, NSAsynchronousFetchRequest<NSManagedObject>> = \.fetchRequest
        }
        check("NSAsynchronousFetchResult.finalResult") {
            let _: KeyPath<NSAsynchronousFetchResult<NSManagedObject>, [NSManagedObject]?> = \.finalResult
        }
    }
}
