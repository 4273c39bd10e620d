import Foundation

extension NSPersistentStoreCoordinator: NSLocking {
    /// Takes the coordinator's lock, waiting for it: while a thread holds it, the saves of every
    /// context of this coordinator on other threads wait, so that a series of steps (a read,
    /// then a save that depends on it) sees no other context's save in between. Recursive: the
    /// thread that holds it may save through the coordinator, and take the lock again.
    ///
    /// ```swift
    /// coordinator.lock()
    /// defer { coordinator.unlock() }
    /// try context.performAndWait {        // a private-queue context: runs on this thread
    ///     let next = try context.count(for: request) + 1
    ///     ticket.setValue(next, forKey: "number")
    ///     try context.save()
    /// }
    /// ```
    /// Code that holds the lock must not wait for another thread that saves through the
    /// coordinator: a background thread holding it that asks the main-queue context to save
    /// (`viewContext.performAndWait { try? viewContext.save() }`) waits for the main thread,
    /// whose save waits for the lock.
    ///
    /// Differences from Core Data: deprecated there since macOS 10.10 and iOS 8 in favour of
    /// `performAndWait(_:)`, and not marked deprecated here, so that code still using it builds
    /// without warnings. Only saves wait for the lock: fetches and faults read a consistent
    /// state of the store without it, batch requests do not take it, and neither do other
    /// coordinators and processes (a SQLite store's own transactions order their writes).
    public func lock() {
        saveSerialization.lock()
    }

    /// Gives up the coordinator's lock (see `lock()`), on the thread that took it.
    public func unlock() {
        saveSerialization.unlock()
    }

    /// Takes the coordinator's lock if no other thread holds it (see `lock()`); returns whether
    /// it did, without waiting.
    public func tryLock() -> Bool {
        saveSerialization.try()
    }
}
