import Foundation
import CoreData

extension APISignatures {
    static func nsBatchInsertRequest(_ check: inout Checks) {
        check("NSBatchInsertRequest") {
            let _: NSPersistentStoreRequest = NSBatchInsertRequest(entityName: "Item", objects: [])
        }
        check("NSBatchInsertRequest.entityName") {
            let _: KeyPath<NSBatchInsertRequest, String> = \.entityName
        }
        check("NSBatchInsertRequest.entity") {
            let _: KeyPath<NSBatchInsertRequest, NSEntityDescription?> = \.entity
        }
        check("NSBatchInsertRequest.objectsToInsert") {
            let _: ReferenceWritableKeyPath<NSBatchInsertRequest, [[String: Any]]?> = \.objectsToInsert
        }
        check("NSBatchInsertRequest.dictionaryHandler") {
            let _: ReferenceWritableKeyPath<NSBatchInsertRequest, ((NSMutableDictionary) -> Bool)?> = \.dictionaryHandler
            let request = NSBatchInsertRequest(entityName: "Item", objects: [])
            var notSendable = 0
            request.dictionaryHandler = { dictionary in notSendable += 1; dictionary["n"] = notSendable; return notSendable > 3 }
        }
        check("NSBatchInsertRequest.managedObjectHandler") {
            let _: ReferenceWritableKeyPath<NSBatchInsertRequest, ((NSManagedObject) -> Bool)?> = \.managedObjectHandler
            let request = NSBatchInsertRequest(entityName: "Item", objects: [])
            var notSendable = 0
            request.managedObjectHandler = { object in notSendable += 1; object.setValue(notSendable, forKey: "n"); return notSendable > 3 }
        }
        check("NSBatchInsertRequest.resultType") {
            let _: ReferenceWritableKeyPath<NSBatchInsertRequest, NSBatchInsertRequestResultType> = \.resultType
        }
        check("NSBatchInsertRequest.init(entityName:objects:)") {
            let _: (String, [[String: Any]]) -> NSBatchInsertRequest = NSBatchInsertRequest.init(entityName:objects:)
        }
        check("NSBatchInsertRequest.init(entity:objects:)") {
            let _: (NSEntityDescription, [[String: Any]]) -> NSBatchInsertRequest = NSBatchInsertRequest.init(entity:objects:)
        }
        check("NSBatchInsertRequest.init(entity:dictionaryHandler:)") {
            let _: (NSEntityDescription, @escaping (NSMutableDictionary) -> Bool) -> NSBatchInsertRequest = NSBatchInsertRequest.init(entity:dictionaryHandler:)
            var notSendable = 0
            let _: NSBatchInsertRequest = NSBatchInsertRequest(entity: NSEntityDescription(), dictionaryHandler: { _ in notSendable += 1; return notSendable > 3 })
        }
        check("NSBatchInsertRequest.init(entity:managedObjectHandler:)") {
            let _: (NSEntityDescription, @escaping (NSManagedObject) -> Bool) -> NSBatchInsertRequest = NSBatchInsertRequest.init(entity:managedObjectHandler:)
            var notSendable = 0
            let _: NSBatchInsertRequest = NSBatchInsertRequest(entity: NSEntityDescription(), managedObjectHandler: { _ in notSendable += 1; return notSendable > 3 })
        }
        check("NSBatchInsertRequest.init(entityName:dictionaryHandler:)") {
            let _: (String, @escaping (NSMutableDictionary) -> Bool) -> NSBatchInsertRequest = NSBatchInsertRequest.init(entityName:dictionaryHandler:)
            var notSendable = 0
            let _: NSBatchInsertRequest = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { _ in notSendable += 1; return notSendable > 3 })
        }
        check("NSBatchInsertRequest.init(entityName:managedObjectHandler:)") {
            let _: (String, @escaping (NSManagedObject) -> Bool) -> NSBatchInsertRequest = NSBatchInsertRequest.init(entityName:managedObjectHandler:)
            var notSendable = 0
            let _: NSBatchInsertRequest = NSBatchInsertRequest(entityName: "Item", managedObjectHandler: { _ in notSendable += 1; return notSendable > 3 })
        }
    }
}
