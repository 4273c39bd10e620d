import Foundation
/// Names a generation of the persistent stores: the state a pinned context reads.
///
/// ```swift
/// try viewContext.setQueryGenerationFrom(.current)   // pinned from its next read on
/// let token = viewContext.queryGenerationToken       // this generation
/// try otherContext.setQueryGenerationFrom(token)     // reads the same state
/// try viewContext.setQueryGenerationFrom(nil)        // unpinned: reads the newest state again
/// ```
/// A token keeps its generation readable for as long as it exists: the store's readers hold
/// their read transactions open, which holds back WAL checkpoints (the `-wal` file grows until
/// every pinned context moves on and every token goes away).
///
/// Differences from Core Data: not an `NSObject`, and not `NSSecureCoding` (the
/// `import CoreData` work covers the class hierarchy); Core Data's token can outlive the
/// generation it names, after which pinning it fails, where ours keeps it alive.
public final class NSQueryGenerationToken: Hashable, CustomStringConvertible, Sendable {
    /// The generation named, or nil for `current`.
    let generation: QueryGeneration?

    init(generation: QueryGeneration?) {
        self.generation = generation
    }

    /// The token that pins a context to the newest generation, from its next read on.
    public static let current = NSQueryGenerationToken(generation: nil)

    public static func == (lhs: NSQueryGenerationToken, rhs: NSQueryGenerationToken) -> Bool {
        lhs === rhs || (lhs.generation != nil && lhs.generation === rhs.generation)
    }

    public func hash(into hasher: inout Hasher) {
        if let generation { hasher.combine(ObjectIdentifier(generation)) } else { hasher.combine(ObjectIdentifier(self)) }
    }

    public var description: String {
        guard let generation else { return "NSQueryGenerationToken(current)" }
        return "NSQueryGenerationToken(generation \(generation.number))"
    }
}

extension NSQueryGenerationToken: NSCopying {
    /// The same object: a token never changes, so a copy is the object itself, as with
    /// Foundation's immutable classes.
    ///
    /// ```swift
    /// let same = value.copy(with: nil) as! NSQueryGenerationToken
    /// ```
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
