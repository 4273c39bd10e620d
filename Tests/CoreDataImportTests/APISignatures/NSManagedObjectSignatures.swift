import Foundation
import CoreData

extension APISignatures {
    static func nsManagedObject(_ check: inout Checks) {
        check("NSManagedObject") {
            let object = NSManagedObject(entity: NSEntityDescription(), insertInto: nil)
            let _: any NSFetchRequestResult = object
            let _: Int = object.hashValue
            let _: String = object.description
            let _: any NSObjectProtocol = object
            let _: (Any?) -> Bool = object.isEqual
            let _: Int = object.hash
        }
        check("NSManagedObject.willChangeValue(forKey:withSetMutation:using:)") {
            let _: (NSManagedObject) -> (String, NSKeyValueSetMutationKind, Set<AnyHashable>) -> Void
                = NSManagedObject.willChangeValue(forKey:withSetMutation:using:)
        }
        check("NSManagedObject.didChangeValue(forKey:withSetMutation:using:)") {
            let _: (NSManagedObject) -> (String, NSKeyValueSetMutationKind, Set<AnyHashable>) -> Void
                = NSManagedObject.didChangeValue(forKey:withSetMutation:using:)
        }
        check("NSManagedObject.entity()") {
            let _: () -> NSEntityDescription = NSManagedObject.entity
        }
        check("NSManagedObject.fetchRequest()") {
            let _: NSFetchRequest<any NSFetchRequestResult> = NSManagedObject.fetchRequest()
        }
        check("NSManagedObject.init(entity:insertInto:)") {
            let _: NSManagedObject = NSManagedObject(entity: NSEntityDescription(), insertInto: nil)
            let _: NSManagedObject = NSManagedObject(entity: NSEntityDescription(), insertInto: NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType))
        }
        check("NSManagedObject.init(context:)") {
            let _: NSManagedObject = NSManagedObject(context: NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType))
            func make<Entity: NSManagedObject>(_: Entity.Type, in context: NSManagedObjectContext) -> Entity { Entity(context: context) }
        }
        check("NSManagedObject.managedObjectContext") {
            let _: KeyPath<NSManagedObject, NSManagedObjectContext?> = \.managedObjectContext
        }
        check("NSManagedObject.entity") {
            let _: KeyPath<NSManagedObject, NSEntityDescription> = \.entity
        }
        check("NSManagedObject.objectID") {
            let _: KeyPath<NSManagedObject, NSManagedObjectID> = \.objectID
        }
        check("NSManagedObject.isInserted") {
            let _: KeyPath<NSManagedObject, Bool> = \.isInserted
        }
        check("NSManagedObject.isUpdated") {
            let _: KeyPath<NSManagedObject, Bool> = \.isUpdated
        }
        check("NSManagedObject.isDeleted") {
            let _: KeyPath<NSManagedObject, Bool> = \.isDeleted
        }
        check("NSManagedObject.hasChanges") {
            let _: KeyPath<NSManagedObject, Bool> = \.hasChanges
        }
        check("NSManagedObject.hasPersistentChangedValues") {
            let _: KeyPath<NSManagedObject, Bool> = \.hasPersistentChangedValues
        }
        check("NSManagedObject.isFault") {
            let _: KeyPath<NSManagedObject, Bool> = \.isFault
        }
        check("NSManagedObject.hasFault(forRelationshipNamed:)") {
            let _: (NSManagedObject) -> (String) -> Bool = NSManagedObject.hasFault(forRelationshipNamed:)
        }
        check("NSManagedObject.objectIDs(forRelationshipNamed:)") {
            let _: (NSManagedObject) -> (String) -> [NSManagedObjectID] = NSManagedObject.objectIDs(forRelationshipNamed:)
        }
        check("NSManagedObject.faultingState") {
            let _: KeyPath<NSManagedObject, Int> = \.faultingState
        }
        check("NSManagedObject.willAccessValue(forKey:)") {
            let _: (NSManagedObject) -> (String?) -> Void = NSManagedObject.willAccessValue(forKey:)
        }
        check("NSManagedObject.didAccessValue(forKey:)") {
            let _: (NSManagedObject) -> (String?) -> Void = NSManagedObject.didAccessValue(forKey:)
        }
        check("NSManagedObject.willChangeValue(forKey:)") {
            let _: (NSManagedObject) -> (String) -> Void = NSManagedObject.willChangeValue(forKey:)
        }
        check("NSManagedObject.didChangeValue(forKey:)") {
            let _: (NSManagedObject) -> (String) -> Void = NSManagedObject.didChangeValue(forKey:)
        }
        check("NSManagedObject.awakeFromFetch()") {
            let _: (NSManagedObject) -> () -> Void = NSManagedObject.awakeFromFetch
        }
        check("NSManagedObject.awakeFromInsert()") {
            let _: (NSManagedObject) -> () -> Void = NSManagedObject.awakeFromInsert
        }
        check("NSManagedObject.prepareForDeletion()") {
            let _: (NSManagedObject) -> () -> Void = NSManagedObject.prepareForDeletion
        }
        check("NSManagedObject.willSave()") {
            let _: (NSManagedObject) -> () -> Void = NSManagedObject.willSave
        }
        check("NSManagedObject.didSave()") {
            let _: (NSManagedObject) -> () -> Void = NSManagedObject.didSave
        }
        check("NSManagedObject.willTurnIntoFault()") {
            let _: (NSManagedObject) -> () -> Void = NSManagedObject.willTurnIntoFault
        }
        check("NSManagedObject.didTurnIntoFault()") {
            let _: (NSManagedObject) -> () -> Void = NSManagedObject.didTurnIntoFault
        }
        check("NSManagedObject.value(forKey:)") {
            let _: (NSManagedObject) -> (String) -> Any? = NSManagedObject.value(forKey:)
        }
        check("NSManagedObject.setValue(_:forKey:)") {
            let _: (NSManagedObject) -> (Any?, String) -> Void = NSManagedObject.setValue(_:forKey:)
        }
        check("NSManagedObject.primitiveValue(forKey:)") {
            let _: (NSManagedObject) -> (String) -> Any? = NSManagedObject.primitiveValue(forKey:)
        }
        check("NSManagedObject.setPrimitiveValue(_:forKey:)") {
            let _: (NSManagedObject) -> (Any?, String) -> Void = NSManagedObject.setPrimitiveValue(_:forKey:)
        }
        check("NSManagedObject.value(forKeyPath:)") {
            let _: (NSManagedObject) -> (String) -> Any? = NSManagedObject.value(forKeyPath:)
        }
        check("NSManagedObject.setValue(_:forKeyPath:)") {
            let _: (NSManagedObject) -> (Any?, String) -> Void = NSManagedObject.setValue(_:forKeyPath:)
        }
        check("NSManagedObject.mutableSetValue(forKey:)") {
            let _: (NSManagedObject) -> (String) -> NSManagedObjectSet = NSManagedObject.mutableSetValue(forKey:)
        }
        check("NSManagedObject.mutableOrderedSetValue(forKey:)") {
            let _: (NSManagedObject) -> (String) -> NSManagedObjectOrderedSet = NSManagedObject.mutableOrderedSetValue(forKey:)
        }
        check("NSManagedObject.committedValues(forKeys:)") {
            let _: (NSManagedObject) -> ([String]?) -> [String: Any] = NSManagedObject.committedValues(forKeys:)
        }
        check("NSManagedObject.changedValuesForCurrentEvent()") {
            let _: (NSManagedObject) -> () -> [String: Any] = NSManagedObject.changedValuesForCurrentEvent
        }
        check("NSManagedObject.changedValues()") {
            let _: (NSManagedObject) -> () -> [String: Any] = NSManagedObject.changedValues
        }
        check("NSManagedObject.validateValue(_:forKey:)") {
            let object = NSManagedObject(entity: NSEntityDescription(), insertInto: nil)
            var value: Any? = 1
            try object.validateValue(&value, forKey: "age")
            let _: (NSManagedObject) -> (AutoreleasingUnsafeMutablePointer<AnyObject?>, String) throws -> Void
                = NSManagedObject.validateValue(_:forKey:)
            final class Overriding: NSManagedObject {
                override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
                    try super.validateValue(value, forKey: key)
                }
            }
        }
        check("NSManagedObject.validateForDelete()") {
            let _: (NSManagedObject) -> () throws -> Void = NSManagedObject.validateForDelete
        }
        check("NSManagedObject.validateForInsert()") {
            let _: (NSManagedObject) -> () throws -> Void = NSManagedObject.validateForInsert
        }
        check("NSManagedObject.validateForUpdate()") {
            let _: (NSManagedObject) -> () throws -> Void = NSManagedObject.validateForUpdate
        }
        check("NSManagedObject.contextShouldIgnoreUnmodeledPropertyChanges") {
            let _: Bool = NSManagedObject.contextShouldIgnoreUnmodeledPropertyChanges
        }
        check("NSManagedObject.awake(fromSnapshotEvents:)") {
            let _: (NSManagedObject) -> (NSSnapshotEventType) -> Void = NSManagedObject.awake(fromSnapshotEvents:)
        }
        check("NSSnapshotEventType") {
            let flags: NSSnapshotEventType = [.undoUpdate, .rollback]
            let _: any OptionSet & Sendable = flags
            let _: UInt = flags.rawValue
        }
        check("NSSnapshotEventType.init(rawValue:)") {
            let _: NSSnapshotEventType = NSSnapshotEventType(rawValue: 1 << 4)
        }
        check("NSSnapshotEventType.undoInsertion") { let _: NSSnapshotEventType = .undoInsertion }
        check("NSSnapshotEventType.undoDeletion") { let _: NSSnapshotEventType = .undoDeletion }
        check("NSSnapshotEventType.undoUpdate") { let _: NSSnapshotEventType = .undoUpdate }
        check("NSSnapshotEventType.rollback") { let _: NSSnapshotEventType = .rollback }
        check("NSSnapshotEventType.refresh") { let _: NSSnapshotEventType = .refresh }
        check("NSSnapshotEventType.mergePolicy") { let _: NSSnapshotEventType = .mergePolicy }
    }
}
