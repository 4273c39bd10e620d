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
    // @unchecked Sendable: `pending` is only touched under `condition`'s lock; `threadID` is set
    // once, under that lock, before `init` returns.

    /// The helper of migrations (`MigrationPrefetch`), started when first used.
    static let migrationPrefetch = HelperThread(name: "OpenCoreData migration prefetch")

    private let condition = NSCondition()
    private var pending: [() -> Void] = []
    private var threadID = 0

    /// Starts a helper thread named `name`, which lives as long as the process.
    init(name: String) {
        let thread = Thread { [unowned self] in self.serve() }
        thread.name = name
        thread.start()
        condition.lock()
        while threadID == 0 { condition.wait() }
        condition.unlock()
    }

    /// Hands `work` to the helper, which runs it after what it was handed before, on a CPU
    /// other than the calling thread's where it can. Returns the CPU the helper is kept off,
    /// nil when it may run on any.
    @discardableResult
    func run(_ work: @escaping @Sendable () -> Void) -> Int? {
        let cpu = ocd_current_cpu()
        // A thread id of -1: the system gives threads none (nothing to keep off a CPU).
        let keptOff = cpu >= 0 && threadID > 0 && ocd_keep_thread_off_cpu(threadID, cpu) == 0
        condition.lock()
        pending.append(work)
        condition.signal()
        condition.unlock()
        return keptOff ? Int(cpu) : nil
    }

    /// How many CPUs the calling thread may run on; nil where that cannot be known.
    static var allowedCPUCount: Int? {
        let count = ocd_allowed_cpu_count()
        return count >= 0 ? Int(count) : nil
    }

    /// The CPU the calling thread is running on; nil where that cannot be known.
    static var currentCPU: Int? {
        let cpu = ocd_current_cpu()
        return cpu >= 0 ? Int(cpu) : nil
    }

    private func serve() {
        condition.lock()
        let id = ocd_current_thread_id()
        threadID = id > 0 ? id : -1
        condition.broadcast()
        while true {
            while pending.isEmpty { condition.wait() }
            let work = pending.removeFirst()
            condition.unlock()
            work()
            condition.lock()
        }
    }
}
