import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentStoreDescription(_ check: inout Checks) {
        check("NSPersistentStoreDescription.copy(with:)") {
            let _: (NSPersistentStoreDescription) -> (NSZone?) -> Any = NSPersistentStoreDescription.copy(with:)
        }
        check("NSPersistentStoreDescription") {
            let _: NSObject = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/x"))
        }
        check("NSPersistentStoreDescription.init(url:)") {
            let _: (URL) -> NSPersistentStoreDescription = NSPersistentStoreDescription.init(url:)
        }
        check("NSPersistentStoreDescription.type") {
            let _: ReferenceWritableKeyPath<NSPersistentStoreDescription, String> = \.type
        }
        check("NSPersistentStoreDescription.configuration") {
            let _: ReferenceWritableKeyPath<NSPersistentStoreDescription, String?> = \.configuration
        }
        check("NSPersistentStoreDescription.url") {
            let _: ReferenceWritableKeyPath<NSPersistentStoreDescription, URL?> = \.url
        }
        check("NSPersistentStoreDescription.options") {
            let _: KeyPath<NSPersistentStoreDescription, [String: NSObject]> = \.options
        }
        check("NSPersistentStoreDescription.setOption(_:forKey:)") {
            let _: (NSPersistentStoreDescription) -> (NSObject?, String) -> Void = NSPersistentStoreDescription.setOption(_:forKey:)
        }
        check("NSPersistentStoreDescription.isReadOnly") {
            let _: ReferenceWritableKeyPath<NSPersistentStoreDescription, Bool> = \.isReadOnly
        }
        check("NSPersistentStoreDescription.timeout") {
            let _: ReferenceWritableKeyPath<NSPersistentStoreDescription, TimeInterval> = \.timeout
        }
        check("NSPersistentStoreDescription.sqlitePragmas") {
            let _: KeyPath<NSPersistentStoreDescription, [String: NSObject]> = \.sqlitePragmas
        }
        check("NSPersistentStoreDescription.setValue(_:forPragmaNamed:)") {
            let _: (NSPersistentStoreDescription) -> (NSObject?, String) -> Void = NSPersistentStoreDescription.setValue(_:forPragmaNamed:)
        }
        check("NSPersistentStoreDescription.shouldAddStoreAsynchronously") {
            let _: ReferenceWritableKeyPath<NSPersistentStoreDescription, Bool> = \.shouldAddStoreAsynchronously
        }
        check("NSPersistentStoreDescription.shouldMigrateStoreAutomatically") {
            let _: ReferenceWritableKeyPath<NSPersistentStoreDescription, Bool> = \.shouldMigrateStoreAutomatically
        }
        check("NSPersistentStoreDescription.cloudKitContainerOptions") {
            let _: ReferenceWritableKeyPath<NSPersistentStoreDescription, NSPersistentCloudKitContainerOptions?> = \.cloudKitContainerOptions
        }
        check("NSPersistentStoreDescription.shouldInferMappingModelAutomatically") {
            let _: ReferenceWritableKeyPath<NSPersistentStoreDescription, Bool> = \.shouldInferMappingModelAutomatically
        }
    }
}
