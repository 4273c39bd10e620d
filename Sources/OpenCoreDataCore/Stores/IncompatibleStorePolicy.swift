import Foundation

/// What opening a store does when the store no longer fits the model (error 134100): migrate
/// it, destroy and recreate it, or fail. An OpenCoreData extension; Core Data has no such
/// setting, and apps write the destroy-and-add sequence by hand.
///
/// ```swift
/// let description = NSPersistentStoreDescription(url: cacheURL)
/// description.incompatibleStorePolicy = .destroyAndRecreate  // the store is only a cache
/// ```
/// The same through `addPersistentStore(ofType:configurationName:at:options:)`:
/// `[OCDIncompatibleStorePolicyOption: IncompatibleStorePolicy.destroyAndRecreate.rawValue]`.
public enum IncompatibleStorePolicy: String, Sendable, CaseIterable {
    /// Migrate the store to the model, keeping its data (the default): a lightweight migration
    /// when the options ask for one (`NSMigratePersistentStoresAutomaticallyOption` and
    /// `NSInferMappingModelAutomaticallyOption`, both set by a store description by default);
    /// without them the store is refused with 134100 listing what differs, as Core Data refuses it.
    case migrate
    /// Delete the store's files (database, `-wal`, `-shm`, support files) and create an empty
    /// store in their place: for a store that only caches data kept elsewhere. A store that
    /// does not fit for another reason — tables or columns missing because the file was damaged
    /// or edited — is destroyed too. A store that another connection has open, a read-only one,
    /// and a file that is not a Core Data store are refused instead, and left as they are.
    case destroyAndRecreate
    /// Refuse the store with 134100, leaving it as it is.
    case fail

    /// The policy `options` ask for; `.migrate` when they name none.
    init(options: [AnyHashable: Any]?) {
        let value = options?[OCDIncompatibleStorePolicyOption]
        if let policy = value as? IncompatibleStorePolicy {
            self = policy
            return
        }
        self = (value as? String ?? (value as? NSString).map(String.init)).flatMap(Self.init(rawValue:)) ?? .migrate
    }
}

/// The store option naming an `IncompatibleStorePolicy` by its raw value. An OpenCoreData
/// extension.
public let OCDIncompatibleStorePolicyOption = "OCDIncompatibleStorePolicyOption"

extension NSPersistentStoreDescription {
    /// What opening the store does when it no longer fits the model (see
    /// `IncompatibleStorePolicy`); `.migrate` by default. Kept in `options`, under
    /// `OCDIncompatibleStorePolicyOption`. An OpenCoreData extension.
    public var incompatibleStorePolicy: IncompatibleStorePolicy {
        get { IncompatibleStorePolicy(options: options) }
        set { setOption(newValue == .migrate ? nil : newValue.rawValue as NSString, forKey: OCDIncompatibleStorePolicyOption) }
    }
}
