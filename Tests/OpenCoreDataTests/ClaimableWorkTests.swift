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

    @Test func aValueUnderWayIsWaitedForAndTheWorkRunsOnce() {
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
        // The helper holds the work: every reader (threads of their own, not the test's pool)
        // waits for its value instead of doing it again, and none has it before the release.
        let values = LockedState<[String]>([])
        let readers = DispatchGroup()
        for _ in 0..<4 {
            readers.enter()
            Thread {
                let value = work.value()
                values.withLock { $0.append(value) }
                readers.leave()
            }.start()
        }
        #expect(readers.wait(timeout: .now() + 0.05) == .timedOut)
        #expect(values.withLock { $0 }.isEmpty)
        release.signal()
        readers.wait()
        #expect(values.withLock { $0 } == Array(repeating: "done", count: 4))
        #expect(runs.withLock { $0 } == 1)
    }

    @Test func cancelledWorkIsNotDoneByTheHelperButStillByWhoeverAsks() {
        let runs = LockedState(0)
        let work = ClaimableWork { runs.withLock { $0 += 1; return $0 } }
        work.cancel()
        work.perform()
        #expect(runs.withLock { $0 } == 0)
        #expect(work.value() == 1)  // never a wait for work nobody will do
        #expect(runs.withLock { $0 } == 1)
    }
}
