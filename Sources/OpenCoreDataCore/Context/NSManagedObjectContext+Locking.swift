import Foundation

extension NSManagedObjectContext: NSLocking {
    /// Takes the context's lock, waiting for it: the lock with which threads that share a
    /// confinement context take turns using it, as Core Data's deprecated locking had them do.
    /// Recursive: a thread that holds it may take it again, and gives it up as many times.
    ///
    /// ```swift
    /// context.lock()
    /// defer { context.unlock() }
    /// let count = try context.count(for: request)
    /// ```
    ///
    /// Only code that takes it waits for it: the context's own queue and `perform` do not. A
    /// context of a queue of its own is used through `perform` and `performAndWait` instead.
    ///
    /// Differences from Core Data: not marked deprecated (Core Data deprecates the method since
    /// macOS 10.10 and iOS 8, versions Linux does not have), so that code still using it builds
    /// without warnings.
    public func lock() {
        clientLock.lock()
    }

    /// Gives up the context's lock (see `lock()`).
    public func unlock() {
        clientLock.unlock()
    }

    /// Takes the context's lock if no other thread holds it (see `lock()`); returns whether it
    /// did, without waiting.
    public func tryLock() -> Bool {
        clientLock.try()
    }
}
