#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The contexts whose blocks the current thread is running (`perform`, `performAndWait`).
///
/// A thread inside a context's block owns that context's queue even when it goes on to run
/// another queue's block synchronously: a parent's `performAndWait` whose block uses a child, a
/// child whose fetch reaches its parent. Dispatch only knows the queue the thread runs now, so
/// without this a nested call would wait for the block it is part of.
enum ContextsOnThisThread {
    /// The thread's list, owned by the thread (released by the key's destructor when it ends).
    private final class List {
        /// Innermost last. Unretained: each runs a block of its own on this thread (which holds
        /// it) for as long as it is listed.
        var contexts: [Unmanaged<AnyObject>] = []
        /// How many of the blocks below were entered from the main queue (see `holdsMainQueue`).
        var mainQueueDepth = 0
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { list in
            if let list { Unmanaged<List>.fromOpaque(list).release() }
        }
        return key
    }()

    private static var list: List {
        if let existing = pthread_getspecific(key) { return Unmanaged<List>.fromOpaque(existing).takeUnretainedValue() }
        let list = List()
        pthread_setspecific(key, Unmanaged.passRetained(list).toOpaque())
        return list
    }

    /// Whether the current thread is running a block of `context`.
    static func contains(_ context: AnyObject) -> Bool {
        guard let existing = pthread_getspecific(key) else { return false }
        let wanted = Unmanaged.passUnretained(context).toOpaque()
        return Unmanaged<List>.fromOpaque(existing).takeUnretainedValue().contexts.contains { $0.toOpaque() == wanted }
    }

    /// The managed object context whose block the current thread runs, the innermost when
    /// blocks nest; nil outside every context's block.
    static var currentContext: NSManagedObjectContext? {
        guard let existing = pthread_getspecific(key) else { return nil }
        let contexts = Unmanaged<List>.fromOpaque(existing).takeUnretainedValue().contexts
        return contexts.reversed().lazy.compactMap { $0.takeUnretainedValue() as? NSManagedObjectContext }.first
    }

    /// Runs `body` as a block of `context`.
    /// `fromMainQueue`: whether the caller ran the main queue when it asked for the block (a
    /// synchronous block then holds the main queue too, on a queue where dispatch no longer
    /// says so).
    static func running<T>(_ context: AnyObject, fromMainQueue: Bool = false, _ body: @autoclosure () throws -> T) rethrows -> T {
        let list = list
        list.contexts.append(Unmanaged.passUnretained(context))
        if fromMainQueue { list.mainQueueDepth += 1 }
        defer {
            list.contexts.removeLast()
            if fromMainQueue { list.mainQueueDepth -= 1 }
        }
        return try body()
    }

    /// Whether the thread is inside a context's block that it entered while running the main
    /// queue (a main-queue block that went on to run a child context's block synchronously).
    static var holdsMainQueue: Bool {
        guard let existing = pthread_getspecific(key) else { return false }
        return Unmanaged<List>.fromOpaque(existing).takeUnretainedValue().mainQueueDepth > 0
    }
}
