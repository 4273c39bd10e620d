import Foundation

/// Which CloudKit container a store is mirrored to (`NSPersistentStoreDescription.cloudKitContainerOptions`).
///
/// ```swift
/// let description = container.persistentStoreDescriptions.first!
/// description.cloudKitContainerOptions = NSPersistentCloudKitContainerOptions(containerIdentifier: "iCloud.com.example.Journal")
/// ```
/// Differences from Core Data: Linux has no CloudKit, so nothing is mirrored; the options mark a
/// store for `NSPersistentCloudKitContainer`'s checks. `databaseScope` is missing: its type,
/// `CKDatabase.Scope`, belongs to CloudKit.
public final class NSPersistentCloudKitContainerOptions: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable.

    /// The identifier of the CloudKit container (`iCloud.com.example.Journal`).
    public let containerIdentifier: String

    /// Options naming the CloudKit container `containerIdentifier`.
    public init(containerIdentifier: String) {
        self.containerIdentifier = containerIdentifier
    }
}
