import Foundation

/// Values computed once per key and kept, for any thread: what a frozen model derives from its
/// entities (their version hashes, the version metadata of a set of them).
///
/// ```swift
/// let hashes = ComputedOnce<ObjectIdentifier, Data>()
/// let hash = hashes.value(for: ObjectIdentifier(entity)) { entity.computeVersionHash() }
/// ```
final class ComputedOnce<Key: Hashable, Value>: @unchecked Sendable {
    // @unchecked Sendable: `values` is guarded by `lock`; a value is handed out only once made,
    // and its makers keep only values that are never changed (data, strings, numbers, arrays
    // and dictionaries of them).
    private let lock = NSLock()
    private var values: [Key: Value] = [:]

    /// The value kept for `key`, or `compute()`'s, kept for next time. `compute` runs outside
    /// the lock, so that it may ask for other keys (an entity's hash needs its superentity's);
    /// two threads may then both compute it, and the value is the same.
    func value(for key: Key, compute: () -> Value) -> Value {
        if let value = lock.withLock({ values[key] }) { return value }
        let value = compute()
        lock.withLock { values[key] = value }
        return value
    }
}
