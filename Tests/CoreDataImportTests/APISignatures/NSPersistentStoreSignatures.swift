import Foundation
import CoreData

extension APISignatures {
    static func nsPersistentStore(_ check: inout Checks) {
        check("NSPersistentStore") {
            let _: NSObject = NSPersistentStore(persistentStoreCoordinator: nil, configurationName: nil, at: URL(fileURLWithPath: "/x"))
        }
        check("NSPersistentStore.migrationManagerClass()") {
            let _: () -> AnyClass = NSPersistentStore.migrationManagerClass
        }
        check("NSPersistentStore.metadataForPersistentStore(with:)") {
            let _: (URL) throws -> [String: Any] = NSPersistentStore.metadataForPersistentStore(with:)
        }
        check("NSPersistentStore.setMetadata(_:forPersistentStoreAt:)") {
            let _: ([String: Any]?, URL) throws -> Void = NSPersistentStore.setMetadata(_:forPersistentStoreAt:)
        }
        check("NSPersistentStore.init(persistentStoreCoordinator:configurationName:at:options:)") {
            let _: (NSPersistentStoreCoordinator?, String?, URL, [AnyHashable: Any]?) -> NSPersistentStore
                = NSPersistentStore.init(persistentStoreCoordinator:configurationName:at:options:)
            let _: NSPersistentStore = NSPersistentStore(persistentStoreCoordinator: nil, configurationName: nil, at: URL(fileURLWithPath: "/x"))
        }
        check("NSPersistentStore.loadMetadata()") {
            let _: (NSPersistentStore) -> () throws -> Void = NSPersistentStore.loadMetadata
        }
        check("NSPersistentStore.persistentStoreCoordinator") {
            let _: KeyPath<NSPersistentStore, NSPersistentStoreCoordinator?> = \.persistentStoreCoordinator
        }
        check("NSPersistentStore.configurationName") {
            let _: KeyPath<NSPersistentStore, String> = \.configurationName
        }
        check("NSPersistentStore.options") {
            let _: KeyPath<NSPersistentStore, [AnyHashable: Any]?> = \.options
        }
        check("NSPersistentStore.url") {
            let _: ReferenceWritableKeyPath<NSPersistentStore, URL?> = \.url
        }
        check("NSPersistentStore.identifier") {
            // differs: Apple's is `String!` and settable; OpenCoreData's is `String`, get-only outside the package.
            let _: KeyPath<NSPersistentStore, String> = \.identifier
        }
        check("NSPersistentStore.type") {
            let _: KeyPath<NSPersistentStore, String> = \.type
        }
        check("NSPersistentStore.isReadOnly") {
            let _: ReferenceWritableKeyPath<NSPersistentStore, Bool> = \.isReadOnly
        }
        check("NSPersistentStore.metadata") {
            let _: ReferenceWritableKeyPath<NSPersistentStore, [String: Any]?> = \.metadata
            let store = NSPersistentStore(persistentStoreCoordinator: nil, configurationName: nil, at: URL(fileURLWithPath: "/x"))
            let _: [String: Any] = store.metadata
            store.metadata = nil
        }
        check("NSPersistentStore.didAdd(to:)") {
            let _: (NSPersistentStore) -> (NSPersistentStoreCoordinator) -> Void = NSPersistentStore.didAdd(to:)
        }
        check("NSPersistentStore.willRemove(from:)") {
            let _: (NSPersistentStore) -> (NSPersistentStoreCoordinator?) -> Void = NSPersistentStore.willRemove(from:)
        }
        check("NSPersistentStore.StoreType") {
            // differs: not `RawRepresentable` in OpenCoreData.
            func hashable<T: Hashable>(_: T.Type) {}
            hashable(NSPersistentStore.StoreType.self)
        }
        check("NSPersistentStore.StoreType.rawValue") {
            // differs: Apple's is a `var`; OpenCoreData's is a `let`.
            let _: KeyPath<NSPersistentStore.StoreType, String> = \.rawValue
        }
        check("NSPersistentStore.StoreType.init(rawValue:)") {
            let _: (String) -> NSPersistentStore.StoreType = NSPersistentStore.StoreType.init(rawValue:)
        }
        check("NSPersistentStore.StoreType.sqlite") {
            let _: NSPersistentStore.StoreType = NSPersistentStore.StoreType.sqlite
        }
        check("NSPersistentStore.StoreType.binary") {
            let _: NSPersistentStore.StoreType = NSPersistentStore.StoreType.binary
        }
        check("NSPersistentStore.StoreType.inMemory") {
            let _: NSPersistentStore.StoreType = NSPersistentStore.StoreType.inMemory
        }
    }
}
