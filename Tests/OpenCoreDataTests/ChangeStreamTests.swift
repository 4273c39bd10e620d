import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// `NSManagedObjectContext.changes` (issue 14, item 7): what ObjectsDidChange and DidSave carry,
/// as an asynchronous sequence of object IDs.
@Suite struct ChangeStreamTests {
    @Test func changesCarryWhatTheNotificationsCarryInOrder() async throws {
        let stack = try TestStack(.sqlite)
        let changes = stack.context.changes
        let ada = stack.insert("Person", ["name": "Ada"])
        let temporaryID = ada.objectID
        stack.context.processPendingChanges()
        try stack.context.save()
        ada.setValue(36, forKey: "age")
        try stack.context.save()
        stack.context.delete(ada)
        try stack.context.save()

        var iterator = changes.makeAsyncIterator()
        var received: [NSManagedObjectContext.Change] = []
        for _ in 0..<6 { if let change = await iterator.next() { received.append(change) } }
        let permanentID = ada.objectID
        #expect(received.map(\.kind) == [.objectsDidChange, .didSave, .objectsDidChange, .didSave, .objectsDidChange, .didSave])
        #expect(received[0].inserted == [temporaryID])
        #expect(received[1].inserted == [permanentID])
        #expect(received[2].updated == [permanentID])
        #expect(received[3].updated == [permanentID])
        #expect(received[4].deleted == [permanentID])
        #expect(received[5].deleted == [permanentID])
    }

    @Test func aBackgroundContextsSavesReachATaskOnAnotherThread() async throws {
        let stack = try TestStack(.sqlite)
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = stack.coordinator
        let saves = Task {
            var inserted = 0
            for await change in background.changes where change.kind == .didSave {
                inserted += change.inserted.count
                if inserted == 30 { break }
            }
            return inserted
        }
        // The task observes once it has started iterating; wait until the stream exists.
        try await Task.sleep(nanoseconds: 100_000_000)
        for round in 0..<3 {
            try await background.perform {
                for number in 0..<10 {
                    let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: background)
                    person.setValue("p\(round)-\(number)", forKey: "name")
                }
                try background.save()
            }
        }
        #expect(await saves.value == 30)
    }

    @Test func aStreamEndsWhenItsContextGoesAway() async throws {
        let stack = try TestStack(.sqlite)
        var context: NSManagedObjectContext? = stack.newContext()
        let changes = try #require(context).changes
        weak let gone = context
        let reader = Task {
            var count = 0
            for await _ in changes { count += 1 }
            return count
        }
        context = nil
        // The stream does not keep its context alive, and its iteration ends with the context.
        #expect(gone == nil)
        #expect(await reader.value == 0)
    }

    @Test func aStreamThatEndsStopsObserving() async throws {
        let stack = try TestStack(.sqlite)
        var changes: AsyncStream<NSManagedObjectContext.Change>? = stack.context.changes
        let before = try #require(changes)
        let task = Task { for await _ in before {} }
        task.cancel()
        await task.value
        changes = nil
        // Nothing observes any more: saving posts to no stream (and does not crash).
        stack.insert("Person", ["name": "Ada"])
        try stack.context.save()
        #expect(changes == nil)
    }
}
