/// The objects of one batched fetch (`fetchBatchSize > 0`): the fetch returns faults without
/// values, and the first one of a batch to be used loads the values of its whole batch with one
/// query, so that touching N objects costs N / batchSize queries and unused batches cost none.
///
/// Difference from Core Data: Core Data returns an array proxy that also releases batches it
/// no longer needs; here the returned array holds every object (as a fault until used), so
/// memory grows with the objects actually touched.
final class FaultBatch {
    let objectIDs: [NSManagedObjectID]
    let batchSize: Int
    private var loadedBatches: Set<Int> = []

    init(objectIDs: [NSManagedObjectID], batchSize: Int) {
        self.objectIDs = objectIDs
        self.batchSize = batchSize
    }

    /// Loads the batch containing position `index` into the context's faults, once.
    func loadBatch(containing index: Int, into context: NSManagedObjectContext) {
        let batch = index / batchSize
        guard loadedBatches.insert(batch).inserted else { return }
        let range = (batch * batchSize)..<min((batch + 1) * batchSize, objectIDs.count)
        context.prefetchRows(for: Array(objectIDs[range]))
    }
}
