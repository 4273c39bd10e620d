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

extension APISignatures {
    static func nsPersistentCloudKitContainerEvent(_ check: inout Checks) {
        check("NSPersistentCloudKitContainer.EventType") {
            let _: NSPersistentCloudKitContainer.EventType? = NSPersistentCloudKitContainer.EventType(rawValue: 1)
            let _: any Sendable.Type = NSPersistentCloudKitContainer.EventType.self
        }
        check("NSPersistentCloudKitContainer.EventType.setup") { let _: NSPersistentCloudKitContainer.EventType = .`setup` }
        check("NSPersistentCloudKitContainer.EventType.import") { let _: NSPersistentCloudKitContainer.EventType = .`import` }
        check("NSPersistentCloudKitContainer.EventType.export") { let _: NSPersistentCloudKitContainer.EventType = .`export` }
        check("NSPersistentCloudKitContainer.eventChangedNotification") {
            let _: NSNotification.Name = NSPersistentCloudKitContainer.eventChangedNotification
        }
        check("NSPersistentCloudKitContainer.eventNotificationUserInfoKey") {
            let _: String = NSPersistentCloudKitContainer.eventNotificationUserInfoKey
        }
        check("NSPersistentCloudKitContainer.Event") {
            let _: (NSPersistentCloudKitContainer.Event) -> NSObject = { $0 }
            let _: (NSPersistentCloudKitContainer.Event) -> any NSCopying = { $0 }
        }
        check("NSPersistentCloudKitContainer.Event.identifier") { let _: KeyPath<NSPersistentCloudKitContainer.Event, UUID> = \.identifier }
        check("NSPersistentCloudKitContainer.Event.storeIdentifier") { let _: KeyPath<NSPersistentCloudKitContainer.Event, String> = \.storeIdentifier }
        check("NSPersistentCloudKitContainer.Event.type") {
            let _: KeyPath<NSPersistentCloudKitContainer.Event, NSPersistentCloudKitContainer.EventType> = \.type
        }
        check("NSPersistentCloudKitContainer.Event.startDate") { let _: KeyPath<NSPersistentCloudKitContainer.Event, Date> = \.startDate }
        check("NSPersistentCloudKitContainer.Event.endDate") { let _: KeyPath<NSPersistentCloudKitContainer.Event, Date?> = \.endDate }
        check("NSPersistentCloudKitContainer.Event.succeeded") { let _: KeyPath<NSPersistentCloudKitContainer.Event, Bool> = \.succeeded }
        check("NSPersistentCloudKitContainer.Event.error") { let _: KeyPath<NSPersistentCloudKitContainer.Event, (any Error)?> = \.error }
        check("NSPersistentCloudKitContainer.Event.copy(with:)") {
            let _: (NSPersistentCloudKitContainer.Event) -> (NSZone?) -> Any = NSPersistentCloudKitContainer.Event.copy(with:)
        }
    }
}
