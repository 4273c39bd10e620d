import Foundation
import Synchronization
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

    @Test func asyncPerformReturnsTheBlocksResultAfterTheBlocksBeforeIt() async throws {
        let coordinator = try TestStack(.inMemory).coordinator
        let order = Mutex<[Int]>([])
        // Queued by the block form, which an async caller reaches from synchronous code (in an
        // async function, `perform { }` is the async form, as in Apple's SDK).
        Self.queue(1...3, on: coordinator) { number in order.withLock { $0.append(number) } }
        let seen = await coordinator.perform { order.withLock { $0 } }
        #expect(seen == [1, 2, 3])
        let stores = await coordinator.perform { coordinator.persistentStores.count }
        #expect(stores == 1)
    }

    @Test func asyncPerformThrowsTheBlocksError() async {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await coordinator.perform { () throws(Refused) -> Int in throw Refused() } }
    }

    private static func queue(_ numbers: ClosedRange<Int>, on coordinator: NSPersistentStoreCoordinator, _ body: @escaping @Sendable (Int) -> Void) {
        for number in numbers { coordinator.perform { body(number) } }
    }
}
