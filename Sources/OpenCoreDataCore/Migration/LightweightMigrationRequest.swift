import Foundation

/// Whether a store's options ask for it to be migrated to the model in place, by an inferred
/// mapping, when it no longer fits: `NSMigratePersistentStoresAutomaticallyOption` and
/// `NSInferMappingModelAutomaticallyOption` both true (as Core Data's inference needs both;
/// `NSPersistentStoreDescription` sets both by default), and an `IncompatibleStorePolicy` of
/// `.migrate`.
package enum LightweightMigrationRequest {
    package static func isRequested(by options: [AnyHashable: Any]?) -> Bool {
        isTrue(options?[NSMigratePersistentStoresAutomaticallyOption]) && isTrue(options?[NSInferMappingModelAutomaticallyOption])
            && IncompatibleStorePolicy(options: options) == .migrate
    }

    private static func isTrue(_ value: Any?) -> Bool {
        if let value = value as? Bool { return value }
        if let value = value as? NSNumber { return value.boolValue }
        if let value = value as? String { return ["1", "yes", "true"].contains(value.lowercased()) }
        return false
    }
}
