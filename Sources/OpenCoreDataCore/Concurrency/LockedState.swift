import Foundation

/// A value guarded by a lock, for process-wide registries that many threads read and write.
///
/// An `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: the thread sanitizer sees
/// the pthread mutex's ordering, but not the futex under `Mutex` on Linux, and reports every
/// guarded access as a race — CI runs the concurrency suites under the sanitizer.
package final class LockedState<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
