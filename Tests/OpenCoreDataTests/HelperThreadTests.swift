import COCDThreads
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
        for index in 0..<20 {
            helper.run {
                seen.withLock { $0.append(index) }
                if index == 19 { done.signal() }
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == Array(0..<20))
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
            // Kept off a CPU wherever the system has CPU sets and the process may use two or more.
            if let count = HelperThread.allowedCPUCount, count >= 2 {
                #expect(keptOff != nil)
                #expect(ran.withLock { $0 } != keptOff)
            } else {
                #expect(keptOff == nil)
            }
        }
    }

    /// A caller confined to one CPU does not confine the helper to it: the helper is left the
    /// CPUs it started with, less the caller's.
    @Test func aCallerPinnedToOneCPUHandsWorkToAnotherCPU() throws {
        guard let count = HelperThread.allowedCPUCount, count >= 2 else { return }
        let helper = HelperThread(name: "HelperThreadTests pinned caller")
        let result = LockedState<(keptOff: Int?, pinned: Int?, ran: Int?)>((nil, nil, nil))
        let finished = DispatchSemaphore(value: 0)
        let caller = Thread {
            defer { finished.signal() }
            guard let cpu = HelperThread.currentCPU else { return }
            var set = [UInt8](repeating: 0, count: ocd_cpu_set_size())
            set.withUnsafeMutableBytes { ocd_cpu_set_only($0.baseAddress, Int32(cpu)) }
            guard set.withUnsafeBytes({ ocd_set_affinity(0, $0.baseAddress, -1) }) == -1,
                  HelperThread.allowedCPUCount == 1 else { return }
            let done = DispatchSemaphore(value: 0)
            let ran = LockedState<Int?>(nil)
            let keptOff = helper.run {
                ran.withLock { $0 = HelperThread.currentCPU }
                done.signal()
            }
            _ = done.wait(timeout: .now() + 10)
            result.withLock { $0 = (keptOff, cpu, ran.withLock { $0 }) }
        }
        caller.start()
        #expect(finished.wait(timeout: .now() + 20) == .success)
        let (keptOff, pinned, ran) = result.withLock { $0 }
        let pinnedCPU = try #require(pinned)
        #expect(keptOff == pinnedCPU)
        #expect(ran != nil && ran != pinnedCPU)
    }
}
