import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// `fetchedResultsUpdates(for:)` (issue 15, item 5): a fetch request's results and their
/// changes as an asynchronous sequence of object IDs.
@Suite struct FetchedResultsUpdatesTests {
    @Test(arguments: StoreKind.allCases)
    func updatesFollowTheResultsAndTheirDifferencesReplayThem(kind: StoreKind) async throws {
        let stack = try TestStack(kind)
        let ann = stack.insert("Person", ["name": "Ann", "age": 40])
        let cy = stack.insert("Person", ["name": "Cy", "age": 40])
        try stack.context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSPredicate(format: "age >= 18")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let updates = try stack.context.fetchedResultsUpdates(for: request)

        let bo = stack.insert("Person", ["name": "Bo", "age": 30])
        let temporaryBo = bo.objectID
        stack.context.processPendingChanges()
        ann.setValue("Zoe", forKey: "name")
        stack.context.processPendingChanges()
        ann.setValue(12, forKey: "age")  // stops matching
        stack.insert("Person", ["name": "Kid", "age": 5])  // never matches: no update
        stack.context.processPendingChanges()
        try stack.context.save()  // Bo's ID becomes permanent

        var iterator = updates.makeAsyncIterator()
        var received: [FetchedResultsUpdate] = []
        for _ in 0..<5 { received.append(try #require(await iterator.next())) }
        let (a, c) = (ann.objectID, cy.objectID)
        #expect(received.map(\.objectIDs) == [[a, c], [a, temporaryBo, c], [temporaryBo, c, a], [temporaryBo, c], [bo.objectID, c]])
        #expect(!bo.objectID.isTemporaryID)
        var replayed: [NSManagedObjectID] = []
        for update in received {
            replayed = try #require(replayed.applying(update.difference))
            #expect(replayed == update.objectIDs)
        }
    }

    @Test func differencesAloneReplayToAFreshFetch() async throws {
        let stack = try TestStack(.sqlite)
        for number in 0..<20 { stack.insert("Person", ["name": "p\(number)", "age": number]) }
        try stack.context.save()
        // A context of its own, dropped at the end, which ends the sequence.
        var context: NSManagedObjectContext? = stack.newContext()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: false)]
        let updates = try context!.fetchedResultsUpdates(for: request, includingSnapshots: false)
        var people = try stack.fetch("Person", in: context)
        for round in 0..<30 {
            let person = people[(round * 7) % people.count]
            if round % 4 == 3 {
                context!.delete(person)
                people.removeAll { $0 === person }
            } else if round % 4 == 2 {
                let new = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context!)
                new.setValue("n\(round)", forKey: "name")
                new.setValue((round * 53) % 150, forKey: "age")
                people.append(new)
            } else {
                person.setValue((round * 37) % 150, forKey: "age")
            }
            context!.processPendingChanges()
            if round % 10 == 9 { try context!.save() }
        }
        let expected = try context!.fetch(request).map(\.objectID)
        #expect(expected.allSatisfy { !$0.isTemporaryID })
        people = []
        context = nil
        var replayed: [NSManagedObjectID] = []
        for await update in updates {
            #expect(update.objectIDs == nil)
            replayed = try #require(replayed.applying(update.difference))
        }
        #expect(replayed == expected)
    }

    @Test func aBackgroundSaveMergedIntoTheContextIsAnUpdate() async throws {
        let stack = try TestStack(.sqlite)
        // A context on its own queue: the merge is queued there, and waiting there lets it run.
        let viewing = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        viewing.persistentStoreCoordinator = stack.coordinator
        viewing.automaticallyMergesChangesFromParent = true
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let updates = try viewing.performAndWait { try viewing.fetchedResultsUpdates(for: request) }
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = stack.coordinator
        try await background.perform {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: background).setValue("Ann", forKey: "name")
            try background.save()
        }
        viewing.performAndWait {}
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next()?.objectIDs?.isEmpty == true)
        let merged = try #require(await iterator.next())
        #expect(merged.objectIDs?.count == 1)
        #expect(merged.difference.insertions.count == 1)
    }

    @Test func theSequenceEndsWhenItsContextGoesAway() async throws {
        let stack = try TestStack(.sqlite)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        var context: NSManagedObjectContext? = stack.newContext()
        let updates = try context!.fetchedResultsUpdates(for: request)
        weak let gone = context
        context = nil
        #expect(gone == nil)
        var count = 0
        for await _ in updates { count += 1 }
        #expect(count == 1)
    }

    @Test func otherResultTypesAreRefused() throws {
        let stack = try TestStack(.sqlite)
        let request = NSFetchRequest<NSDictionary>(entityName: "Person")
        request.resultType = .dictionaryResultType
        let error = #expect(throws: (any Error).self) { _ = try stack.context.fetchedResultsUpdates(for: request) }
        #expect(error?.code == NSCoreDataError)
    }
}
