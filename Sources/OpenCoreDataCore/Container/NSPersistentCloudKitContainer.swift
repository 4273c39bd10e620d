import Foundation

/// A container whose stores Core Data mirrors to CloudKit on Apple's platforms. On Linux, which
/// has no CloudKit (and so, to Core Data, no iCloud account), it is a local container that
/// checks and sets up its mirrored stores as Core Data does, so an app's persistence code and
/// model run and are checked here unchanged.
///
/// ```swift
/// let container = NSPersistentCloudKitContainer(name: "Journal")
/// container.persistentStoreDescriptions.first!.cloudKitContainerOptions =
///     NSPersistentCloudKitContainerOptions(containerIdentifier: "iCloud.com.example.Journal")
/// container.loadPersistentStores { _, error in … }   // fails for a model CloudKit cannot mirror
/// ```
/// For each store whose description has `cloudKitContainerOptions`, as Core Data:
/// - loading checks that CloudKit can mirror the model's entities: no uniqueness constraints,
///   every attribute optional or with a default value, every relationship optional, with an
///   inverse and unordered. A model that breaks a rule is refused with
///   error 134060 whose failure reason lists what breaks it, in Core Data's words;
/// - persistent history is recorded (the store is added with `NSPersistentHistoryTrackingKey`),
///   which mirroring needs; the description's own options are left as they are.
///
/// Differences from Core Data: nothing is mirrored and no event is posted
/// (`eventChangedNotification`); `initializeCloudKitSchema(options:)` throws, as Core Data does
/// without an iCloud account. Every object can be changed and deleted, as objects not shared
/// through CloudKit can. The methods that take or return CloudKit's types (`CKRecord`,
/// `CKShare`, …) are missing.
open class NSPersistentCloudKitContainer: NSPersistentContainer, @unchecked Sendable {
    // @unchecked Sendable: as NSPersistentContainer's; this class adds no state.

    /// Would create the CloudKit schema of the model's entities in the development
    /// environment; throws 134400 here, as Core Data does when there is no iCloud account.
    ///
    /// ```swift
    /// #if DEBUG
    /// try? container.initializeCloudKitSchema()
    /// #endif
    /// ```
    open func initializeCloudKitSchema(options: NSPersistentCloudKitContainerSchemaInitializationOptions = []) throws {
        throw CoreDataError.make(CocoaError.Code(rawValue: 134400),
                                 "Unable to initialize without an iCloud account: CloudKit does not exist on Linux")
    }

    /// Whether the object of `objectID` may be changed: true, since no object is shared
    /// read-only through CloudKit here.
    open func canUpdateRecord(forManagedObjectWith objectID: NSManagedObjectID) -> Bool { true }

    /// Whether the object of `objectID` may be deleted: true, since no object is shared
    /// read-only through CloudKit here.
    open func canDeleteRecord(forManagedObjectWith objectID: NSManagedObjectID) -> Bool { true }

    /// Whether the objects in `store` may be changed: true, since no store mirrors a shared
    /// CloudKit database here.
    open func canModifyManagedObjects(in store: NSPersistentStore) -> Bool { true }

    override func storeOptions(for description: NSPersistentStoreDescription) throws -> [AnyHashable: Any] {
        var options = try super.storeOptions(for: description)
        guard description.cloudKitContainerOptions != nil else { return options }
        // A configuration the model does not have is left to `addPersistentStore` to report.
        let entities = description.configuration.map { managedObjectModel.entities(forConfigurationName: $0) }
            ?? managedObjectModel.entities
        if let entities, let reason = CloudKitModelRules.breaches(in: entities) {
            throw CoreDataError.make(CocoaError.Code(rawValue: 134060), "A Core Data error occurred.",
                                     [NSLocalizedFailureReasonErrorKey: reason])
        }
        // Mirroring reads the store's history, so a mirrored store records it, whatever the
        // description says.
        options[NSPersistentHistoryTrackingKey] = true as NSNumber
        return options
    }
}

/// Options of `initializeCloudKitSchema(options:)`.
public struct NSPersistentCloudKitContainerSchemaInitializationOptions: OptionSet, @unchecked Sendable {
    // @unchecked Sendable: a plain integer; "@unchecked" as Apple declares it.
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Validate the model and make the records without uploading them.
    public static var dryRun: NSPersistentCloudKitContainerSchemaInitializationOptions { .init(rawValue: 1 << 1) }
    /// Print the schema to the console.
    public static var printSchema: NSPersistentCloudKitContainerSchemaInitializationOptions { .init(rawValue: 1 << 2) }
}
