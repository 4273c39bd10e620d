import Foundation
import Testing
@testable import OpenCoreDataCore

/// `HelperThread`: the thread a migration's prefetch runs on, off the CPU of the thread that
/// hands it work.
@Suite struct HelperThreadTests {
    @Test func workRunsInTheOrderItWasHandedOnAThreadOfItsOwn() {
        let helper = HelperThread(name: "HelperThreadTests order")
        let done = DispatchSemaphore(value: 0)
        let seen = LockedState<[Int]>([])
        let threads = LockedState<[Bool]>([])
        for index in 0..<20 {
            helper.run {
                seen.withLock { $0.append(index) }
                threads.withLock { $0.append(Thread.isMainThread) }
                if index == 19 { done.signal() }
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == Array(0..<20))
        #expect(threads.withLock { $0 }.allSatisfy { !$0 })
    }

    @Test func theHelperRunsOffTheCPUOfTheThreadThatHandedItWork() {
        let helper = HelperThread(name: "HelperThreadTests placement")
        for _ in 0..<20 {
            let done = DispatchSemaphore(value: 0)
            let ran = LockedState<Int?>(nil)
            let keptOff = helper.run {
                ran.withLock { $0 = HelperThread.currentCPU }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 10) == .success)
            // Kept off a CPU only where the system can and the process may use two or more.
            #if os(Linux)
            if let count = HelperThread.allowedCPUCount, count >= 2 { #expect(keptOff != nil) }
            #endif
            if let keptOff {
                #expect(ran.withLock { $0 } != keptOff)
            }
        }
    }
}
