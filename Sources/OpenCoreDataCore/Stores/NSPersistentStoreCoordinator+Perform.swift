import Foundation

extension NSPersistentStoreCoordinator {
    /// Runs `block` on the coordinator's queue, later; blocks run one at a time, in order.
    ///
    /// ```swift
    /// coordinator.perform {
    ///     let metadata = coordinator.metadata(for: store)
    /// }
    /// ```
    /// The coordinator's own methods are safe from any thread; its queue orders work of yours
    /// that must not interleave (reading and writing metadata, adding and removing stores).
    public func perform(_ block: @escaping () -> Void) {
        let queued = QueuedBlock(block: block)
        performQueue.async { [self] in
            runOnQueue(queued.block)
        }
    }

    /// Runs `block` on the coordinator's queue and returns when it has run. Called from a block
    /// the queue is running, it runs at once (no deadlock).
    public func performAndWait(_ block: () -> Void) {
        if ContextsOnThisThread.contains(self) { return block() }
        performQueue.sync { ContextsOnThisThread.running(self, block()) }
    }

    /// Runs `block` on the coordinator's queue and returns its result, or throws its error.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if ContextsOnThisThread.contains(self) { return try block() }
        return try performQueue.sync { try ContextsOnThisThread.running(self, try block()) }
    }

    /// Runs `block` on the coordinator's queue and returns its result, or throws its error.
    ///
    /// ```swift
    /// let metadata = await coordinator.perform { coordinator.metadata(for: store) }
    /// ```
    /// Difference from Apple's SDK: `block` is `@Sendable` and `T` `Sendable` (they cross to the
    /// coordinator's queue and back), and it throws its own error type (`throws(E)`) in place of
    /// `rethrows`, as the context's `perform(schedule:_:)` does.
    public func perform<T: Sendable, E: Error>(_ block: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        try await awaitedResult(of: block, scheduledBy: { self.perform($0) })
    }

    /// Runs `block` on the queue, marked as the coordinator's so that a nested `performAndWait`
    /// runs at once.
    private func runOnQueue(_ block: () -> Void) {
        ContextsOnThisThread.running(self, block())
    }
}
