import Foundation
import Synchronization

/// The type names of the stores OpenCoreData provides.
public let NSSQLiteStoreType = "SQLite"
public let NSInMemoryStoreType = "InMemory"
/// The binary store: the whole graph in one file of OpenCoreData's own binary format.
public let NSBinaryStoreType = "Binary"
/// The XML store: the whole graph in one XML file, in the layout of Apple's XML store.
public let NSXMLStoreType = "XML"
/// Store metadata keys.
public let NSStoreTypeKey = "NSStoreType"
public let NSStoreUUIDKey = "NSStoreUUID"
/// Store options.
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
/// With `NSReadOnlyPersistentStoreOption`: open a SQLite store that no connection has open
/// (a WAL store without its `-wal` file) as an immutable file, so that not even SQLite's `-wal`
/// and `-shm` files are created beside it. Only for stores nobody writes while it is open (the
/// `ocd` tool uses it to inspect files). An OpenCoreData extension.
public let OCDSQLiteReadImmutableOption = "OCDSQLiteReadImmutableOption"
/// The classes, besides Foundation's property-list classes and an attribute's
/// `attributeValueClassName`, that the binary store may find in the keyed archives of
/// transformable values when it reads its file (an array or set of classes in the options of
/// `addPersistentStore`). Preferable to `NSBinaryStoreInsecureDecodingCompatibilityOption`.
///
/// ```swift
/// try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: url,
///                                    options: [NSBinaryStoreSecureDecodingClasses: [Palette.self]])
/// ```
/// As in Core Data, the binary store decodes securely: an archive holding a class not allowed
/// stops the store from loading, with an error naming the entity and attribute. Values of an
/// attribute whose transformer is of the app's own are decoded by that transformer.
public let NSBinaryStoreSecureDecodingClasses = "NSBinaryStoreSecureDecodingClasses"
/// Lets the binary store decode the keyed archives of transformable values without checking
/// their classes (a `Bool` or `NSNumber` in the options of `addPersistentStore`); use
/// `NSBinaryStoreSecureDecodingClasses` instead where you can.
///
/// ```swift
/// try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: url,
///                                    options: [NSBinaryStoreInsecureDecodingCompatibilityOption: true])
/// ```
/// Difference from Core Data: the binary store's file is OpenCoreData's own format, whose
/// metadata holds property-list values only, so the option concerns transformable values alone.
public let NSBinaryStoreInsecureDecodingCompatibilityOption = "NSBinaryStoreInsecureDecodingCompatibilityOption"
/// The oldest operating system release a store must stay readable on (an `NSNumber` such as
/// `101300` for macOS 10.13 or `110000` for iOS 11, in the options of `addPersistentStore`),
/// from which Core Data decides which of its file format's features a new store may use.
///
/// ```swift
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
///                                    options: [NSPersistentStoreOSCompatibility: 101300])
/// ```
/// Difference from Core Data: accepted and without effect — OpenCoreData writes one layout,
/// Core Data's current one, for every store.
public let NSPersistentStoreOSCompatibility = "NSPersistentStoreOSCompatibility"
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"
/// Opens a store without comparing the version hashes in its metadata with the model's (a
/// `Bool` or `NSNumber` in the options of `addPersistentStore`): a store whose hashes differ is
/// neither refused nor migrated. As in Core Data, the store then records the model's hashes
/// (written with its next save): those of the entities whose hashes OpenCoreData computes as
/// Apple's; the store keeps its own for the others.
///
/// ```swift
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
///                                    options: [NSIgnorePersistentStoreVersioningOption: true])
/// ```
///
/// Differences from Core Data: a SQLite store's tables must still fit the model — a missing
/// table or column is refused with 134100 naming it, where Core Data would open the store and fail
/// later in SQL.
public let NSIgnorePersistentStoreVersioningOption = "NSIgnorePersistentStoreVersioningOption"
/// Lets a lightweight migration of a SQLite store leave its slow cleanup for later: the tables of
/// removed entities and the columns of removed attributes stay in the file, unused, until
/// `NSPersistentStoreCoordinator.finishDeferredLightweightMigration()` (or
/// `finishDeferredLightweightMigrationTask()`) drops them. A `Bool` or `NSNumber` in the options
/// of `addPersistentStore`.
///
/// The key has a second use, as in Core Data: in the store's metadata it is `true` while some
/// cleanup waits.
///
/// ```swift
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [
///     NSPersistentStoreDeferredLightweightMigrationOptionKey: true,
///     NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
/// if coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true {
///     try coordinator.finishDeferredLightweightMigration()   // later, when the app is idle
/// }
/// ```
///
/// Differences from Core Data: which work is deferred is OpenCoreData's choice — dropping the
/// tables of removed entities and the columns of removed attributes (a column dropped later
/// spares the migration a copy of its table); index changes and row deletions are not
/// deferred. A later migration of the store runs the waiting cleanup first. Other store types
/// ignore the option (their migrations rewrite the whole file).
public let NSPersistentStoreDeferredLightweightMigrationOptionKey = "NSPersistentStoreDeferredLightweightMigrationOptionKey"
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// Runs SQLite's `ANALYZE` when the store is added, so that the query planner chooses indexes
/// from statistics of the data (a `Bool` or `NSNumber`). Ignored by other stores and by a
/// read-only SQLite store.
///
/// ```swift
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
///                                    options: [NSSQLiteAnalyzeOption: true])
/// ```
public let NSSQLiteAnalyzeOption = "NSSQLiteAnalyzeOption"
/// Rebuilds the SQLite file with `VACUUM` when the store is added, giving back the pages that
/// deleted rows left free (a `Bool` or `NSNumber`). Ignored by other stores and by a read-only
/// SQLite store.
public let NSSQLiteManualVacuumOption = "NSSQLiteManualVacuumOption"
/// Destroys a store's files even where that may be unsafe (a `Bool` or `NSNumber`, for
/// `destroyPersistentStore(at:ofType:options:)`): a SQLite file whose metadata cannot be read —
/// damaged, or not a Core Data store — is deleted with its companions instead of refused. What
/// is not a regular file (a folder, a device) is refused even so.
///
/// ```swift
/// try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType,
///                                        options: [NSPersistentStoreForceDestroyOption: true])
/// ```
/// Difference from Core Data: a SQLite store that other connections have open is destroyed
/// with or without the option (connections still open then read a store that is gone); Core
/// Data's wording, "overriding locks", suggests it refuses without the option.
public let NSPersistentStoreForceDestroyOption = "NSPersistentStoreForceDestroyOption"
/// How many reads a store that reads concurrently runs at once (an `NSNumber`, at least 1):
/// the SQLite store's reader connections (4 unless set). Generally left unset.
///
/// Difference from Core Data: the size counts the readers only. The SQLite store also reads on
/// its writer when no save holds it, and a query generation keeps a reader of its own beyond
/// the size (see `Docs/Differences.md`).
public let NSPersistentStoreConnectionPoolMaxSizeKey = "NSPersistentStoreConnectionPoolMaxSizeKey"

/// A persistent store: where a coordinator keeps the objects of some entities.
///
/// This class is also the seam between the object graph and storage: the coordinator talks to
/// every store through the methods below (fetch rows, load one row, load a to-many, save a set
/// of changes, hand out permanent IDs), which is the role `NSIncrementalStore` plays in Core
/// Data. Each store serializes its own work with a lock, so one store can serve contexts on
/// several threads.
open class NSPersistentStore: NSObject, @unchecked Sendable {
    /// The store's type, identifier and location, for logs.
    open override var description: String { "<\(type) store \(identifier) at \(url?.path ?? "memory")>" }

    // @unchecked Sendable: every mutable field is touched only under `lock`, except `isReadOnly`
    // (atomic) and `identifier`, which is set while the store loads, before other threads see it.

    /// A store type, as in `NSPersistentStore.StoreType` (iOS 15+).
    public struct StoreType: Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
        public static let binary = StoreType(rawValue: NSBinaryStoreType)
        public static let xml = StoreType(rawValue: NSXMLStoreType)
    }

    /// The store's type name (`NSSQLiteStoreType`, `NSInMemoryStoreType`, or the type a store
    /// class was registered and added under).
    open var type: String { addedType }
    /// The type the coordinator added this store as.
    var addedType = ""
    /// The store's unique identifier (`NSStoreUUID`), which appears in object ID URIs.
    public package(set) var identifier: String
    /// Where the store lives; nil or `/dev/null` for an in-memory store. Setting it changes where
    /// an atomic store writes its next save; `NSPersistentStoreCoordinator.setURL(_:for:)` also
    /// moves a SQLite store's connection. Safe to read and set from any thread.
    open var url: URL? {
        get { location.withLock { $0 } }
        set { location.withLock { $0 = newValue } }
    }
    private let location: LockedState<URL?>
    /// The options the store was added with.
    public let options: [AnyHashable: Any]?
    /// The model configuration whose entities this store holds; nil for all entities.
    public let configurationName: String
    /// Whether the store refuses saves. Safe to read and set from any thread.
    public var isReadOnly: Bool {
        get { readOnlyFlag.load(ordering: .relaxed) }
        set { readOnlyFlag.store(newValue, ordering: .relaxed) }
    }
    private let readOnlyFlag = Atomic<Bool>(false)
    /// The coordinator the store belongs to.
    public internal(set) weak var persistentStoreCoordinator: NSPersistentStoreCoordinator?

    package let lock = NSRecursiveLock()
    package var storedMetadata: [String: Any] = [:]

    /// Creates a store; nothing is read or written until the coordinator loads it.
    public required init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?,
                         at url: URL, options: [AnyHashable: Any]? = nil) {
        self.persistentStoreCoordinator = root
        self.configurationName = name ?? "PF_DEFAULT_CONFIGURATION_NAME"
        self.location = LockedState(url)
        self.options = options
        self.readOnlyFlag.store((options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false, ordering: .relaxed)
        self.identifier = UUID().uuidString
        super.init()
        // Found once, here: the subclass's conformance (in whatever module of the package).
        if let own = self as? any StoreSeam { seam = own }
    }

    /// The store's metadata: `NSStoreType`, `NSStoreUUID`, the model's version hashes, and
    /// anything the application put there.
    open var metadata: [String: Any]! {
        get { lock.withLock { storedMetadata } }
        set { lock.withLock { storedMetadata = newValue ?? [:] } }
    }

    // MARK: The store seam

    /// The store's side of the seam (see `StoreSeam`): the store itself, for every class that
    /// implements it. Unowned: it is the store.
    private(set) unowned(unsafe) var seam: any StoreSeam = MissingStoreSeam.shared

    // MARK: Apple's store API

    /// Reads the store's metadata when it is added; stores of your own set `metadata` here,
    /// with `NSStoreTypeKey` and `NSStoreUUIDKey`. The built-in stores read theirs as they load.
    open func loadMetadata() throws {}

    /// Called after the store was added to `coordinator`.
    open func didAdd(to coordinator: NSPersistentStoreCoordinator) {}

    /// Called before the store is removed from `coordinator`.
    open func willRemove(from coordinator: NSPersistentStoreCoordinator?) {}

    /// The class of the migration manager that migrates stores of this class through a mapping
    /// model: `NSMigrationManager`. A store class of your own overrides it to hand the
    /// coordinator a subclass (one that reports progress, say); a class that is not an
    /// `NSMigrationManager` subclass is not used.
    ///
    /// ```swift
    /// final class AuditedStore: NSIncrementalStore {
    ///     override class func migrationManagerClass() -> AnyClass { AuditedMigrationManager.self }
    /// }
    /// ```
    open class func migrationManagerClass() -> AnyClass { NSMigrationManager.self }

    /// The metadata of the store at `url`, without adding it: what
    /// `NSPersistentStoreCoordinator.metadataForPersistentStore(ofType:at:options:)` answers for
    /// a registered store type. Stores of your own override this to read their own files; the
    /// default throws 134000.
    open class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        throw CoreDataError.store(.persistentStoreInvalidType,
                                  "The store class \(self) cannot read the metadata of \(url.path) without being added", url: url)
    }

    /// Replaces the metadata of the store at `url`, without adding it (see
    /// `metadataForPersistentStore(with:)`); the default throws 134000.
    open class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        throw CoreDataError.store(.persistentStoreInvalidType,
                                  "The store class \(self) cannot write the metadata of \(url.path) without being added", url: url)
    }

    /// Whether this store holds objects of `entity` (its configuration includes it).
    func holds(_ entity: NSEntityDescription) -> Bool {
        guard let model = persistentStoreCoordinator?.managedObjectModel,
              let entities = model.entities(forConfigurationName: configurationName) else { return true }
        return entities.contains { entity.isKindOf(entity: $0) || $0 === entity }
    }
}
