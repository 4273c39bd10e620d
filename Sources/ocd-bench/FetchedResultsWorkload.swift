import Foundation
import OpenCoreData

/// W12: a fetched results controller over `objectCount` items sorted by price follows one change
/// at a time — an item's price set so that it moves — and its delegate hears each round; timed
/// per change, against the same controller's `performFetch()`. The bar: a change costs a
/// round proportional to the change, not a refetch.
enum FetchedResultsWorkload {
    static let objectCount = 100_000
    /// How many single-object changes the framework side times.
    static let changeCount = 500

    /// The framework side: the mean time of one change round.
    static func oneChange(directory: URL, n _: Int) throws -> Double {
        let (stack, controller) = try controllerOverStoredItems(in: directory)
        let delegate = CountingDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        let items = controller.fetchedObjects!
        var generator = SystemRandomNumberGenerator()
        // The first round builds the controller's table of where each object is; not timed.
        move(items[0], using: &generator, in: stack)
        let seconds = Stopwatch.time {
            for _ in 0..<changeCount { move(items.randomElement(using: &generator)!, using: &generator, in: stack) }
        }
        try check(delegate.rounds == changeCount + 1, "\(delegate.rounds) rounds for \(changeCount + 1) changes")
        let prices = controller.fetchedObjects!.map(\.price)
        try check(prices.count == objectCount && zip(prices, prices.dropFirst()).allSatisfy { $0 <= $1 },
                  "the controller's \(prices.count) items are not in price order")
        return seconds / Double(changeCount)
    }

    /// The baseline: `performFetch()` of the same controller.
    static func performFetch(directory: URL, n _: Int) throws -> Double {
        let (_, controller) = try controllerOverStoredItems(in: directory)
        let seconds = try Stopwatch.time { try controller.performFetch() }
        try check(controller.fetchedObjects?.count == objectCount, "performFetch found \(controller.fetchedObjects?.count ?? 0) items")
        return seconds
    }

    /// A stack holding `objectCount` saved items, none of them registered in its context, and a
    /// controller of them sorted by price.
    private static func controllerOverStoredItems(in directory: URL) throws -> (BenchStack, NSFetchedResultsController<Item>) {
        let stack = try BenchStack(directory: directory, model: BenchModel.items())
        try FrameworkWorkloads.insertItems(0..<objectCount, into: stack.context)
        try stack.context.save()
        stack.context.reset()
        let request = NSFetchRequest<Item>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: stack.context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        return (stack, controller)
    }

    /// Gives `item` a new price, somewhere else in the order, and ends the event.
    private static func move(_ item: Item, using generator: inout SystemRandomNumberGenerator, in stack: BenchStack) {
        item.price = Double.random(in: 0..<Double(objectCount) * 0.01, using: &generator)
        stack.context.processPendingChanges()
    }

    private static func check(_ condition: Bool, _ detail: @autoclosure () -> String) throws {
        if !condition { throw BenchCheckError(workload: "W12", detail: detail()) }
    }
}

/// A delegate that counts the rounds it hears, as a table view would apply them.
private final class CountingDelegate: NSFetchedResultsControllerDelegate {
    private(set) var rounds = 0
    private(set) var changes = 0

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        changes += 1
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        rounds += 1
    }
}
