import Foundation

extension Notification.Name {
    /// Posted by a coordinator after a store was added or removed; `object` is the coordinator,
    /// and the stores are listed under `NSAddedPersistentStoresKey` or
    /// `NSRemovedPersistentStoresKey`. Moving a store (`migratePersistentStore`) posts a removal
    /// and an addition, where Core Data lists both under `NSUUIDChangedPersistentStoresKey`.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSPersistentStoreCoordinatorStoresDidChange,
    ///                                        object: coordinator, queue: nil) { note in
    ///     let added = note.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore]
    /// }
    /// ```
    public static let NSPersistentStoreCoordinatorStoresDidChange = Notification.Name("NSPersistentStoreCoordinatorStoresDidChangeNotification")
    /// Core Data posts this before its iCloud stores changed; with no iCloud, OpenCoreData
    /// declares it and never posts it.
    public static let NSPersistentStoreCoordinatorStoresWillChange = Notification.Name("NSPersistentStoreCoordinatorStoresWillChangeNotification")
    /// Posted by a coordinator before it removes a store; `object` is the store.
    public static let NSPersistentStoreCoordinatorWillRemoveStore = Notification.Name("NSPersistentStoreCoordinatorWillRemoveStoreNotification")
}

/// The stores added, under `NSPersistentStoreCoordinatorStoresDidChange` (an array).
public let NSAddedPersistentStoresKey = "added"
/// The stores removed, under `NSPersistentStoreCoordinatorStoresDidChange` (an array).
public let NSRemovedPersistentStoresKey = "removed"
/// With Core Data, the old and new store of a store whose identity changed; OpenCoreData posts a
/// removal and an addition instead.
public let NSUUIDChangedPersistentStoresKey = "changedUUID"
