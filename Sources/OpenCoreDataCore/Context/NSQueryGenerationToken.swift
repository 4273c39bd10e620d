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
/// Tokens are `NSSecureCoding`. An archived token decoded in the same process names the same
/// generation while it is alive (a context or another token keeps it); decoded in another
/// process, or after its generation was let go, it names a generation that is no longer
/// available, and `setQueryGenerationFrom(_:)` refuses it (134070). `current` decodes as
/// `current`.
///
/// Difference from Core Data: a token keeps its generation alive for as long as the token
/// exists (Core Data's can outlive the generation it names).
public final class NSQueryGenerationToken: NSObject, NSSecureCoding, @unchecked Sendable {
    // @unchecked Sendable: immutable (a final class of `let`s; `QueryGeneration` is Sendable).

    /// The generation named, or nil for `current` and for a generation no longer available.
    let generation: QueryGeneration?
    /// A generation that was named but is no longer available (decoded from an archive in
    /// another process, or after it was let go); nil otherwise.
    private let unavailable: UnavailableGeneration?

    /// A generation by its number and the process it began in.
    private struct UnavailableGeneration: Hashable {
        let number: Int
        let process: String
    }

    /// The number of the generation named that is no longer available.
    var unavailableNumber: Int? { unavailable?.number }

    init(generation: QueryGeneration?) {
        self.generation = generation
        unavailable = nil
    }

    /// The token that pins a context to the newest generation, from its next read on.
    public static let current = NSQueryGenerationToken(generation: nil)

    /// Whether this is `current` (or a copy of it decoded from an archive).
    var isCurrent: Bool { generation == nil && unavailable == nil }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSQueryGenerationToken else { return false }
        if let generation { return generation === other.generation }
        return other.generation == nil && unavailable == other.unavailable
    }

    public override var hash: Int {
        if let generation { return ObjectIdentifier(generation).hashValue }
        return unavailable?.hashValue ?? -1
    }

    public override var description: String {
        if let generation { return "NSQueryGenerationToken(generation \(generation.number))" }
        if let unavailableNumber { return "NSQueryGenerationToken(generation \(unavailableNumber), no longer available)" }
        return "NSQueryGenerationToken(current)"
    }

    // MARK: Archiving

    public static var supportsSecureCoding: Bool { true }

    private static let numberKey = "OCDGeneration"
    private static let processKey = "OCDProcess"

    /// Encodes the generation's number and this process's identity; `current` encodes neither.
    public func encode(with coder: NSCoder) {
        if let generation {
            coder.encode(generation.number, forKey: Self.numberKey)
            coder.encode(QueryGeneration.processIdentifier as NSString, forKey: Self.processKey)
        } else if let unavailable {
            coder.encode(unavailable.number, forKey: Self.numberKey)
            coder.encode(unavailable.process as NSString, forKey: Self.processKey)
        }
    }

    public init?(coder: NSCoder) {
        guard coder.containsValue(forKey: Self.numberKey) else {
            generation = nil
            unavailable = nil
            super.init()
            return
        }
        let number = coder.decodeInteger(forKey: Self.numberKey)
        let process = coder.decodeObject(of: NSString.self, forKey: Self.processKey).map(String.init) ?? ""
        if let alive = QueryGeneration.alive(number: number, process: process) {
            generation = alive
            unavailable = nil
        } else {
            generation = nil
            unavailable = UnavailableGeneration(number: number, process: process)
        }
        super.init()
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
