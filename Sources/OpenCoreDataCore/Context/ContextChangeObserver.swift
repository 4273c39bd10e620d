/// Something in this process that follows a context's change events as they are posted:
/// fetched results controllers. Called on the context's queue, after the event's
/// `NSManagedObjectContextObjectsDidChange`, with the objects themselves rather than sets
/// built for a notification.
protocol ContextChangeObserver: AnyObject {
    func context(_ context: NSManagedObjectContext, didChange event: ContextChangeEvent)
    /// The context saved: its new objects' IDs are permanent now.
    func contextDidSave(_ context: NSManagedObjectContext)
}

extension ContextChangeObserver {
    func contextDidSave(_ context: NSManagedObjectContext) {}
}

/// One change event of a context: the objects it inserted, updated (refreshed ones included)
/// and deleted. The lists may repeat an object, and hold objects that left the context since.
struct ContextChangeEvent {
    let inserted: [NSManagedObject]
    let updated: [NSManagedObject]
    let deleted: [NSManagedObject]
}

/// A context's reference to an observer, which does not keep it alive.
struct WeakChangeObserver {
    weak var observer: ContextChangeObserver?
}

extension NSManagedObjectContext {
    /// Starts telling `observer` of this context's change events, until it goes away.
    func addChangeObserver(_ observer: ContextChangeObserver) {
        changeObservers.removeAll { $0.observer == nil }
        guard !changeObservers.contains(where: { $0.observer === observer }) else { return }
        changeObservers.append(WeakChangeObserver(observer: observer))
    }

    func notifyChangeObservers(of event: ContextChangeEvent) {
        for observer in liveChangeObservers() { observer.context(self, didChange: event) }
    }

    func notifyChangeObserversOfSave() {
        for observer in liveChangeObservers() { observer.contextDidSave(self) }
    }

    /// The observers still there, copied: an observer may add another (a delegate creating a
    /// controller).
    private func liveChangeObservers() -> [ContextChangeObserver] {
        let observers = changeObservers.compactMap(\.observer)
        if observers.count != changeObservers.count { changeObservers.removeAll { $0.observer == nil } }
        return observers
    }
}
