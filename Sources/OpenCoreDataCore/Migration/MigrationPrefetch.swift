import Foundation

/// Work a migration will need that does not depend on its plan, done on a helper thread from
/// the moment a store's hashes show it may need migrating: a store's own piece of work (the
/// SQLite store archives the new model cache), then loading the versions of the model file until
/// one has the store's hashes (the source model, as a rule) — or the other way round for a store
/// that may turn out to fit the model (see `init`). The calling thread meanwhile
/// compares the store with the model and lists the folders where mapping models are searched,
/// and takes each result only where it uses it — doing the work itself if the helper has not
/// begun it. The archive comes first because it is needed last and takes longest: the version
/// search, needed soonest, is most often done by the caller itself, and the helper is not
/// waited for.
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
package final class MigrationPrefetch: Sendable {
    private let versions: ClaimableWork<SourceModelSearch.VersionSearch>
    private let work: ClaimableWork<Data?>
    private let cancelled = LockedState(false)

    /// Starts `storeWork`, then `sourceSearch.searchVersions()`, on `HelperThread`; the search
    /// first when `storeWorkFirst` is false (a store that may fit the model after all, whose
    /// prefetch is most likely cancelled: the search stops between versions, the store's work
    /// cannot). Either is done by the thread that asks for its result if the helper has not
    /// begun it by then (`ClaimableWork`).
    package init(sourceSearch: SourceModelSearch, storeWorkFirst: Bool = true, storeWork: @escaping @Sendable () -> Data?) {
        // The search (its metadata a copy of the store's, its destination model frozen) is
        // only read, on whichever thread does it.
        let cancelled = cancelled
        versions = ClaimableWork { sourceSearch.searchVersions(until: { cancelled.withLock { $0 } }) }
        work = ClaimableWork(storeWork)
        // The helper never waits for anything, and a caller never waits for work the helper
        // has not begun: migrations on any number of threads can share the one helper.
        HelperThread.migrationPrefetch.run { [versions, work] in
            if storeWorkFirst {
                work.perform()
                versions.perform()
            } else {
                versions.perform()
                work.perform()
            }
        }
    }

    /// Stops what has not been done yet: the store turned out to need no migration. A version
    /// being loaded is finished; no other is begun. (A result asked for after this is made on
    /// the asking thread, and the version search may then have stopped early.)
    package func cancel() {
        cancelled.withLock { $0 = true }
        versions.cancel()
        work.cancel()
    }

    /// What `sourceSearch.searchVersions()` returned.
    package func versionSearch() -> SourceModelSearch.VersionSearch? {
        versions.value()
    }

    /// What `storeWork` returned.
    package func storeWork() -> Data? {
        work.value()
    }
}
