/// The snapshot events (`NSSnapshotEventType`) undo and redo gave a context's objects, told to
/// them at the end of the event (`processPendingChanges()`): one
/// `awake(fromSnapshotEvents:)` per object, with every event it had, however many values the
/// undo set back.
///
/// ```swift
/// context.pendingSnapshotEvents.note(.undoUpdate, for: person)
/// context.pendingSnapshotEvents.note(.undoUpdate, for: person)
/// context.pendingSnapshotEvents.deliver()   // person.awake(fromSnapshotEvents: .undoUpdate), once
/// ```
final class PendingSnapshotEvents {
    /// The objects with events, in the order they first had one.
    private var objects: [NSManagedObject] = []
    private var events: [ObjectIdentifier: NSSnapshotEventType] = [:]

    /// Adds `event` to those `object` will be told.
    func note(_ event: NSSnapshotEventType, for object: NSManagedObject) {
        let key = ObjectIdentifier(object)
        if let noted = events[key] {
            events[key] = noted.union(event)
        } else {
            events[key] = event
            objects.append(object)
        }
    }

    /// Tells each object its events. Events an override causes meanwhile wait for the next call.
    func deliver() {
        guard !objects.isEmpty else { return }
        let due = objects
        let dueEvents = events
        discard()
        for object in due {
            if let flags = dueEvents[ObjectIdentifier(object)] { object.awake(fromSnapshotEvents: flags) }
        }
    }

    /// Forgets the events not told yet (`rollback()` and `reset()` put every object in a new
    /// state of their own).
    func discard() {
        objects = []
        events = [:]
    }
}
