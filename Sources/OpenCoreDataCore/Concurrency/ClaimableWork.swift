import Foundation

/// A piece of work done once, by the first thread to claim it: a helper queue that does it
/// ahead of time, or the thread that needs its result, which does it itself rather than wait
/// for a helper that has not started yet (on a busy or small machine the helper's thread may not
/// be scheduled before the result is needed). A thread that finds it under way waits for it.
///
/// ```swift
/// let search = ClaimableWork { expensiveSearch() }
/// HelperThread.migrationPrefetch.run { search.perform() }
/// …
/// let result = search.value()   // done here if the helper has not begun
/// ```
final class ClaimableWork<Value>: @unchecked Sendable {
    // @unchecked Sendable: `state` is only touched under `condition`'s lock; the value is made
    // by one thread and read by others only after it is stored under that lock. The work runs
    // on whichever thread claims it: what it captures must be safe to use from any one thread
    // (its maker says why).
    private enum State {
        case pending(() -> Value)
        case running
        case done(Value)
    }

    private let condition = NSCondition()
    private var state: State
    private var isCancelled = false

    init(_ work: @escaping () -> Value) {
        state = .pending(work)
    }

    /// Nobody wants the result any more: `perform()` no longer does the work (a `value()`
    /// asked for all the same still gets it).
    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        isCancelled = true
    }

    /// Does the work if no thread has claimed it yet and it is not cancelled.
    func perform() {
        guard let work = claim(unlessCancelled: true) else { return }
        finish(work())
    }

    /// The work's result: done now on this thread if nobody has begun it, else waited for.
    func value() -> Value {
        if let work = claim(unlessCancelled: false) {
            let value = work()
            finish(value)
            return value
        }
        condition.lock()
        defer { condition.unlock() }
        while true {
            if case .done(let value) = state { return value }
            condition.wait()
        }
    }

    private func claim(unlessCancelled: Bool) -> (() -> Value)? {
        condition.lock()
        defer { condition.unlock() }
        guard case .pending(let work) = state, !(unlessCancelled && isCancelled) else { return nil }
        state = .running
        return work
    }

    private func finish(_ value: Value) {
        condition.lock()
        state = .done(value)
        condition.broadcast()
        condition.unlock()
    }
}
