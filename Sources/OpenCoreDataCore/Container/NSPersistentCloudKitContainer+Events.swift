import Foundation

/// The events Core Data posts while it mirrors stores to CloudKit: setting a store up, importing
/// and exporting changes, each posted when it starts and when it ends.
///
/// ```swift
/// NotificationCenter.default.addObserver(forName: NSPersistentCloudKitContainer.eventChangedNotification,
///                                        object: container, queue: .main) { notification in
///     let key = NSPersistentCloudKitContainer.eventNotificationUserInfoKey
///     guard let event = notification.userInfo?[key] as? NSPersistentCloudKitContainer.Event else { return }
///     if event.type == .export, event.endDate != nil, !event.succeeded { … }
/// }
/// ```
/// Differences from Core Data: Linux has no CloudKit, so nothing is mirrored and no event is
/// ever posted; the types are here so that code observing them compiles and runs.
extension NSPersistentCloudKitContainer {
    /// The kind of work an event is about.
    public enum EventType: Int, @unchecked Sendable {
        // @unchecked Sendable: as Apple declares it (a plain enum).
        case setup = 0
        case `import` = 1
        case export = 2
    }

    /// Posted by the container when an event starts or ends; the event is in the user info
    /// under `eventNotificationUserInfoKey`.
    public static let eventChangedNotification = Notification.Name("NSPersistentCloudKitContainerEventChangedNotification")
    /// The key of the event in `eventChangedNotification`'s user info.
    public static let eventNotificationUserInfoKey = "event"

    /// One piece of mirroring work: what it was, for which store, when it started and ended,
    /// and how it went.
    public final class Event: NSObject, NSCopying, @unchecked Sendable {
        // @unchecked Sendable: immutable.
        public let identifier: UUID
        public let storeIdentifier: String
        public let type: NSPersistentCloudKitContainer.EventType
        public let startDate: Date
        public let endDate: Date?
        public let succeeded: Bool
        public let error: (any Error)?

        init(identifier: UUID = UUID(), storeIdentifier: String, type: NSPersistentCloudKitContainer.EventType, startDate: Date,
             endDate: Date?, succeeded: Bool, error: (any Error)?) {
            self.identifier = identifier
            self.storeIdentifier = storeIdentifier
            self.type = type
            self.startDate = startDate
            self.endDate = endDate
            self.succeeded = succeeded
            self.error = error
        }

        /// The event itself: events are immutable.
        public func copy(with zone: NSZone? = nil) -> Any { self }
    }
}
