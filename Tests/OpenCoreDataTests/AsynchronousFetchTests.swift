import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// `NSAsynchronousFetchRequest`: `execute(_:)` returns at once, the completion block gets the
/// objects later on the context's queue; cancelling before it runs, and failing, are reported
/// through the result.
@Suite struct AsynchronousFetchTests {
    /// A private-queue context on a store of people named `names`.
    private func context(with names: [String]) throws -> (TestStack, NSManagedObjectContext) {
        let stack = try TestStack(.sqlite)
        for name in names { stack.insert("Person", ["name": name]) }
        try stack.context.save()
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        return (stack, context)
    }

    private func people() -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return request
    }

    @Test func executeReturnsAtOnceAndTheBlockGetsTheObjectsOnTheContextsQueue() throws {
        let (stack, context) = try context(with: ["Grace", "Ada"])
        _ = stack
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var delivered: [String] = []
        nonisolated(unsafe) var onQueue = false
        let request = NSAsynchronousFetchRequest(fetchRequest: people()) { result in
            delivered = (result.finalResult ?? []).compactMap { $0.value(forKey: "name") as? String }
            onQueue = result.finalResult?.allSatisfy { $0.managedObjectContext === context } ?? false
            done.signal()
        }
        var returned: NSAsynchronousFetchResult<NSManagedObject>?
        try context.performAndWait {
            returned = try context.execute(request) as? NSAsynchronousFetchResult<NSManagedObject>
            #expect(returned?.finalResult == nil)              // not run yet: this block holds the queue
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(delivered == ["Ada", "Grace"])
        #expect(onQueue)
        #expect(returned?.managedObjectContext === context)
        #expect(returned?.operationError == nil)
        #expect(returned?.progress?.isFinished == true)
        #expect(returned?.fetchRequest === request)
    }

    @Test func aRequestCancelledBeforeItRunsReportsUserCancelled() throws {
        let (stack, context) = try context(with: ["Ada"])
        _ = stack
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var error: (any Error)?
        nonisolated(unsafe) var objects: [NSManagedObject]?
        let request = NSAsynchronousFetchRequest(fetchRequest: people()) { result in
            error = result.operationError
            objects = result.finalResult
            done.signal()
        }
        try context.performAndWait {
            let running = try context.execute(request) as? NSPersistentStoreAsynchronousResult
            running?.cancel()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect((error as? CocoaError)?.code == .userCancelled)
        #expect(objects == nil)
    }

    @Test func aFetchThatFailsReportsItsError() throws {
        let (stack, context) = try context(with: [])
        _ = stack
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var error: (any Error)?
        let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Nobody")) { result in
            error = result.operationError
            done.signal()
        }
        try context.performAndWait { _ = try context.execute(request) }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect("\(error.map { "\($0)" } ?? "")".contains("Nobody"))
    }
}
