import Foundation
import Synchronization

/// The store classes registered for store types with
/// `NSPersistentStoreCoordinator.registerStoreClass(_:forStoreType:)`, shared by every
/// coordinator of the process.
enum StoreClassRegistry {
    private static let classes = Mutex<[String: NSPersistentStore.Type]>([:])

    static func register(_ storeClass: NSPersistentStore.Type?, for storeType: String) {
        classes.withLock { $0[storeType] = storeClass }
    }

    static func storeClass(for storeType: String) -> NSPersistentStore.Type? {
        classes.withLock { $0[storeType] }
    }

    /// Every type a store can be added as: the built-in ones the program links, and the
    /// registered ones, each with the class that opens its stores.
    static func allOpeningClasses() -> [String: NSPersistentStore.Type] {
        var all = classes.withLock { $0 }
        for type in [NSSQLiteStoreType, NSInMemoryStoreType, NSBinaryStoreType, NSXMLStoreType] {
            all[type] = openingClass(for: type)
        }
        all.merge(BuiltInStores.serverStoreClasses) { _, builtIn in builtIn }
        return all
    }

    /// The built-in types, which a registered class cannot replace.
    static func isBuiltIn(_ storeType: String) -> Bool {
        [NSSQLiteStoreType, NSInMemoryStoreType, NSBinaryStoreType, NSXMLStoreType].contains(storeType)
            || BuiltInStores.serverStoreClasses[storeType] != nil
    }

    /// The class of a built-in type, or of a registered one: what opens stores of `storeType`.
    static func openingClass(for storeType: String) -> NSPersistentStore.Type? {
        switch storeType {
        case NSSQLiteStoreType: BuiltInStores.sqliteStoreClass
        case NSInMemoryStoreType: InMemoryStore.self
        case NSBinaryStoreType, NSXMLStoreType: BuiltInStores.fileStoreClasses[storeType]
        default: BuiltInStores.serverStoreClasses[storeType] ?? storeClass(for: storeType)
        }
    }
}

/// The SQLite store lives in its own module, which this one cannot name: that module declares
/// `BuiltInStores`' conformance to `SQLiteStoreProviding`, and the coordinator finds it at run
/// time (a dynamic cast finds a conformance declared in any module of the program). Without the
/// SQLite module linked in, `NSSQLiteStoreType` is an unknown type.
package enum BuiltInStores {
    package static let sqliteStoreClass: NSPersistentStore.Type? =
        ((BuiltInStores.self as Any) as? any SQLiteStoreProviding.Type)?.sqliteStoreClass
}

/// What the SQLite module provides to the coordinator.
package protocol SQLiteStoreProviding {
    static var sqliteStoreClass: NSPersistentStore.Type { get }
}

/// The binary and XML stores live in a module of their own too (`OpenCoreDataFileStores`),
/// found the same way.
extension BuiltInStores {
    package static let fileStoreClasses: [String: NSPersistentStore.Type] =
        ((BuiltInStores.self as Any) as? any FileStoresProviding.Type)?.fileStoreClasses ?? [:]
}

/// What the file stores' module provides to the coordinator: its store classes by type.
package protocol FileStoresProviding {
    static var fileStoreClasses: [String: NSPersistentStore.Type] { get }
}

extension NSPersistentStoreCoordinator {
    /// Makes `storeType` open stores of `storeClass`, an `NSIncrementalStore` or `NSAtomicStore` subclass, through
    /// `addPersistentStore(ofType:configurationName:at:options:)` and `NSPersistentStoreDescription`;
    /// nil unregisters the type.
    ///
    /// ```swift
    /// NSPersistentStoreCoordinator.registerStoreClass(NotesStore.self, forStoreType: "Notes")
    /// ```
    /// The built-in types (`NSSQLiteStoreType`, `NSInMemoryStoreType`) cannot be replaced: a
    /// class registered under their names is never used.
    /// A class that is not an `NSPersistentStore` stops the program, as Core Data raises.
    public class func registerStoreClass(_ storeClass: AnyClass?, forStoreType storeType: String) {
        guard let storeClass else {
            StoreClassRegistry.register(nil, for: storeType)
            return
        }
        guard let persistentStoreClass = storeClass as? NSPersistentStore.Type else {
            preconditionFailure("registerStoreClass(_:forStoreType:): \(storeClass) is not a subclass of NSPersistentStore")
        }
        StoreClassRegistry.register(persistentStoreClass, for: storeType)
    }

    /// The store types stores can be added as — the built-in ones and those registered with
    /// `registerStoreClass(_:forStoreType:)` — each with its store class in an `NSValue`.
    ///
    /// ```swift
    /// if NSPersistentStoreCoordinator.registeredStoreTypes[NotesStore.type] == nil {
    ///     NSPersistentStoreCoordinator.registerStoreClass(NotesStore.self, forStoreType: NotesStore.type)
    /// }
    /// ```
    /// Difference from Core Data: Linux has no Objective-C class objects, and its `NSValue` no
    /// pointer values: each value is an `NSNumber` (an `NSValue`) holding the address of the
    /// class's type metadata, which
    /// `unsafeBitCast(UInt(truncating: value as! NSNumber), to: NSPersistentStore.Type.self)`
    /// turns back into the class. The binary and XML types are listed when the program links
    /// their module (`OpenCoreData` does).
    public class var registeredStoreTypes: [String: NSValue] {
        StoreClassRegistry.allOpeningClasses().mapValues { NSNumber(value: unsafeBitCast($0, to: UInt.self)) }
    }

    /// The iOS 15 spelling of `registerStoreClass(_:forStoreType:)`.
    public class func registerStoreClass(_ storeClass: AnyClass?, type storeType: NSPersistentStore.StoreType) {
        registerStoreClass(storeClass, forStoreType: storeType.rawValue)
    }
}

/// The PostgreSQL store lives in a module of its own too (`OpenCoreDataPostgres`), which only
/// the programs that use it link, found the same way.
extension BuiltInStores {
    package static let serverStoreClasses: [String: NSPersistentStore.Type] =
        ((BuiltInStores.self as Any) as? any ServerStoresProviding.Type)?.serverStoreClasses ?? [:]
}

/// What the server stores' module provides to the coordinator: its store classes by type.
package protocol ServerStoresProviding {
    static var serverStoreClasses: [String: NSPersistentStore.Type] { get }
}
