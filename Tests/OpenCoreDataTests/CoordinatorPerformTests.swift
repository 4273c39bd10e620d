import Foundation
import Testing
import OpenCoreData

/// `NSPersistentStoreCoordinator.perform(_:)` and `performAndWait(_:)`: blocks run on the
/// coordinator's queue, one at a time and in order; a nested `performAndWait` runs at once.
@Suite struct CoordinatorPerformTests {
    @Test func blocksRunInOrderAndPerformAndWaitReturnsTheirResult() throws {
        let coordinator = try TestStack(.inMemory).coordinator
        nonisolated(unsafe) var order: [Int] = []
        for number in 1...3 { coordinator.perform { order.append(number) } }
        // A performAndWait queued behind them sees them done.
        let seen = coordinator.performAndWait { order }
        #expect(seen == [1, 2, 3])
        let count = coordinator.performAndWait { coordinator.persistentStores.count }
        #expect(count == 1)
    }

    @Test func aNestedPerformAndWaitRunsAtOnce() {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        var inner = false
        coordinator.performAndWait {
            coordinator.performAndWait { inner = true }
        }
        #expect(inner)
    }

    @Test func performAndWaitRethrowsTheBlocksError() {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        struct Refused: Error {}
        #expect(throws: Refused.self) { try coordinator.performAndWait { () throws -> Int in throw Refused() } }
    }
}
