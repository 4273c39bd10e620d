import Foundation
import Testing
import OpenCoreData
import Synchronization

/// `NSPersistentStoreCoordinator.lock()`, `unlock()` and `tryLock()` (`NSLocking`, deprecated by
/// Apple): while a thread holds the lock, other threads' saves through the coordinator wait.
@Suite struct CoordinatorLockingTests {
    private func privateContext(of stack: TestStack) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        return context
    }

    private func people(in stack: TestStack) throws -> Int {
        let reader = privateContext(of: stack)
        return try reader.performAndWait { try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) }
    }

    @Test func anotherThreadsSaveWaitsUntilTheLockIsGivenUp() throws {
        let stack = try TestStack(.sqlite)
        let writer = privateContext(of: stack)
        let saved = DispatchSemaphore(value: 0)
        stack.coordinator.lock()
        writer.perform {
            let ann = NSEntityDescription.insertNewObject(forEntityName: "Person", into: writer)
            ann.setValue("Ann", forKey: "name")
            try? writer.save()
            saved.signal()
        }
        #expect(saved.wait(timeout: .now() + 0.3) == .timedOut)
        // Reads do not wait: the holder sees the store without the waiting save.
        #expect(try people(in: stack) == 0)
        stack.coordinator.unlock()
        saved.wait()
        #expect(try people(in: stack) == 1)
    }

    @Test func theHolderSavesThroughTheCoordinatorItLocked() throws {
        let stack = try TestStack(.sqlite)
        stack.coordinator.lock()
        defer { stack.coordinator.unlock() }
        stack.insert("Person", ["name": "Ann"])
        try stack.context.save()
        #expect(try people(in: stack) == 1)
    }

    @Test func tryLockFailsOnAnotherThreadWhileTheLockIsHeldAndIsRecursive() {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        #expect(coordinator.tryLock())
        coordinator.lock()
        coordinator.unlock()
        #expect(Self.tryLockOnAnotherThread(coordinator) == false)
        coordinator.unlock()
        #expect(Self.tryLockOnAnotherThread(coordinator) == true)
    }

    /// Whether a thread other than the caller can take the lock (giving it back at once).
    private static func tryLockOnAnotherThread(_ coordinator: NSPersistentStoreCoordinator) -> Bool {
        let took = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        Thread {
            if coordinator.tryLock() {
                took.withLock { $0 = true }
                coordinator.unlock()
            }
            done.signal()
        }.start()
        done.wait()
        return took.withLock { $0 }
    }
}
