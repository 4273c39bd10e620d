import Foundation

/// Work a migration will need that does not depend on its plan, done on a queue of its own
/// from the moment a store's hashes show it may need migrating: loading the versions of the
/// model file until one has the store's hashes (the source model, as a rule), then a store's
/// own piece of work (the SQLite store archives the new model cache). The calling thread
/// meanwhile compares the store with the model and lists the folders where mapping models are
/// searched, and waits for each result only where it uses it.
///
/// ```swift
/// var planner = StoreMigrationPlanner(destination: model, configuration: nil, options: options, url: url)
/// planner.prefetch = MigrationPrefetch(sourceSearch: planner.sourceModelSearch(metadata: metadata)) {
///     StoreModelCache.content(for: model)
/// }
/// let plan = try planner.plan(metadata: metadata, …)  // uses prefetch.versionSearch()
/// let cache = prefetch.storeWork()
/// ```
///
/// The destination model is frozen (in use by its coordinator), which is what makes reading it
/// from another thread safe.
package final class MigrationPrefetch: @unchecked Sendable {
    // @unchecked Sendable: each result is written once, before its group is left, and read only
    // after waiting for that group (which any number of waits may do). The search (its metadata
    // a copy of the store's, its destination model frozen) is only read.
    private let sourceSearch: SourceModelSearch
    private let versionsSearched = DispatchGroup()
    private let workDone = DispatchGroup()
    private var versions: SourceModelSearch.VersionSearch?
    private var work: Data?

    /// Starts `sourceSearch.searchVersions()`, then `storeWork`.
    package init(sourceSearch: SourceModelSearch, storeWork: @escaping @Sendable () -> Data?) {
        self.sourceSearch = sourceSearch
        versionsSearched.enter()
        workDone.enter()
        // A queue of its own, not a global one: the migration may itself run on a global
        // queue's thread, and waiting there for work queued behind it could wait for ever. A
        // queue made with a label runs on a thread that is added when none is free.
        DispatchQueue(label: "OpenCoreData migration prefetch").async { [self] in
            versions = self.sourceSearch.searchVersions()
            versionsSearched.leave()
            work = storeWork()
            workDone.leave()
        }
    }

    /// What `sourceSearch.searchVersions()` returned.
    package func versionSearch() -> SourceModelSearch.VersionSearch? {
        versionsSearched.wait()
        return versions
    }

    /// What `storeWork` returned.
    package func storeWork() -> Data? {
        workDone.wait()
        return work
    }
}
