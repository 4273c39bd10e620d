import Foundation

/// The option that makes a store post `.NSPersistentStoreRemoteChange` when another coordinator
/// or process commits to its file (`NSPersistentStoreDescription.setOption(true as NSNumber,
/// forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)`).
///
/// Apple's platforms are told by the system; on Linux the SQLite store watches its file itself,
/// asking SQLite every 50 ms whether another connection committed (`PRAGMA data_version`), so a
/// notification follows a commit within about 50 ms. With persistent history tracked, commits of
/// the store's own coordinator are not announced, and the notification carries the history
/// token of the newest transaction; without it, every commit is announced, the coordinator's
/// own included.
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"

/// The key of a remote change notification's store URL.
public let NSPersistentStoreURLKey = "storeURL"
/// The key of a remote change notification's history token (`NSPersistentHistoryToken`).
public let NSPersistentHistoryTokenKey = "historyToken"

extension Notification.Name {
    /// Posted, with the coordinator as its object, when another coordinator or process has
    /// committed to a store added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`.
    /// Its `userInfo` holds the store's URL (`NSPersistentStoreURLKey`), its identifier
    /// (`NSStoreUUIDKey`) and, when the store tracks history, the token of its newest
    /// transaction (`NSPersistentHistoryTokenKey`).
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { note in
    ///     let token = note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken
    /// }
    /// ```
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}
