import Foundation

/// How a container opens one store: its type, location and options.
///
/// ```swift
/// let description = NSPersistentStoreDescription(url: url)
/// description.type = NSInMemoryStoreType
/// container.persistentStoreDescriptions = [description]
/// ```
public final class NSPersistentStoreDescription: NSObject, @unchecked Sendable {
    // @unchecked Sendable: configured before `loadPersistentStores` and only read afterwards.

    /// The store type (`NSSQLiteStoreType` by default).
    public var type: String = NSSQLiteStoreType
    /// The model configuration the store holds; nil for every entity.
    public var configuration: String?
    /// Where the store lives.
    public var url: URL?
    /// Options passed to `addPersistentStore`.
    public private(set) var options: [String: NSObject] = [:]
    /// Whether the store is opened read-only.
    public var isReadOnly = false
    /// Timeout for obtaining the store's lock, in seconds.
    public var timeout: TimeInterval = 240
    /// SQLite pragmas to set on the store's connection.
    public private(set) var sqlitePragmas: [String: NSObject] = [:]
    /// Whether `loadPersistentStores` adds the store on a background queue and returns at once.
    public var shouldAddStoreAsynchronously = false
    /// Whether a store written with an older version of the model is migrated to the model
    /// when it is added (`NSMigratePersistentStoresAutomaticallyOption`); true by default, as in
    /// Core Data. With `shouldInferMappingModelAutomatically`, a SQLite store is migrated in
    /// place by an inferred mapping; with a staged migration manager in the options
    /// (`NSPersistentStoreStagedMigrationManagerOptionKey`), through its stages first.
    public var shouldMigrateStoreAutomatically = true
    /// Whether the mapping of an automatic migration may be inferred from the two models
    /// (`NSInferMappingModelAutomaticallyOption`); true by default. Inference applies only when
    /// `shouldMigrateStoreAutomatically` is true as well.
    public var shouldInferMappingModelAutomatically = true
    /// The CloudKit container an `NSPersistentCloudKitContainer` mirrors this store to; nil for
    /// a store that is not mirrored.
    ///
    /// ```swift
    /// description.cloudKitContainerOptions = NSPersistentCloudKitContainerOptions(containerIdentifier: "iCloud.com.example.Journal")
    /// ```
    /// Differences from Core Data: Linux has no CloudKit, so nothing is mirrored; the store is
    /// checked and set up as Core Data checks and sets up a mirrored one (see
    /// `NSPersistentCloudKitContainer`).
    public var cloudKitContainerOptions: NSPersistentCloudKitContainerOptions?

    /// A description of a SQLite store at `url`.
    public init(url: URL) {
        self.url = url
    }

    public override init() {}

    public func setOption(_ option: NSObject?, forKey key: String) {
        options[key] = option
    }

    public func setValue(_ value: NSObject?, forPragmaNamed name: String) {
        sqlitePragmas[name] = value
    }

    /// The options as `addPersistentStore` takes them.
    var storeOptions: [AnyHashable: Any] {
        var result: [AnyHashable: Any] = [:]
        for (key, value) in options { result[key] = value }
        result[NSReadOnlyPersistentStoreOption] = isReadOnly
        result[NSMigratePersistentStoresAutomaticallyOption] = shouldMigrateStoreAutomatically
        result[NSInferMappingModelAutomaticallyOption] = shouldInferMappingModelAutomatically
        result[NSPersistentStoreTimeoutOption] = timeout
        if !sqlitePragmas.isEmpty { result[NSSQLitePragmasOption] = sqlitePragmas }
        return result
    }

    public override var description: String {
        "<NSPersistentStoreDescription type: \(type), url: \(url?.path ?? "nil"), readOnly: \(isReadOnly)>"
    }
}

extension NSPersistentStoreDescription: NSCopying {
    /// A description with the same type, configuration, URL, options, pragmas and flags, to
    /// change without changing this one. The option and pragma values are shared, as a
    /// Foundation dictionary's copy shares them.
    ///
    /// ```swift
    /// let cache = description.copy() as! NSPersistentStoreDescription
    /// cache.url = cachesURL
    /// ```
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentStoreDescription()
        copy.type = type
        copy.configuration = configuration
        copy.url = url
        copy.options = options
        copy.isReadOnly = isReadOnly
        copy.timeout = timeout
        copy.sqlitePragmas = sqlitePragmas
        copy.shouldAddStoreAsynchronously = shouldAddStoreAsynchronously
        copy.shouldMigrateStoreAutomatically = shouldMigrateStoreAutomatically
        copy.shouldInferMappingModelAutomatically = shouldInferMappingModelAutomatically
        copy.cloudKitContainerOptions = cloudKitContainerOptions
        return copy
    }
}
