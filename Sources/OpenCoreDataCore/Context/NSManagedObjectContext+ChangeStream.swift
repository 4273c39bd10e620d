import Foundation

extension NSManagedObjectContext {
    /// One change of a context, as `changes` delivers it: what `ObjectsDidChange` or `DidSave`
    /// carries, by object ID (objects belong to their context's queue; IDs go anywhere).
    public struct Change: Sendable, Equatable {
        /// Which notification the change comes from.
        public enum Kind: Sendable, Equatable {
            /// `NSManagedObjectContextObjectsDidChange`: a change event of the context (its own
            /// unsaved changes, a rollback, or a merge of another context's save).
            case objectsDidChange
            /// `NSManagedObjectContextDidSave`: a save of the context.
            case didSave
        }

        public let kind: Kind
        public let inserted: Set<NSManagedObjectID>
        public let updated: Set<NSManagedObjectID>
        public let deleted: Set<NSManagedObjectID>

        public init(kind: Kind, inserted: Set<NSManagedObjectID>, updated: Set<NSManagedObjectID>, deleted: Set<NSManagedObjectID>) {
            self.kind = kind
            self.inserted = inserted
            self.updated = updated
            self.deleted = deleted
        }
    }

    /// The context's changes as an asynchronous sequence, for code written with Swift
    /// concurrency: each `ObjectsDidChange` and `DidSave` the context posts from now on, in order.
    ///
    /// ```swift
    /// let changes = context.changes
    /// Task {
    ///     for await change in changes where change.kind == .didSave {
    ///         print("saved \(change.inserted.count) new objects")
    ///     }
    /// }
    /// ```
    /// Each access makes a new sequence, which observes until its iteration ends, it is
    /// dropped, or the context goes away (the sequence then ends). Changes are buffered until read. The IDs of a save's new objects are permanent;
    /// those of the context's own new objects in `objectsDidChange` are temporary until saved.
    /// Refreshed objects are not reported.
    ///
    /// Not part of Core Data's API: Apple's platforms offer `NotificationCenter.notifications(named:)`,
    /// which Foundation on Linux does not have.
    public var changes: AsyncStream<Change> {
        AsyncStream { continuation in
            let center = NotificationCenter.default
            // Observed for any sender and matched here: a notification center holds the object
            // it filters on, which would keep the context alive as long as the stream.
            let didChange = center.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: nil, queue: nil) { [weak self] note in
                // Posted on the context's queue, where its objects' IDs may be read.
                guard let self, note.object as AnyObject? === self else { return }
                continuation.yield(Change(kind: .objectsDidChange, inserted: Self.ids(note, NSInsertedObjectsKey),
                                          updated: Self.ids(note, NSUpdatedObjectsKey), deleted: Self.ids(note, NSDeletedObjectsKey)))
            }
            let didSave = center.addObserver(forName: Self.didSaveObjectIDsNotification, object: nil, queue: nil) { [weak self] note in
                guard let self, note.object as AnyObject? === self else { return }
                let info = note.userInfo ?? [:]
                continuation.yield(Change(kind: .didSave, inserted: info[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID> ?? [],
                                          updated: info[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID> ?? [],
                                          deleted: info[NSDeletedObjectIDsKey] as? Set<NSManagedObjectID> ?? []))
            }
            let observers = Observers(tokens: [didChange, didSave])
            continuation.onTermination = { _ in observers.remove() }
            // The sequence ends when the context goes away.
            changeStreamEnds.add { continuation.finish() }
        }
    }

    private static func ids(_ notification: Notification, _ key: String) -> Set<NSManagedObjectID> {
        Set((notification.userInfo?[key] as? Set<NSManagedObject> ?? []).map(\.objectID))
    }
}

/// What ends a context's change streams when the context goes away.
final class ChangeStreamEnds: @unchecked Sendable {
    // @unchecked Sendable: `ends` is only touched under `lock`.
    private let lock = NSLock()
    private var ends: [@Sendable () -> Void] = []

    func add(_ end: @escaping @Sendable () -> Void) {
        lock.withLock { ends.append(end) }
    }

    func endAll() {
        for end in lock.withLock({ ends }) { end() }
    }
}

/// Notification observers removed together, from whichever thread ends a change stream.
private final class Observers: @unchecked Sendable {
    // @unchecked Sendable: the tokens are set once, and NotificationCenter's removal is thread-safe.
    private let tokens: [NSObjectProtocol]

    init(tokens: [NSObjectProtocol]) { self.tokens = tokens }

    func remove() {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}
