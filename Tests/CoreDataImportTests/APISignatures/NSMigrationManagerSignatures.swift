import Foundation
import CoreData

extension APISignatures {
    static func nsMigrationManager(_ check: inout Checks) {
        check("NSMigrationManager") {
            let _: NSObject = NSMigrationManager(sourceModel: NSManagedObjectModel(), destinationModel: NSManagedObjectModel())
        }
        check("NSMigrationManager.init(sourceModel:destinationModel:)") {
            let _: (NSManagedObjectModel, NSManagedObjectModel) -> NSMigrationManager = NSMigrationManager.init(sourceModel:destinationModel:)
        }
        check("NSMigrationManager.migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)") {
            let _: (NSMigrationManager) -> (URL, String, [AnyHashable: Any]?, NSMappingModel?, URL, String, [AnyHashable: Any]?) throws -> Void
                = NSMigrationManager.migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)
            let manager = NSMigrationManager(sourceModel: NSManagedObjectModel(), destinationModel: NSManagedObjectModel())
            let url = URL(fileURLWithPath: "/x")
            try manager.migrateStore(from: url, sourceType: "SQLite", with: nil, toDestinationURL: url, destinationType: "SQLite")
        }
        check("NSMigrationManager.migrateStore(from:type:options:mapping:to:type:options:)") {
            let _: (NSMigrationManager) -> (URL, NSPersistentStore.StoreType, [AnyHashable: Any]?, NSMappingModel, URL, NSPersistentStore.StoreType, [AnyHashable: Any]?) throws -> Void
                = NSMigrationManager.migrateStore(from:type:options:mapping:to:type:options:)
            let manager = NSMigrationManager(sourceModel: NSManagedObjectModel(), destinationModel: NSManagedObjectModel())
            let url = URL(fileURLWithPath: "/x")
            try manager.migrateStore(from: url, type: .sqlite, mapping: NSMappingModel(), to: url, type: .sqlite)
        }
        check("NSMigrationManager.usesStoreSpecificMigrationManager") {
            let _: ReferenceWritableKeyPath<NSMigrationManager, Bool> = \.usesStoreSpecificMigrationManager
        }
        check("NSMigrationManager.reset()") {
            let _: (NSMigrationManager) -> () -> Void = NSMigrationManager.reset
        }
        check("NSMigrationManager.mappingModel") {
            // Apple's is a non-optional `NSMappingModel { get }`.
            let _: KeyPath<NSMigrationManager, NSMappingModel?> = \.mappingModel
            let manager = NSMigrationManager(sourceModel: NSManagedObjectModel(), destinationModel: NSManagedObjectModel())
            let _: NSMappingModel = manager.mappingModel
        }
        check("NSMigrationManager.sourceModel") {
            let _: KeyPath<NSMigrationManager, NSManagedObjectModel> = \.sourceModel
        }
        check("NSMigrationManager.destinationModel") {
            let _: KeyPath<NSMigrationManager, NSManagedObjectModel> = \.destinationModel
        }
        check("NSMigrationManager.sourceContext") {
            // Apple's is a non-optional `NSManagedObjectContext { get }`.
            let _: KeyPath<NSMigrationManager, NSManagedObjectContext?> = \.sourceContext
            let manager = NSMigrationManager(sourceModel: NSManagedObjectModel(), destinationModel: NSManagedObjectModel())
            let _: NSManagedObjectContext = manager.sourceContext
        }
        check("NSMigrationManager.destinationContext") {
            // Apple's is a non-optional `NSManagedObjectContext { get }`.
            let _: KeyPath<NSMigrationManager, NSManagedObjectContext?> = \.destinationContext
            let manager = NSMigrationManager(sourceModel: NSManagedObjectModel(), destinationModel: NSManagedObjectModel())
            let _: NSManagedObjectContext = manager.destinationContext
        }
        check("NSMigrationManager.sourceEntity(for:)") {
            let _: (NSMigrationManager) -> (NSEntityMapping) -> NSEntityDescription? = NSMigrationManager.sourceEntity(for:)
        }
        check("NSMigrationManager.destinationEntity(for:)") {
            let _: (NSMigrationManager) -> (NSEntityMapping) -> NSEntityDescription? = NSMigrationManager.destinationEntity(for:)
        }
        check("NSMigrationManager.associate(sourceInstance:withDestinationInstance:for:)") {
            let _: (NSMigrationManager) -> (NSManagedObject, NSManagedObject, NSEntityMapping) -> Void
                = NSMigrationManager.associate(sourceInstance:withDestinationInstance:for:)
        }
        check("NSMigrationManager.destinationInstances(forEntityMappingName:sourceInstances:)") {
            let _: (NSMigrationManager) -> (String, [NSManagedObject]?) -> [NSManagedObject]
                = NSMigrationManager.destinationInstances(forEntityMappingName:sourceInstances:)
        }
        check("NSMigrationManager.sourceInstances(forEntityMappingName:destinationInstances:)") {
            let _: (NSMigrationManager) -> (String, [NSManagedObject]?) -> [NSManagedObject]
                = NSMigrationManager.sourceInstances(forEntityMappingName:destinationInstances:)
        }
        check("NSMigrationManager.currentEntityMapping") {
            // Apple's is a non-optional `NSEntityMapping { get }`.
            let _: KeyPath<NSMigrationManager, NSEntityMapping?> = \.currentEntityMapping
            let manager = NSMigrationManager(sourceModel: NSManagedObjectModel(), destinationModel: NSManagedObjectModel())
            let _: NSEntityMapping = manager.currentEntityMapping
        }
        check("NSMigrationManager.migrationProgress") {
            let _: KeyPath<NSMigrationManager, Float> = \.migrationProgress
        }
        check("NSMigrationManager.userInfo") {
            let _: ReferenceWritableKeyPath<NSMigrationManager, [AnyHashable: Any]?> = \.userInfo
        }
        check("NSMigrationManager.cancelMigrationWithError(_:)") {
            let _: (NSMigrationManager) -> (any Error) -> Void = NSMigrationManager.cancelMigrationWithError(_:)
        }
    }
}
