import Foundation
import Testing
import OpenCoreData

/// `NSManagedObjectContext.lock()`, `unlock()` and `tryLock()` (`NSLocking`): the lock threads
/// sharing a confinement context take turns with.
@Suite struct ContextLockingTests {
    @Test func anotherThreadCannotTakeTheLockWhileItIsHeld() {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.lock()
        #expect(Self.tryLockOnAnotherThread(context) == false)
        context.unlock()
        #expect(Self.tryLockOnAnotherThread(context) == true)
    }

    @Test func theLockIsRecursive() {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.lock()
        #expect(context.tryLock())
        context.unlock()
        // Still held once: another thread waits.
        #expect(Self.tryLockOnAnotherThread(context) == false)
        context.unlock()
        #expect(Self.tryLockOnAnotherThread(context) == true)
    }

    @Test func aThreadWaitsForTheLockAndThenHasIt() {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        let order = LockedList()
        context.lock()
        let waiter = Thread {
            context.lock()
            order.append("waiter")
            context.unlock()
        }
        waiter.start()
        Thread.sleep(forTimeInterval: 0.05)
        order.append("holder")
        context.unlock()
        while order.values.count < 2 { Thread.sleep(forTimeInterval: 0.005) }
        #expect(order.values == ["holder", "waiter"])
    }

    /// Whether a thread other than the caller can take the lock (giving it back at once).
    private static func tryLockOnAnotherThread(_ context: NSManagedObjectContext) -> Bool {
        let result = LockedList()
        let done = DispatchSemaphore(value: 0)
        Thread {
            if context.tryLock() {
                result.append("took")
                context.unlock()
            }
            done.signal()
        }.start()
        done.wait()
        return result.values == ["took"]
    }
}

/// A list several threads append to.
private final class LockedList: @unchecked Sendable {
    // @unchecked Sendable: `items` is only touched under `lock`.
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ item: String) { lock.withLock { items.append(item) } }
    var values: [String] { lock.withLock { items } }
}
