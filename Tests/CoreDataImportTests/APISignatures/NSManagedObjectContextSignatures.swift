import Foundation
import CoreData

extension APISignatures {
    static func nsManagedObjectContext(_ check: inout Checks) {
        check("NSManagedObjectContext.init(coder:)") {
            let _: (NSCoder) -> NSManagedObjectContext? = NSManagedObjectContext.init(coder:)
            let _: any NSCoding.Type = NSManagedObjectContext.self
        }
        check("NSManagedObjectContext.encode(with:)") {
            let _: (NSManagedObjectContext) -> (NSCoder) -> Void = NSManagedObjectContext.encode(with:)
        }
        check("NSManagedObjectContext") {
            let _: NSObject = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        }
        check("NSManagedObjectContext.init()") {
            let _: NSManagedObjectContext = NSManagedObjectContext()
        }
        check("NSManagedObjectContext.init(concurrencyType:)") {
            let _: NSManagedObjectContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        }
        check("NSManagedObjectContext.perform(_:)") {
            let _: (NSManagedObjectContext) -> (@escaping () -> Void) -> Void = NSManagedObjectContext.perform
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            final class Counter { var count = 0 }
            let notSendable = Counter()
            context.perform { notSendable.count += 1 }
        }
        check("NSManagedObjectContext.performAndWait(_:)") {
            let _: (NSManagedObjectContext) -> (() -> Void) -> Void = NSManagedObjectContext.performAndWait
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            var notSendable = 0
            context.performAndWait { notSendable += 1 }
            _ = notSendable
        }
        check("NSManagedObjectContext.performAndWait(_:) [generic]") {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            var notSendable = 0
            let _: Int = try context.performAndWait { () throws -> Int in notSendable += 1; return notSendable }
            let _: Int = context.performAndWait { () -> Int in notSendable += 1; return notSendable }
        }
        check("NSManagedObjectContext.perform(schedule:_:)") {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            let _: Int = try await context.perform { () throws -> Int in 1 }
            let _: Int = try await context.perform(schedule: .enqueued) { () throws -> Int in 1 }
            let _: Int = await context.perform(schedule: .immediate) { () -> Int in 1 }
        }
        check("NSManagedObjectContext.persistentStoreCoordinator") {
            let _: ReferenceWritableKeyPath<NSManagedObjectContext, NSPersistentStoreCoordinator?> = \.persistentStoreCoordinator
        }
        check("NSManagedObjectContext.parent") {
            let _: ReferenceWritableKeyPath<NSManagedObjectContext, NSManagedObjectContext?> = \.parent
        }
        check("NSManagedObjectContext.name") {
            let _: ReferenceWritableKeyPath<NSManagedObjectContext, String?> = \.name
        }
        check("NSManagedObjectContext.userInfo") {
            let _: KeyPath<NSManagedObjectContext, NSMutableDictionary> = \.userInfo
        }
        check("NSManagedObjectContext.undoManager") {
            let _: ReferenceWritableKeyPath<NSManagedObjectContext, UndoManager?> = \.undoManager
        }
        check("NSManagedObjectContext.hasChanges") {
            let _: KeyPath<NSManagedObjectContext, Bool> = \.hasChanges
        }
        check("NSManagedObjectContext.concurrencyType") {
            let _: KeyPath<NSManagedObjectContext, NSManagedObjectContextConcurrencyType> = \.concurrencyType
        }
        check("NSManagedObjectContext.registeredObject(for:)") {
            let _: (NSManagedObjectContext) -> (NSManagedObjectID) -> NSManagedObject? = NSManagedObjectContext.registeredObject(for:)
        }
        check("NSManagedObjectContext.object(with:)") {
            let _: (NSManagedObjectContext) -> (NSManagedObjectID) -> NSManagedObject = NSManagedObjectContext.object(with:)
        }
        check("NSManagedObjectContext.existingObject(with:)") {
            let _: (NSManagedObjectContext) -> (NSManagedObjectID) throws -> NSManagedObject = NSManagedObjectContext.existingObject(with:)
        }
        check("NSManagedObjectContext.fetch(_:)") {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            let _: [NSManagedObject] = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "E"))
        }
        check("NSManagedObjectContext.fetch(_:) [untyped]") {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            let _: [Any] = try context.fetch(NSFetchRequest<any NSFetchRequestResult>(entityName: "E"))
        }
        check("NSManagedObjectContext.count(for:)") {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            let _: Int = try context.count(for: NSFetchRequest<any NSFetchRequestResult>(entityName: "E"))
        }
        check("NSManagedObjectContext.count(for:) [generic]") {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            let _: Int = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "E"))
        }
        check("NSManagedObjectContext.execute(_:)") {
            let _: (NSManagedObjectContext) -> (NSPersistentStoreRequest) throws -> NSPersistentStoreResult = NSManagedObjectContext.execute(_:)
        }
        check("NSManagedObjectContext.insert(_:)") {
            let _: (NSManagedObjectContext) -> (NSManagedObject) -> Void = NSManagedObjectContext.insert(_:)
        }
        check("NSManagedObjectContext.delete(_:)") {
            let _: (NSManagedObjectContext) -> (NSManagedObject) -> Void = NSManagedObjectContext.delete(_:)
        }
        check("NSManagedObjectContext.refresh(_:mergeChanges:)") {
            let _: (NSManagedObjectContext) -> (NSManagedObject, Bool) -> Void = NSManagedObjectContext.refresh(_:mergeChanges:)
        }
        check("NSManagedObjectContext.processPendingChanges()") {
            let _: (NSManagedObjectContext) -> () -> Void = NSManagedObjectContext.processPendingChanges
        }
        check("NSManagedObjectContext.assign(_:to:)") {
            let _: (NSManagedObjectContext) -> (Any, NSPersistentStore) -> Void = NSManagedObjectContext.assign(_:to:)
        }
        check("NSManagedObjectContext.insertedObjects") {
            let _: KeyPath<NSManagedObjectContext, Set<NSManagedObject>> = \.insertedObjects
        }
        check("NSManagedObjectContext.updatedObjects") {
            let _: KeyPath<NSManagedObjectContext, Set<NSManagedObject>> = \.updatedObjects
        }
        check("NSManagedObjectContext.deletedObjects") {
            let _: KeyPath<NSManagedObjectContext, Set<NSManagedObject>> = \.deletedObjects
        }
        check("NSManagedObjectContext.registeredObjects") {
            let _: KeyPath<NSManagedObjectContext, Set<NSManagedObject>> = \.registeredObjects
        }
        check("NSManagedObjectContext.undo()") {
            let _: (NSManagedObjectContext) -> () -> Void = NSManagedObjectContext.undo
        }
        check("NSManagedObjectContext.redo()") {
            let _: (NSManagedObjectContext) -> () -> Void = NSManagedObjectContext.redo
        }
        check("NSManagedObjectContext.detectConflicts(for:)") {
            let _: (NSManagedObjectContext) -> (NSManagedObject) -> Void = NSManagedObjectContext.detectConflicts(for:)
        }
        check("NSManagedObjectContext.lock()") { let _: (NSManagedObjectContext) -> () -> Void = NSManagedObjectContext.lock }
        check("NSManagedObjectContext.unlock()") { let _: (NSManagedObjectContext) -> () -> Void = NSManagedObjectContext.unlock }
        check("NSManagedObjectContext.tryLock()") { let _: (NSManagedObjectContext) -> () -> Bool = NSManagedObjectContext.tryLock }
        check("NSManagedObjectContext.reset()") {
            let _: (NSManagedObjectContext) -> () -> Void = NSManagedObjectContext.reset
        }
        check("NSManagedObjectContext.rollback()") {
            let _: (NSManagedObjectContext) -> () -> Void = NSManagedObjectContext.rollback
        }
        check("NSManagedObjectContext.save()") {
            let _: (NSManagedObjectContext) -> () throws -> Void = NSManagedObjectContext.save
        }
        check("NSManagedObjectContext.refreshAllObjects()") {
            let _: (NSManagedObjectContext) -> () -> Void = NSManagedObjectContext.refreshAllObjects
        }
        check("NSManagedObjectContext.propagatesDeletesAtEndOfEvent") {
            let _: ReferenceWritableKeyPath<NSManagedObjectContext, Bool> = \.propagatesDeletesAtEndOfEvent
        }
        check("NSManagedObjectContext.retainsRegisteredObjects") {
            let _: ReferenceWritableKeyPath<NSManagedObjectContext, Bool> = \.retainsRegisteredObjects
        }
        check("NSManagedObjectContext.shouldDeleteInaccessibleFaults") {
            let _: ReferenceWritableKeyPath<NSManagedObjectContext, Bool> = \.shouldDeleteInaccessibleFaults
        }
        check("NSManagedObjectContext.shouldHandleInaccessibleFault(_:for:triggeredByProperty:)") {
            let _: (NSManagedObjectContext) -> (NSManagedObject, NSManagedObjectID, NSPropertyDescription?) -> Bool
                = NSManagedObjectContext.shouldHandleInaccessibleFault(_:for:triggeredByProperty:)
        }
        check("NSManagedObjectContext.stalenessInterval") {
            let _: ReferenceWritableKeyPath<NSManagedObjectContext, TimeInterval> = \.stalenessInterval
        }
        check("NSManagedObjectContext.mergePolicy") {
            let _: ReferenceWritableKeyPath<NSManagedObjectContext, Any> = \.mergePolicy
        }
        check("NSManagedObjectContext.obtainPermanentIDs(for:)") {
            let _: (NSManagedObjectContext) -> ([NSManagedObject]) throws -> Void = NSManagedObjectContext.obtainPermanentIDs(for:)
        }
        check("NSManagedObjectContext.mergeChanges(fromContextDidSave:)") {
            let _: (NSManagedObjectContext) -> (Notification) -> Void = NSManagedObjectContext.mergeChanges(fromContextDidSave:)
        }
        check("NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)") {
            let _: ([AnyHashable: Any], [NSManagedObjectContext]) -> Void = NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)
        }
        check("NSManagedObjectContext.queryGenerationToken") {
            let _: KeyPath<NSManagedObjectContext, NSQueryGenerationToken?> = \.queryGenerationToken
        }
        check("NSManagedObjectContext.setQueryGenerationFrom(_:)") {
            let _: (NSManagedObjectContext) -> (NSQueryGenerationToken?) throws -> Void = NSManagedObjectContext.setQueryGenerationFrom(_:)
        }
        check("NSManagedObjectContext.automaticallyMergesChangesFromParent") {
            let _: ReferenceWritableKeyPath<NSManagedObjectContext, Bool> = \.automaticallyMergesChangesFromParent
        }
        check("NSManagedObjectContext.transactionAuthor") {
            let _: ReferenceWritableKeyPath<NSManagedObjectContext, String?> = \.transactionAuthor
        }
        check("NSManagedObjectContextConcurrencyType") {
            let type: NSManagedObjectContextConcurrencyType = .privateQueueConcurrencyType
            let _: UInt = type.rawValue
            let _: NSManagedObjectContextConcurrencyType? = NSManagedObjectContextConcurrencyType(rawValue: 2)
        }
        check("NSManagedObjectContextConcurrencyType.confinementConcurrencyType") {
            let _: NSManagedObjectContextConcurrencyType = .confinementConcurrencyType
        }
        check("NSManagedObjectContextConcurrencyType.privateQueueConcurrencyType") {
            let _: NSManagedObjectContextConcurrencyType = .privateQueueConcurrencyType
        }
        check("NSManagedObjectContextConcurrencyType.mainQueueConcurrencyType") {
            let _: NSManagedObjectContextConcurrencyType = .mainQueueConcurrencyType
        }
        check("NSManagedObjectContext.ConcurrencyType") {
            let type: NSManagedObjectContext.ConcurrencyType = .mainQueue
            let _: Int = type.hashValue
        }
        check("NSManagedObjectContext.ConcurrencyType.init(rawValue:)") {
            let _: NSManagedObjectContext.ConcurrencyType = NSManagedObjectContext.ConcurrencyType(rawValue: .privateQueueConcurrencyType)
        }
        check("NSManagedObjectContext.ConcurrencyType.rawValue") {
            let _: WritableKeyPath<NSManagedObjectContext.ConcurrencyType, NSManagedObjectContextConcurrencyType> = \.rawValue
        }
        check("NSManagedObjectContext.ConcurrencyType.privateQueue") {
            let _: NSManagedObjectContext.ConcurrencyType = .privateQueue
        }
        check("NSManagedObjectContext.ConcurrencyType.mainQueue") {
            let _: NSManagedObjectContext.ConcurrencyType = .mainQueue
        }
        check("NSManagedObjectContext.init(_:)") {
            let _: NSManagedObjectContext = NSManagedObjectContext(.privateQueue)
        }
        check("NSManagedObjectContext.ScheduledTaskType") {
            let type: NSManagedObjectContext.ScheduledTaskType = .immediate
            let _: Int = type.hashValue
        }
        check("NSManagedObjectContext.ScheduledTaskType.immediate") {
            let _: NSManagedObjectContext.ScheduledTaskType = .immediate
        }
        check("NSManagedObjectContext.ScheduledTaskType.enqueued") {
            let _: NSManagedObjectContext.ScheduledTaskType = .enqueued
        }
        check("NSNotification.Name.NSManagedObjectContextWillSave") {
            let _: NSNotification.Name = .NSManagedObjectContextWillSave
        }
        check("NSNotification.Name.NSManagedObjectContextDidSave") {
            let _: NSNotification.Name = .NSManagedObjectContextDidSave
        }
        check("NSNotification.Name.NSManagedObjectContextObjectsDidChange") {
            let _: NSNotification.Name = .NSManagedObjectContextObjectsDidChange
        }
        check("NSManagedObjectContext.willSaveObjectsNotification") {
            let _: Notification.Name = NSManagedObjectContext.willSaveObjectsNotification
        }
        check("NSManagedObjectContext.didSaveObjectsNotification") {
            let _: Notification.Name = NSManagedObjectContext.didSaveObjectsNotification
        }
        check("NSManagedObjectContext.didChangeObjectsNotification") {
            let _: Notification.Name = NSManagedObjectContext.didChangeObjectsNotification
        }
        check("NSNotification.Name.NSManagedObjectContextDidSaveObjectIDs") {
            let _: NSNotification.Name = .NSManagedObjectContextDidSaveObjectIDs
        }
        check("NSNotification.Name.NSManagedObjectContextDidMergeChangesObjectIDs") {
            let _: NSNotification.Name = .NSManagedObjectContextDidMergeChangesObjectIDs
        }
        check("NSManagedObjectContext.didSaveObjectIDsNotification") {
            let _: Notification.Name = NSManagedObjectContext.didSaveObjectIDsNotification
        }
        check("NSManagedObjectContext.didMergeChangesObjectIDsNotification") {
            let _: Notification.Name = NSManagedObjectContext.didMergeChangesObjectIDsNotification
        }
        check("NSManagedObjectContext.NotificationKey") {
            let key: NSManagedObjectContext.NotificationKey = .insertedObjects
            let _: Int = key.hashValue
        }
        check("NSManagedObjectContext.NotificationKey.init(rawValue:)") {
            let _: NSManagedObjectContext.NotificationKey? = NSManagedObjectContext.NotificationKey(rawValue: "inserted")
        }
        check("NSManagedObjectContext.NotificationKey.rawValue") {
            let _: KeyPath<NSManagedObjectContext.NotificationKey, String> = \.rawValue
        }
        check("NSManagedObjectContext.NotificationKey.queryGeneration") {
            let _: NSManagedObjectContext.NotificationKey = .queryGeneration
        }
        check("NSManagedObjectContext.NotificationKey.invalidatedAllObjects") {
            let _: NSManagedObjectContext.NotificationKey = .invalidatedAllObjects
        }
        check("NSManagedObjectContext.NotificationKey.insertedObjects") {
            let _: NSManagedObjectContext.NotificationKey = .insertedObjects
        }
        check("NSManagedObjectContext.NotificationKey.updatedObjects") {
            let _: NSManagedObjectContext.NotificationKey = .updatedObjects
        }
        check("NSManagedObjectContext.NotificationKey.deletedObjects") {
            let _: NSManagedObjectContext.NotificationKey = .deletedObjects
        }
        check("NSManagedObjectContext.NotificationKey.refreshedObjects") {
            let _: NSManagedObjectContext.NotificationKey = .refreshedObjects
        }
        check("NSManagedObjectContext.NotificationKey.invalidatedObjects") {
            let _: NSManagedObjectContext.NotificationKey = .invalidatedObjects
        }
        check("NSManagedObjectContext.NotificationKey.insertedObjectIDs") {
            let _: NSManagedObjectContext.NotificationKey = .insertedObjectIDs
        }
        check("NSManagedObjectContext.NotificationKey.updatedObjectIDs") {
            let _: NSManagedObjectContext.NotificationKey = .updatedObjectIDs
        }
        check("NSManagedObjectContext.NotificationKey.deletedObjectIDs") {
            let _: NSManagedObjectContext.NotificationKey = .deletedObjectIDs
        }
        check("NSManagedObjectContext.NotificationKey.refreshedObjectIDs") {
            let _: NSManagedObjectContext.NotificationKey = .refreshedObjectIDs
        }
        check("NSManagedObjectContext.NotificationKey.invalidatedObjectIDs") {
            let _: NSManagedObjectContext.NotificationKey = .invalidatedObjectIDs
        }
        check("NSInsertedObjectsKey") { let _: String = NSInsertedObjectsKey }
        check("NSUpdatedObjectsKey") { let _: String = NSUpdatedObjectsKey }
        check("NSDeletedObjectsKey") { let _: String = NSDeletedObjectsKey }
        check("NSRefreshedObjectsKey") { let _: String = NSRefreshedObjectsKey }
        check("NSInvalidatedObjectsKey") { let _: String = NSInvalidatedObjectsKey }
        check("NSManagedObjectContextQueryGenerationKey") { let _: String = NSManagedObjectContextQueryGenerationKey }
        check("NSInvalidatedAllObjectsKey") { let _: String = NSInvalidatedAllObjectsKey }
        check("NSInsertedObjectIDsKey") { let _: String = NSInsertedObjectIDsKey }
        check("NSUpdatedObjectIDsKey") { let _: String = NSUpdatedObjectIDsKey }
        check("NSDeletedObjectIDsKey") { let _: String = NSDeletedObjectIDsKey }
        check("NSRefreshedObjectIDsKey") { let _: String = NSRefreshedObjectIDsKey }
        check("NSInvalidatedObjectIDsKey") { let _: String = NSInvalidatedObjectIDsKey }
    }
}
