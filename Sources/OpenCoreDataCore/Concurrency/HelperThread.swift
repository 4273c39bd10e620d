import COCDThreads
import Foundation

/// A thread of its own for work done ahead of a caller that goes on working meanwhile (a
/// migration's model cache, while the store is compared and migrated), which runs what it is
/// handed in order, on a CPU other than the one the caller is on.
///
/// ```swift
/// let cache = ClaimableWork { archive(model) }
/// HelperThread.migrationPrefetch.run { cache.perform() }
/// …                                       // the caller goes on, on its own CPU
/// let data = cache.value()                // done here instead if the helper has not begun
/// ```
///
/// Why a thread of its own and not a dispatch queue: on a small virtual machine (measured on 2
/// vCPUs under KVM) the kernel woke a helper on the very CPU of the thread that woke it 95% of
/// the time, where it ran to its end before the caller went on — the work was then not done
/// ahead at all, and the caller waited for it besides. Keeping the helper off the caller's CPU
/// needs the helper's thread id before it is woken, which a queue's threads do not give.
/// Where the system has no such call, or the process one CPU, the helper runs wherever the
/// kernel puts it.
final class HelperThread: @unchecked Sendable {
    // @unchecked Sendable: `pending` is only touched under `condition`'s lock; `threadID` and
    // `cpus` are set once, under that lock, before `init` returns, and only read after.

    /// The helper of migrations (`MigrationPrefetch`), started when first used.
    static let migrationPrefetch = HelperThread(name: "ocd-prefetch")

    private let condition = NSCondition()
    private var pending: [() -> Void] = []
    /// The helper's id for the scheduler: 0 until it has started, -1 when it has none (or did
    /// not start in time).
    private var threadID = 0
    /// The CPUs the helper could run on when it started (a CPU set of `ocd_cpu_set_size()`
    /// bytes), which a caller's CPU is left out of; empty where the system has no CPU sets.
    private var cpus: [UInt8] = []

    /// Starts a helper thread named `name` (at most 15 bytes, Linux's limit), which lives as long
    /// as the process.
    init(name: String) {
        let thread = Thread { [unowned self] in self.serve(named: name) }
        thread.start()
        condition.lock()
        // A thread the system did not start (a process at its limit of threads) is not waited
        // for for ever: work handed to it is then done by whoever asks for it (`ClaimableWork`).
        let deadline = Date(timeIntervalSinceNow: 10)
        while threadID == 0 && condition.wait(until: deadline) {}
        if threadID == 0 { threadID = -1 }
        condition.unlock()
    }

    /// Hands `work` to the helper, which runs it after what it was handed before, on a CPU
    /// other than the calling thread's where it can. Returns the CPU the helper is kept off
    /// until it has done the work, nil when it may run on any.
    @discardableResult
    func run(_ work: @escaping @Sendable () -> Void) -> Int? {
        var keptOff: Int?
        condition.lock()
        // Under the lock: the helper gives itself every CPU back only once nothing is pending.
        if threadID > 0, !cpus.isEmpty {
            let cpu = ocd_current_cpu()
            if cpu >= 0, cpus.withUnsafeBytes({ ocd_set_affinity(threadID, $0.baseAddress, cpu) }) == 0 { keptOff = Int(cpu) }
        }
        pending.append(work)
        condition.signal()
        condition.unlock()
        return keptOff
    }

    /// How many CPUs the calling thread may run on; nil where that cannot be known.
    static var allowedCPUCount: Int? {
        var set = [UInt8](repeating: 0, count: ocd_cpu_set_size())
        guard !set.isEmpty else { return nil }
        let count = set.withUnsafeMutableBytes { ocd_get_affinity($0.baseAddress) }
        return count >= 0 ? Int(count) : nil
    }

    /// The CPU the calling thread is running on; nil where that cannot be known.
    static var currentCPU: Int? {
        let cpu = ocd_current_cpu()
        return cpu >= 0 ? Int(cpu) : nil
    }

    private func serve(named name: String) {
        // Named from the thread itself: a name given before it starts does not reach it on Linux.
        Thread.current.name = name
        // Every CPU the process may use, not those of the thread that made the helper.
        _ = ocd_allow_every_cpu()
        var own = [UInt8](repeating: 0, count: ocd_cpu_set_size())
        let hasSet = !own.isEmpty && own.withUnsafeMutableBytes { ocd_get_affinity($0.baseAddress) } > 0
        let id = ocd_current_thread_id()
        condition.lock()
        if threadID == 0 {
            threadID = id > 0 ? Int(id) : -1
            cpus = hasSet ? own : []
        }
        condition.broadcast()
        var narrowed = false
        while true {
            if pending.isEmpty && narrowed {
                // The CPU a caller left out steered where the helper woke for its work; with none
                // pending, the helper may run anywhere again. (Under the lock: a caller handing
                // work now leaves its CPU out after this.)
                own.withUnsafeBytes { _ = ocd_set_affinity(0, $0.baseAddress, -1) }
                narrowed = false
            }
            while pending.isEmpty { condition.wait() }
            let work = pending.removeFirst()
            narrowed = hasSet
            condition.unlock()
            work()
            condition.lock()
        }
    }
}
