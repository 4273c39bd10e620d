import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentStoreCoordinator(_ check: inout Checks) {
        check("NSPersistentStoreCoordinator.registeredStoreTypes") {
            let _: [String: NSValue] = NSPersistentStoreCoordinator.registeredStoreTypes
        }
        check("NSSQLiteStoreType") { let _: String = NSSQLiteStoreType }
        check("NSXMLStoreType") { let _: String = NSXMLStoreType }
        check("NSBinaryStoreType") { let _: String = NSBinaryStoreType }
        check("NSPersistentStoreOSCompatibility") { let _: String = NSPersistentStoreOSCompatibility }
        check("NSBinaryStoreSecureDecodingClasses") { let _: String = NSBinaryStoreSecureDecodingClasses }
        check("NSBinaryStoreInsecureDecodingCompatibilityOption") { let _: String = NSBinaryStoreInsecureDecodingCompatibilityOption }
        check("NSInMemoryStoreType") { let _: String = NSInMemoryStoreType }
        check("NSStoreTypeKey") { let _: String = NSStoreTypeKey }
        check("NSStoreUUIDKey") { let _: String = NSStoreUUIDKey }
        check("NSNotification.Name.NSPersistentStoreCoordinatorStoresWillChange") {
            let _: NSNotification.Name = NSNotification.Name.NSPersistentStoreCoordinatorStoresWillChange
        }
        check("NSNotification.Name.NSPersistentStoreCoordinatorStoresDidChange") {
            let _: NSNotification.Name = NSNotification.Name.NSPersistentStoreCoordinatorStoresDidChange
        }
        check("NSNotification.Name.NSPersistentStoreCoordinatorWillRemoveStore") {
            let _: NSNotification.Name = NSNotification.Name.NSPersistentStoreCoordinatorWillRemoveStore
        }
        check("NSAddedPersistentStoresKey") { let _: String = NSAddedPersistentStoresKey }
        check("NSRemovedPersistentStoresKey") { let _: String = NSRemovedPersistentStoresKey }
        check("NSUUIDChangedPersistentStoresKey") { let _: String = NSUUIDChangedPersistentStoresKey }
        check("NSReadOnlyPersistentStoreOption") { let _: String = NSReadOnlyPersistentStoreOption }
        check("NSPersistentStoreTimeoutOption") { let _: String = NSPersistentStoreTimeoutOption }
        check("NSSQLitePragmasOption") { let _: String = NSSQLitePragmasOption }
        check("NSSQLiteAnalyzeOption") { let _: String = NSSQLiteAnalyzeOption }
        check("NSSQLiteManualVacuumOption") { let _: String = NSSQLiteManualVacuumOption }
        check("NSPersistentStoreConnectionPoolMaxSizeKey") { let _: String = NSPersistentStoreConnectionPoolMaxSizeKey }
        check("NSMigratePersistentStoresAutomaticallyOption") { let _: String = NSMigratePersistentStoresAutomaticallyOption }
        check("NSInferMappingModelAutomaticallyOption") { let _: String = NSInferMappingModelAutomaticallyOption }
        check("NSIgnorePersistentStoreVersioningOption") { let _: String = NSIgnorePersistentStoreVersioningOption }
        check("NSPersistentStoreDeferredLightweightMigrationOptionKey") { let _: String = NSPersistentStoreDeferredLightweightMigrationOptionKey }
        check("NSPersistentStoreCoordinator.cachedModelForPersistentStore(at:options:)") {
            let _: (URL, [AnyHashable: Any]?) throws -> NSManagedObjectModel = NSPersistentStoreCoordinator.cachedModelForPersistentStore(at:options:)
            _ = try? NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: URL(fileURLWithPath: "/nonexistent.sqlite"))
        }
        check("NSPersistentStoreCoordinator.setURL(_:for:)") {
            let _: (NSPersistentStoreCoordinator) -> (URL, NSPersistentStore) -> Bool = NSPersistentStoreCoordinator.setURL(_:for:)
        }
        check("NSPersistentStoreCoordinator.finishDeferredLightweightMigration()") {
            let _: (NSPersistentStoreCoordinator) -> () throws -> Void = NSPersistentStoreCoordinator.finishDeferredLightweightMigration
            try NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel()).finishDeferredLightweightMigration()
        }
        check("NSPersistentStoreCoordinator.finishDeferredLightweightMigrationTask()") {
            let _: (NSPersistentStoreCoordinator) -> () throws -> Void = NSPersistentStoreCoordinator.finishDeferredLightweightMigrationTask
            try NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel()).finishDeferredLightweightMigrationTask()
        }
        check("NSStoreModelVersionHashesKey") { let _: String = NSStoreModelVersionHashesKey }
        check("NSStoreModelVersionIdentifiersKey") { let _: String = NSStoreModelVersionIdentifiersKey }
        check("NSPersistentStoreStagedMigrationManagerOptionKey") { let _: String = NSPersistentStoreStagedMigrationManagerOptionKey }
        check("NSPersistentHistoryTrackingKey") { let _: String = NSPersistentHistoryTrackingKey }
        check("NSPersistentStoreRemoteChangeNotificationPostOptionKey") {
            let _: String = NSPersistentStoreRemoteChangeNotificationPostOptionKey
        }
        check("NSNotification.Name.NSPersistentStoreRemoteChange") {
            let _: NSNotification.Name = NSNotification.Name.NSPersistentStoreRemoteChange
        }
        check("NSPersistentStoreURLKey") { let _: String = NSPersistentStoreURLKey }
        check("NSPersistentHistoryTokenKey") { let _: String = NSPersistentHistoryTokenKey }
        check("NSPersistentStoreCoordinator") {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            let _: NSObject = coordinator
            let _: any Sendable = coordinator
            let _: any NSLocking = coordinator
        }
        check("NSPersistentStoreCoordinator.lock()") { let _: (NSPersistentStoreCoordinator) -> () -> Void = NSPersistentStoreCoordinator.lock }
        check("NSPersistentStoreCoordinator.unlock()") { let _: (NSPersistentStoreCoordinator) -> () -> Void = NSPersistentStoreCoordinator.unlock }
        check("NSPersistentStoreCoordinator.tryLock()") { let _: (NSPersistentStoreCoordinator) -> () -> Bool = NSPersistentStoreCoordinator.tryLock }
        check("NSPersistentStoreCoordinator.init(managedObjectModel:)") {
            let _: (NSManagedObjectModel) -> NSPersistentStoreCoordinator = NSPersistentStoreCoordinator.init(managedObjectModel:)
        }
        check("NSPersistentStoreCoordinator.managedObjectModel") {
            let _: KeyPath<NSPersistentStoreCoordinator, NSManagedObjectModel> = \.managedObjectModel
        }
        check("NSPersistentStoreCoordinator.persistentStores") {
            let _: KeyPath<NSPersistentStoreCoordinator, [NSPersistentStore]> = \.persistentStores
        }
        check("NSPersistentStoreCoordinator.name") {
            let _: ReferenceWritableKeyPath<NSPersistentStoreCoordinator, String?> = \.name
        }
        check("NSPersistentStoreCoordinator.persistentStore(for:)") {
            let _: (NSPersistentStoreCoordinator) -> (URL) -> NSPersistentStore? = NSPersistentStoreCoordinator.persistentStore(for:)
        }
        check("NSPersistentStoreCoordinator.addPersistentStore(ofType:configurationName:at:options:)") {
            let _: (NSPersistentStoreCoordinator) -> (String, String?, URL?, [AnyHashable: Any]?) throws -> NSPersistentStore
                = NSPersistentStoreCoordinator.addPersistentStore(ofType:configurationName:at:options:)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            let _: NSPersistentStore = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
                                                                          at: URL(fileURLWithPath: "/x"))
        }
        check("NSPersistentStoreCoordinator.remove(_:)") {
            let _: (NSPersistentStoreCoordinator) -> (NSPersistentStore) throws -> Void = NSPersistentStoreCoordinator.remove(_:)
        }
        check("NSPersistentStoreCoordinator.setMetadata(_:for:)") {
            let _: (NSPersistentStoreCoordinator) -> ([String: Any]?, NSPersistentStore) -> Void = NSPersistentStoreCoordinator.setMetadata(_:for:)
        }
        check("NSPersistentStoreCoordinator.metadata(for:)") {
            let _: (NSPersistentStoreCoordinator) -> (NSPersistentStore) -> [String: Any] = NSPersistentStoreCoordinator.metadata(for:)
        }
        check("NSPersistentStoreCoordinator.managedObjectID(forURIRepresentation:)") {
            let _: (NSPersistentStoreCoordinator) -> (URL) -> NSManagedObjectID?
                = NSPersistentStoreCoordinator.managedObjectID(forURIRepresentation:)
        }
        check("NSPersistentStoreCoordinator.registerStoreClass(_:forStoreType:)") {
            let _: (AnyClass?, String) -> Void = NSPersistentStoreCoordinator.registerStoreClass(_:forStoreType:)
        }
        check("NSPersistentStoreCoordinator.metadataForPersistentStore(ofType:at:options:)") {
            let _: (String, URL, [AnyHashable: Any]?) throws -> [String: Any]
                = NSPersistentStoreCoordinator.metadataForPersistentStore(ofType:at:options:)
            let _: [String: Any] = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType,
                                                                                                at: URL(fileURLWithPath: "/x"), options: nil)
        }
        check("NSPersistentStoreCoordinator.execute(_:with:)") {
            let _: (NSPersistentStoreCoordinator) -> (NSPersistentStoreRequest, NSManagedObjectContext) throws -> Any
                = NSPersistentStoreCoordinator.execute(_:with:)
        }
        check("NSPersistentStoreCoordinator.metadataForPersistentStore(with:)") {
            let _: (URL) throws -> [AnyHashable: Any] = NSPersistentStoreCoordinator.metadataForPersistentStore(with:)
        }
        check("NSPersistentStoreCoordinator.setMetadata(_:forPersistentStoreOfType:at:options:)") {
            let _: ([String: Any]?, String, URL, [AnyHashable: Any]?) throws -> Void
                = NSPersistentStoreCoordinator.setMetadata(_:forPersistentStoreOfType:at:options:)
            try NSPersistentStoreCoordinator.setMetadata(nil, forPersistentStoreOfType: NSSQLiteStoreType, at: URL(fileURLWithPath: "/x"),
                                                         options: nil)
        }
        check("NSPersistentStoreCoordinator.migratePersistentStore(_:to:options:withType:)") {
            let _: (NSPersistentStoreCoordinator) -> (NSPersistentStore, URL, [AnyHashable: Any]?, String) throws -> NSPersistentStore
                = NSPersistentStoreCoordinator.migratePersistentStore(_:to:options:withType:)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            let store = coordinator.persistentStores[0]
            let _: NSPersistentStore = try coordinator.migratePersistentStore(store, to: URL(fileURLWithPath: "/y"), withType: NSBinaryStoreType)
        }
        check("NSPersistentStoreCoordinator.destroyPersistentStore(at:ofType:options:)") {
            let _: (NSPersistentStoreCoordinator) -> (URL, String, [AnyHashable: Any]?) throws -> Void
                = NSPersistentStoreCoordinator.destroyPersistentStore(at:ofType:options:)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            try coordinator.destroyPersistentStore(at: URL(fileURLWithPath: "/x"), ofType: NSSQLiteStoreType)
        }
        check("NSPersistentStoreCoordinator.replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)") {
            let _: (NSPersistentStoreCoordinator) -> (URL, [AnyHashable: Any]?, URL, [AnyHashable: Any]?, String) throws -> Void
                = NSPersistentStoreCoordinator.replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            try coordinator.replacePersistentStore(at: URL(fileURLWithPath: "/x"), withPersistentStoreFrom: URL(fileURLWithPath: "/y"),
                                                   ofType: NSSQLiteStoreType)
        }
        check("NSPersistentStoreCoordinator.currentPersistentHistoryToken(fromStores:)") {
            let _: (NSPersistentStoreCoordinator) -> ([Any]?) -> NSPersistentHistoryToken?
                = NSPersistentStoreCoordinator.currentPersistentHistoryToken(fromStores:)
        }
        check("NSPersistentStoreCoordinator.metadataForPersistentStore(ofType:at:)") {
            // differs: no such overload; a non-nil type resolves to the `options:` one.
            let _: [String: Any] = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType,
                                                                                                at: URL(fileURLWithPath: "/x"))
        }
        check("NSPersistentStoreCoordinator.setMetadata(_:forPersistentStoreOfType:at:)") {
            // differs: no such overload; a non-nil type resolves to the `options:` one.
            try NSPersistentStoreCoordinator.setMetadata([:], forPersistentStoreOfType: NSSQLiteStoreType, at: URL(fileURLWithPath: "/x"))
        }
        check("NSPersistentStoreCoordinator.addPersistentStore(type:configuration:at:options:)") {
            let _: (NSPersistentStoreCoordinator) -> (NSPersistentStore.StoreType, String?, URL, [AnyHashable: Any]?) throws -> NSPersistentStore
                = NSPersistentStoreCoordinator.addPersistentStore(type:configuration:at:options:)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            let _: NSPersistentStore = try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "/x"))
        }
        check("NSPersistentStoreCoordinator.registerStoreClass(_:type:)") {
            let _: (AnyClass?, NSPersistentStore.StoreType) -> Void = NSPersistentStoreCoordinator.registerStoreClass(_:type:)
        }
        check("NSPersistentStoreCoordinator.metadataForPersistentStore(type:at:options:)") {
            let _: (NSPersistentStore.StoreType, URL, [AnyHashable: Any]?) throws -> [String: Any]
                = NSPersistentStoreCoordinator.metadataForPersistentStore(type:at:options:)
            let _: [String: Any] = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "/x"))
        }
        check("NSPersistentStoreCoordinator.setMetadata(_:type:at:options:)") {
            let _: ([String: Any]?, NSPersistentStore.StoreType, URL, [AnyHashable: Any]?) throws -> Void
                = NSPersistentStoreCoordinator.setMetadata(_:type:at:options:)
            try NSPersistentStoreCoordinator.setMetadata(nil, type: .sqlite, at: URL(fileURLWithPath: "/x"))
        }
        check("NSPersistentStoreCoordinator.migratePersistentStore(_:to:options:type:)") {
            let _: (NSPersistentStoreCoordinator) -> (NSPersistentStore, URL, [AnyHashable: Any]?, NSPersistentStore.StoreType) throws -> NSPersistentStore
                = NSPersistentStoreCoordinator.migratePersistentStore(_:to:options:type:)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            let store = coordinator.persistentStores[0]
            let _: NSPersistentStore = try coordinator.migratePersistentStore(store, to: URL(fileURLWithPath: "/y"), type: .binary)
        }
        check("NSPersistentStoreCoordinator.destroyPersistentStore(at:type:options:)") {
            let _: (NSPersistentStoreCoordinator) -> (URL, NSPersistentStore.StoreType, [AnyHashable: Any]?) throws -> Void
                = NSPersistentStoreCoordinator.destroyPersistentStore(at:type:options:)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            try coordinator.destroyPersistentStore(at: URL(fileURLWithPath: "/x"), type: .sqlite)
        }
        check("NSPersistentStoreCoordinator.replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)") {
            let _: (NSPersistentStoreCoordinator) -> (URL, [AnyHashable: Any]?, URL, [AnyHashable: Any]?, NSPersistentStore.StoreType) throws -> Void
                = NSPersistentStoreCoordinator.replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            try coordinator.replacePersistentStore(at: URL(fileURLWithPath: "/x"), withPersistentStoreFrom: URL(fileURLWithPath: "/y"),
                                                   type: .sqlite)
        }
        check("NSPersistentStoreCoordinator.perform(_:)") {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            var notSendable = 0
            coordinator.perform { notSendable += 1 }
        }
        check("NSPersistentStoreCoordinator.performAndWait(_:)") {
            let _: (NSPersistentStoreCoordinator) -> (() -> Void) -> Void = NSPersistentStoreCoordinator.performAndWait
        }
        check("NSPersistentStoreCoordinator.performAndWait(_:) [generic]") {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            var notSendable = 0
            let _: Int = try coordinator.performAndWait { () throws -> Int in notSendable += 1; return notSendable }
        }
        check("NSPersistentStoreCoordinator.perform(_:) [async]") {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            let _: Int = try await coordinator.perform { () throws -> Int in 1 }
            let _: Int = await coordinator.perform { () -> Int in 1 }
        }
        check("NSPersistentStoreCoordinator.addPersistentStore(with:completionHandler:)") {
            let _: (NSPersistentStoreCoordinator) -> (NSPersistentStoreDescription, @escaping (NSPersistentStoreDescription, (any Error)?) -> Void) -> Void
                = NSPersistentStoreCoordinator.addPersistentStore(with:completionHandler:)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            let description = NSPersistentStoreDescription()
            description.type = NSInMemoryStoreType
            description.shouldAddStoreAsynchronously = false
            var failure: Error?
            coordinator.addPersistentStore(with: description) { _, error in failure = error }
            _ = failure
        }
        check("NSPersistentStoreCoordinator.url(for:)") {
            let _: (NSPersistentStoreCoordinator) -> (NSPersistentStore) -> URL = NSPersistentStoreCoordinator.url(for:)
        }
        check("NSPersistentStoreForceDestroyOption") { let _: String = NSPersistentStoreForceDestroyOption }
    }
}
