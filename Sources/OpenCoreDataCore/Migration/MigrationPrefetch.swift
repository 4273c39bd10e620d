import Foundation

/// Work a migration will need that does not depend on its plan, done on a queue of its own
/// from the moment a store is known to need migrating: the listing of the folders where mapping
/// models are searched (the main bundle's first, whose first use is slow on Linux), then a
/// store's own piece of work (the SQLite store archives the new model cache). The calling
/// thread meanwhile compares the store with the model and looks for the source model, and
/// waits for each result only where it uses it.
///
/// ```swift
/// let prefetch = MigrationPrefetch(destination: model) { StoreModelCache.content(for: model) }
/// var planner = StoreMigrationPlanner(destination: model, configuration: nil, options: options, url: url)
/// planner.prefetch = prefetch
/// let plan = try planner.plan(…)            // uses prefetch.mappingModelFiles()
/// let cache = prefetch.storeWork()
/// ```
///
/// The destination model is frozen (in use by its coordinator), which is what makes reading it
/// from another thread safe.
package final class MigrationPrefetch: @unchecked Sendable {
    // @unchecked Sendable: each result is written once, before its group is left, and read only
    // after waiting for that group (which any number of waits may do).
    private let filesListed = DispatchGroup()
    private let workDone = DispatchGroup()
    private var files: [String: [URL]] = [:]
    private var work: Data?

    /// Starts listing the mapping model folders of `destination`, then `storeWork`.
    package init(destination: NSManagedObjectModel, storeWork: @escaping @Sendable () -> Data?) {
        filesListed.enter()
        workDone.enter()
        // A queue of its own, not a global one: the migration may itself run on a global
        // queue's thread, and waiting there for work queued behind it could wait for ever. A
        // queue made with a label runs on a thread that is added when none is free.
        DispatchQueue(label: "OpenCoreData migration prefetch").async { [self] in
            files = NSMappingModel.mappingModelFiles(for: destination, in: nil)
            filesListed.leave()
            work = storeWork()
            workDone.leave()
        }
    }

    /// The mapping model files (by extension) `NSMappingModel.mappingModel(in: nil, …)` looks
    /// through for `destination`.
    package func mappingModelFiles() -> [String: [URL]] {
        filesListed.wait()
        return files
    }

    /// What `storeWork` returned.
    package func storeWork() -> Data? {
        workDone.wait()
        return work
    }
}
