import Foundation
import Testing
import OpenCoreData

/// `NSFetchRequest.execute()`: the request fetches with the context whose block the thread
/// runs, the innermost one when blocks nest, and refuses outside every block.
@Suite struct FetchRequestExecuteTests {
    /// A private-queue context on a store holding people named `names`.
    private static func context(holding names: [String]) throws -> (TestStack, NSManagedObjectContext) {
        let stack = try TestStack(.sqlite)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        try context.performAndWait {
            for name in names {
                NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue(name, forKey: "name")
            }
            try context.save()
        }
        return (stack, context)
    }

    @Test func insidePerformAndWaitItFetchesWithThatContext() throws {
        let (stack, context) = try Self.context(holding: ["Ada", "Grace"])
        let names = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let people = try request.execute()
            #expect(people.allSatisfy { $0.managedObjectContext === context })
            return people.map { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["Ada", "Grace"])
        withExtendedLifetime(stack) {}
    }

    @Test func itSeesTheContextsUnsavedChanges() throws {
        let (stack, context) = try Self.context(holding: ["Ada"])
        let count = try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue("Hedy", forKey: "name")
            return try NSFetchRequest<NSManagedObject>(entityName: "Person").execute().count
        }
        #expect(count == 2)
        withExtendedLifetime(stack) {}
    }

    @Test func insideAsyncPerformItFetchesWithThatContext() async throws {
        let (stack, context) = try Self.context(holding: ["Ada", "Grace", "Hedy"])
        let count = try await context.perform { try NSFetchRequest<NSManagedObject>(entityName: "Person").execute().count }
        #expect(count == 3)
        let enqueued = try await context.perform(schedule: .enqueued) {
            try NSFetchRequest<NSManagedObjectID>(entityName: "Person").executeIDs().count
        }
        #expect(enqueued == 3)
        withExtendedLifetime(stack) {}
    }

    @Test func nestedBlocksUseTheInnermostContext() throws {
        let (stack, parent) = try Self.context(holding: ["Ada"])
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        let (outer, inner) = try parent.performAndWait {
            let inner = try child.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Person", into: child).setValue("Grace", forKey: "name")
                return try NSFetchRequest<NSManagedObject>(entityName: "Person").execute()
            }
            #expect(inner.allSatisfy { $0.managedObjectContext === child })
            // Back in the parent's block: the parent fetches again, without the child's change.
            return (try NSFetchRequest<NSManagedObject>(entityName: "Person").execute().count, inner.count)
        }
        #expect(inner == 2)
        #expect(outer == 1)
        withExtendedLifetime(stack) {}
    }

    @Test func aConfinementContextsBlocksRunInPlaceAndAreItsOwn() throws {
        let (stack, filled) = try Self.context(holding: ["Ada", "Grace"])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        let inPerformAndWait = try context.performAndWait { try NSFetchRequest<NSManagedObject>(entityName: "Person").execute().count }
        #expect(inPerformAndWait == 2)
        var inPerform: Int?
        context.perform { inPerform = try? NSFetchRequest<NSManagedObject>(entityName: "Person").execute().count }
        #expect(inPerform == 2)
        withExtendedLifetime((stack, filled)) {}
    }

    @Test func theAsyncPerformRunInPlaceIsTheContextsBlock() async throws {
        let (stack, filled) = try Self.context(holding: ["Ada", "Grace"])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        // Scheduled .immediate, it runs in place for a context whose queue the caller is on.
        let immediate = try await context.perform(schedule: .immediate) {
            try NSFetchRequest<NSManagedObject>(entityName: "Person").execute().count
        }
        #expect(immediate == 2)
        withExtendedLifetime((stack, filled)) {}
    }

    @MainActor @Test func aMainQueueContextsPerformAndWaitOnTheMainThreadIsItsBlock() throws {
        let (stack, filled) = try Self.context(holding: ["Ada"])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        let people = try context.performAndWait { try NSFetchRequest<NSManagedObject>(entityName: "Person").execute() }
        #expect(people.count == 1)
        #expect(people.first?.managedObjectContext === context)
        withExtendedLifetime((stack, filled)) {}
    }

    @Test func outsideEveryContextsBlockItThrows() throws {
        let (stack, context) = try Self.context(holding: ["Ada"])
        let error = try #require(throws: CocoaError.self) { try NSFetchRequest<NSManagedObject>(entityName: "Person").execute() }
        #expect(error.code == .coreData)
        #expect(error.localizedDescription.contains("Person"))
        // A context's block that ended is no longer the thread's.
        context.performAndWait {}
        #expect(throws: CocoaError.self) { try NSFetchRequest<NSManagedObject>(entityName: "Person").execute() }
        withExtendedLifetime(stack) {}
    }
}

private extension NSFetchRequest where ResultType == NSManagedObjectID {
    /// `execute()` with the request asking for IDs, as Core Data's result types allow.
    func executeIDs() throws -> [NSManagedObjectID] {
        resultType = .managedObjectIDResultType
        return try execute()
    }
}
