import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentCloudKitContainer(_ check: inout Checks) {
        check("NSPersistentCloudKitContainerSchemaInitializationOptions") {
            let _: any OptionSet.Type = NSPersistentCloudKitContainerSchemaInitializationOptions.self
            let _: any Sendable.Type = NSPersistentCloudKitContainerSchemaInitializationOptions.self
        }
        check("NSPersistentCloudKitContainerSchemaInitializationOptions.init(rawValue:)") {
            let _: (UInt) -> NSPersistentCloudKitContainerSchemaInitializationOptions = NSPersistentCloudKitContainerSchemaInitializationOptions.init(rawValue:)
        }
        check("NSPersistentCloudKitContainerSchemaInitializationOptions.dryRun") {
            let _: NSPersistentCloudKitContainerSchemaInitializationOptions = .dryRun
        }
        check("NSPersistentCloudKitContainerSchemaInitializationOptions.printSchema") {
            let _: NSPersistentCloudKitContainerSchemaInitializationOptions = .printSchema
        }
        check("NSPersistentCloudKitContainer") {
            let _: NSPersistentContainer = NSPersistentCloudKitContainer(name: "Items", managedObjectModel: NSManagedObjectModel())
            let _: any Sendable.Type = NSPersistentCloudKitContainer.self
        }
        check("NSPersistentCloudKitContainer.initializeCloudKitSchema(options:)") {
            let _: (NSPersistentCloudKitContainer) -> (NSPersistentCloudKitContainerSchemaInitializationOptions) throws -> Void
                = NSPersistentCloudKitContainer.initializeCloudKitSchema(options:)
            let container = NSPersistentCloudKitContainer(name: "Items", managedObjectModel: NSManagedObjectModel())
            try? container.initializeCloudKitSchema()
        }
        check("NSPersistentCloudKitContainer.canUpdateRecord(forManagedObjectWith:)") {
            let _: (NSPersistentCloudKitContainer) -> (NSManagedObjectID) -> Bool = NSPersistentCloudKitContainer.canUpdateRecord(forManagedObjectWith:)
        }
        check("NSPersistentCloudKitContainer.canDeleteRecord(forManagedObjectWith:)") {
            let _: (NSPersistentCloudKitContainer) -> (NSManagedObjectID) -> Bool = NSPersistentCloudKitContainer.canDeleteRecord(forManagedObjectWith:)
        }
        check("NSPersistentCloudKitContainer.canModifyManagedObjects(in:)") {
            let _: (NSPersistentCloudKitContainer) -> (NSPersistentStore) -> Bool = NSPersistentCloudKitContainer.canModifyManagedObjects(in:)
        }
    }

    static func nsPersistentCloudKitContainerOptions(_ check: inout Checks) {
        check("NSPersistentCloudKitContainerOptions") {
            let _: NSObject = NSPersistentCloudKitContainerOptions(containerIdentifier: "iCloud.com.example.Items")
        }
        check("NSPersistentCloudKitContainerOptions.init(containerIdentifier:)") {
            let _: (String) -> NSPersistentCloudKitContainerOptions = NSPersistentCloudKitContainerOptions.init(containerIdentifier:)
        }
        check("NSPersistentCloudKitContainerOptions.containerIdentifier") {
            let _: KeyPath<NSPersistentCloudKitContainerOptions, String> = \.containerIdentifier
        }
    }
}
