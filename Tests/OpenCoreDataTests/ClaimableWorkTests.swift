import Foundation
import Testing
@testable import OpenCoreDataCore

/// `ClaimableWork`: the migration prefetch's pieces of work, done once by whichever thread
/// claims them first.
@Suite struct ClaimableWorkTests {
    @Test func theThreadThatNeedsTheValueDoesTheWorkNobodyBegan() {
        let worker = LockedState<Thread?>(nil)
        let work = ClaimableWork { () -> Int in
            worker.withLock { $0 = Thread.current }
            return 42
        }
        #expect(work.value() == 42)
        #expect(worker.withLock { $0 } === Thread.current)
        work.perform()  // claimed already: nothing is done again
        #expect(work.value() == 42)
    }

    @Test func aValueUnderWayIsWaitedForAndTheWorkRunsOnce() async {
        let runs = LockedState(0)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let work = ClaimableWork { () -> String in
            runs.withLock { $0 += 1 }
            started.signal()
            release.wait()
            return "done"
        }
        DispatchQueue(label: "ClaimableWorkTests helper").async { work.perform() }
        started.wait()
        // The helper holds the work: every reader waits for its value instead of doing it again.
        let readers = (0..<4).map { _ in Task.detached { work.value() } }
        release.signal()
        for reader in readers { #expect(await reader.value == "done") }
        #expect(runs.withLock { $0 } == 1)
    }
}
