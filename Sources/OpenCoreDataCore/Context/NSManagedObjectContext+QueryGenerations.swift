import Foundation
import Synchronization

extension NSManagedObjectContext {
    /// The generation of the stores this context reads, or nil when it is not pinned (it reads
    /// the newest saved state, the default).
    ///
    /// ```swift
    /// try viewContext.setQueryGenerationFrom(.current)
    /// let token = viewContext.queryGenerationToken   // the generation it now reads
    /// ```
    /// Asking a context pinned to `current` whose generation has not begun yet (it begins at the
    /// next read) begins it now. A child context reads through its parent and answers nil, as in
    /// Core Data; so does a context whose stores keep no generations (in memory, incremental,
    /// SQLite without WAL), which reads their newest state.
    public var queryGenerationToken: NSQueryGenerationToken? {
        guard parent == nil, let coordinator = persistentStoreCoordinator,
              let generation = try? queryGenerationSetting.generation(of: coordinator), generation.pinsAnyStore
        else { return nil }
        return NSQueryGenerationToken(generation: generation)
    }

    /// Pins this context's reads to a generation of its stores: `.current` for the newest one,
    /// from the next read on; a token another context's `queryGenerationToken` gave, for that
    /// one; nil to read the newest state again.
    ///
    /// ```swift
    /// try viewContext.setQueryGenerationFrom(.current)
    /// let shown = try viewContext.fetch(request)      // the store as it is now
    /// // …other contexts and processes save…
    /// let again = try viewContext.fetch(request)      // the same rows and values
    /// ```
    /// A pinned context's fetches, counts and faults — faults fired later too — read the state
    /// of its generation while other contexts and processes save. Its own `save()`, `reset()` and
    /// merges (`mergeChanges(fromContextDidSave:)`, `automaticallyMergesChangesFromParent`)
    /// move it to the newest generation, still pinned, as in Core Data. Only SQLite stores in WAL
    /// mode keep generations; the others are read at their newest state.
    ///
    /// Throws 134070 (`NSPersistentStoreOperationError`) for a child context, which reads through
    /// its parent's generation (pin the root context), for a token of another coordinator's
    /// stores, and for a token decoded from an archive whose generation is no longer available. A pinned generation holds back WAL checkpoints until it is released.
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        guard let generation else {
            queryGenerationSetting.unpin()
            return
        }
        guard parent == nil else {
            throw CoreDataError.make(.persistentStoreOperation,
                                     "A child context reads through its parent's query generation: pin the context at the root of the chain")
        }
        if let number = generation.unavailableNumber {
            throw CoreDataError.make(.persistentStoreOperation,
                                     "The query generation token names generation \(number), which is no longer available (a token decoded in another process, or after every context and token that held it let it go)")
        }
        if let pinned = generation.generation {
            guard let coordinator = persistentStoreCoordinator, pinned.coordinator == ObjectIdentifier(coordinator) else {
                throw CoreDataError.make(.persistentStoreOperation,
                                         "The query generation token names the stores of another persistent store coordinator")
            }
        }
        queryGenerationSetting.pin(to: generation.generation)
    }

    /// The reader of `store` this context's reads go through when it (or the root of its chain
    /// of parents) is pinned to a generation, beginning the generation if it has not begun; nil
    /// when reads see the newest state.
    package func generationPin(for store: NSPersistentStore) throws -> (any StoreGenerationPin)? {
        var root = self
        while let parent = root.parent { root = parent }
        guard root.queryGenerationSetting.isPinned, let coordinator = root.persistentStoreCoordinator else { return nil }
        return try root.queryGenerationSetting.generation(of: coordinator)?.pin(for: store)
    }

    /// Moves a pinned context to the newest generation, from its next read on (after its save,
    /// a reset or a merge).
    func advanceQueryGeneration() {
        queryGenerationSetting.advance()
    }
}

/// Which generation a context reads: none (the newest state), or one it is pinned to, begun
/// lazily at the first read after `setQueryGenerationFrom(.current)`.
///
/// A class with a lock rather than fields of the context: a child's reads on another thread ask
/// the root context, and reflection copies a context's stored fields, which an `Atomic` cannot
/// survive.
final class QueryGenerationSetting: @unchecked Sendable {
    // @unchecked Sendable: `generation` is only touched under `lock`; `pinned` is atomic.
    private let lock = NSLock()
    private let pinned = Atomic<Bool>(false)
    /// The generation pinned to, or nil while a pinned context's generation has not begun.
    private var generation: QueryGeneration?

    /// Whether reads are pinned (the check every read makes, without the lock).
    var isPinned: Bool { pinned.load(ordering: .acquiring) }

    /// The generation reads see, begun now when it has not; nil when not pinned.
    func generation(of coordinator: NSPersistentStoreCoordinator) throws -> QueryGeneration? {
        guard isPinned else { return nil }
        return try lock.withLock {
            if let generation { return generation }
            // Unpinned since the check above, by another thread: nothing to begin.
            guard isPinned else { return nil }
            let begun = try QueryGeneration(pinning: coordinator)
            generation = begun
            return begun
        }
    }

    /// Pins to `generation`, or to the newest one when nil (begun at the next read).
    func pin(to generation: QueryGeneration?) {
        let released = lock.withLock {
            defer { self.generation = generation }
            pinned.store(true, ordering: .releasing)
            return self.generation
        }
        withExtendedLifetime(released) {}  // its readers are given back outside the lock
    }

    /// Reads see the newest state again.
    func unpin() {
        let released = lock.withLock {
            defer { generation = nil }
            pinned.store(false, ordering: .releasing)
            return generation
        }
        withExtendedLifetime(released) {}
    }

    /// A pinned context moves to the newest generation, begun at its next read.
    func advance() {
        guard isPinned else { return }
        pin(to: nil)
    }
}
