import Foundation
import OpenCoreData

/// Workloads of nested and merging contexts, each against the framework's own baseline rather
/// than raw SQLite: W9 times a child context's save of new objects into its parent against the
/// same save to the store; W10 times merging another context's save of updated objects into a
/// context that holds them against fetching them again.
enum ContextWorkloads {
    /// How many objects W9 and W10 save and merge.
    static let objectCount = 10_000

    /// W9: a child context saves `objectCount` new items into its parent.
    static func childSave(directory: URL, n _: Int) throws -> Double {
        let stack = try BenchStack(directory: directory, model: BenchModel.items())
        let child = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        child.parent = stack.context
        try FrameworkWorkloads.insertItems(0..<objectCount, into: child)
        let seconds = try Stopwatch.time { try child.save() }
        try check(stack.context.insertedObjects.count == objectCount, "W9", "the parent holds \(stack.context.insertedObjects.count) new objects")
        return seconds
    }

    /// W9's baseline: the same new items saved to the store.
    static func storeSave(directory: URL, n _: Int) throws -> Double {
        let stack = try BenchStack(directory: directory, model: BenchModel.items())
        try FrameworkWorkloads.insertItems(0..<objectCount, into: stack.context)
        return try Stopwatch.time { try stack.context.save() }
    }

    /// W10: a context holds `objectCount` items; another context updates every one and saves;
    /// the first merges that save and reads every price.
    static func mergeSave(directory: URL, n _: Int) throws -> Double {
        let (stack, items, saved) = try holdItemsAndUpdateThemElsewhere(in: directory)
        let seconds = Stopwatch.time {
            stack.context.mergeChanges(fromContextDidSave: saved)
            BenchSink.consume(priceSum(items))
        }
        try checkUpdated(items, "W10")
        return seconds
    }

    /// W10's baseline: the same context fetches the items again, refreshing them.
    static func refetch(directory: URL, n _: Int) throws -> Double {
        let (stack, items, _) = try holdItemsAndUpdateThemElsewhere(in: directory)
        var refetched: [Item] = []
        let seconds = try Stopwatch.time {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.shouldRefreshRefetchedObjects = true
            refetched = try stack.context.fetch(request)
            BenchSink.consume(priceSum(refetched))
        }
        try checkUpdated(items, "W10")
        return seconds
    }

    // MARK: Helpers

    /// A stack whose context holds every item, realized, after another context on the same
    /// coordinator updated each one's price and saved; with that save's notification.
    private static func holdItemsAndUpdateThemElsewhere(in directory: URL) throws -> (BenchStack, [Item], Notification) {
        let stack = try BenchStack(directory: directory, model: BenchModel.items())
        try FrameworkWorkloads.insertItems(0..<objectCount, into: stack.context)
        try stack.context.save()
        stack.context.reset()
        let items = try stack.context.fetch(NSFetchRequest<Item>(entityName: "Item"))
        BenchSink.consume(priceSum(items))
        let writer = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        writer.persistentStoreCoordinator = stack.coordinator
        let updated = try writer.fetch(NSFetchRequest<Item>(entityName: "Item"))
        for item in updated { item.price += 1 }
        try writer.save()
        // What `automaticallyMergesChangesFromParent` merges: the save's object IDs.
        let saved = Notification(name: NSManagedObjectContext.didSaveObjectIDsNotification, object: writer,
                                 userInfo: [NSUpdatedObjectIDsKey: Set(updated.map(\.objectID))])
        return (stack, items, saved)
    }

    private static func priceSum(_ items: [Item]) -> Int {
        items.reduce(0) { $0 &+ Int($1.price) }
    }

    private static func checkUpdated(_ items: [Item], _ workload: String) throws {
        let stale = items.filter { Int(($0.price - 1) * 100 + 0.5) != Int($0.name.dropFirst(5))! }.count
        try check(stale == 0, workload, "\(stale) of \(items.count) items do not show the saved price")
    }

    private static func check(_ condition: Bool, _ workload: String, _ detail: @autoclosure () -> String) throws {
        if !condition { throw BenchCheckError(workload: workload, detail: detail()) }
    }
}
