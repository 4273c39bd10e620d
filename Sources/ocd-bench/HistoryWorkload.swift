import Foundation
import OpenCoreData

/// W13: reading the history of one save of `updateCount` updated items, in a store whose
/// history also holds the insertion of all N items (N changes before it), against the same read
/// in a store whose history holds only that save. The bar: fetching a transaction's
/// changes costs in proportion to its size, not to the history before it (a ratio near 1).
enum HistoryWorkload {
    static let updateCount = 10_000

    /// The framework side: N items inserted with history tracked, then the save read back.
    static func afterLongHistory(directory: URL, n: Int) throws -> Double {
        try readSave(directory: directory, n: n, insertionTracked: true)
    }

    /// The baseline: N items inserted without history, then the same save read back.
    static func afterNoHistory(directory: URL, n: Int) throws -> Double {
        try readSave(directory: directory, n: n, insertionTracked: false)
    }

    private static func readSave(directory: URL, n: Int, insertionTracked: Bool) throws -> Double {
        try FrameworkWorkloads.fillItemStore(in: directory, n: n, tracksHistory: insertionTracked)
        let stack = try BenchStack(directory: directory, model: BenchModel.items(), tracksHistory: true)
        let before = stack.coordinator.currentPersistentHistoryToken(fromStores: nil)
        let request = NSFetchRequest<Item>(entityName: "Item")
        request.fetchLimit = updateCount
        for item in try stack.context.fetch(request) { item.price += 1 }
        try stack.context.save()
        var changes = 0
        let seconds = try Stopwatch.time {
            let result = try stack.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: before)) as? NSPersistentHistoryResult
            for transaction in result?.result as? [NSPersistentHistoryTransaction] ?? [] {
                for change in transaction.changes ?? [] where change.updatedProperties?.isEmpty == false { changes += 1 }
            }
        }
        guard changes == updateCount else {
            throw BenchCheckError(workload: "W13", detail: "read \(changes) changes, expected \(updateCount)")
        }
        return seconds
    }
}
