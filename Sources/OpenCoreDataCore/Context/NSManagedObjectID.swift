import Foundation
import Synchronization

/// The identity of a managed object: its entity, its store, and its key in that store.
///
/// Object IDs are values you can pass between threads and contexts:
/// ```swift
/// let id = person.objectID
/// background.perform { let same = background.object(with: id) }
/// ```
/// A new object has a temporary ID until it is saved (or `obtainPermanentIDs(for:)` is called);
/// then it has a permanent one whose URI is `x-coredata://<store UUID>/<Entity>/p<key>`.
public final class NSManagedObjectID: Hashable, Sendable, CustomStringConvertible, NSFetchRequestResult {
    /// The entity of the object.
    public let entity: NSEntityDescription
    /// The store the object lives in; nil for a temporary ID.
    public let persistentStore: NSPersistentStore?
    @usableFromInline let key: Key

    @usableFromInline
    enum Key: Hashable, Sendable {
        /// A number unique in this process (made with a counter: `UUID()` costs more than the
        /// rest of an insert).
        case temporary(UInt64)
        case permanent(Int64)
    }

    private static let nextTemporaryNumber = Atomic<UInt64>(1)
    /// Makes temporary IDs' URIs unique across processes too: a random UUID whose last eight
    /// bytes are replaced by the ID's number.
    private static let processTag = UUID()

    /// The identities of the store and of the root entity, for lookups that must not touch
    /// reference counts (the object registry).
    @usableFromInline let storeIdentity: ObjectIdentifier?
    @usableFromInline package let rootIdentity: ObjectIdentifier

    // Inlinable, as the next one: the SQLite store makes IDs for the to-ones of the rows it reads.
    @inlinable
    package convenience init(entity: NSEntityDescription, store: NSPersistentStore, primaryKey: Int64) {
        self.init(entity: entity, store: store, primaryKey: primaryKey, rootIdentity: ObjectIdentifier(entity.rootEntity))
    }

    /// For callers that already know the identity of `entity.rootEntity` (decoding rows).
    @inlinable
    package init(entity: NSEntityDescription, store: NSPersistentStore, primaryKey: Int64, rootIdentity: ObjectIdentifier) {
        self.entity = entity
        self.persistentStore = store
        self.key = .permanent(primaryKey)
        storeIdentity = ObjectIdentifier(store)
        self.rootIdentity = rootIdentity
    }

    package init(temporaryFor entity: NSEntityDescription) {
        self.entity = entity
        self.persistentStore = nil
        self.key = .temporary(Self.nextTemporaryNumber.add(1, ordering: .relaxed).oldValue)
        storeIdentity = nil
        rootIdentity = ObjectIdentifier(entity.rootEntity)
    }

    /// True until the object is saved or given a permanent ID.
    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The key in the store (`Z_PK` in the SQLite store); nil for a temporary ID.
    // Inlinable: the SQLite store reads it for every row it writes, from another module.
    @inlinable
    package var primaryKey: Int64? {
        if case .permanent(let value) = key { return value }
        return nil
    }

    /// `x-coredata://<store UUID>/<Entity>/p<key>`, or `x-coredata:///<Entity>/t<UUID>` while temporary.
    public func uriRepresentation() -> URL {
        let entityName = entity.name ?? ""
        switch key {
        case .temporary(let number):
            var bytes = Self.processTag.uuid
            withUnsafeMutableBytes(of: &bytes) { raw in
                for index in 0..<8 { raw[8 + index] = UInt8(truncatingIfNeeded: number >> (56 - 8 * index)) }
            }
            return URL(string: "x-coredata:///\(entityName)/t\(UUID(uuid: bytes).uuidString)")!
        case .permanent(let pk):
            // A store of your own names its rows by reference objects, which the URI carries.
            let reference = IncrementalStores.mayBeInUse
                ? (persistentStore as? any ReferenceObjectStore)?.referenceTable?.uriComponent(for: pk) ?? String(pk) : String(pk)
            return URL(string: "x-coredata://\(persistentStore?.identifier ?? "")/\(entityName)/p\(reference)")!
        }
    }

    public static func == (lhs: NSManagedObjectID, rhs: NSManagedObjectID) -> Bool {
        if lhs === rhs { return true }
        guard lhs.key == rhs.key else { return false }
        switch lhs.key {
        case .temporary: return true
        case .permanent:
            // Keys are unique per inheritance tree of one store.
            return lhs.storeIdentity == rhs.storeIdentity && lhs.rootIdentity == rhs.rootIdentity
        }
    }

    public func hash(into hasher: inout Hasher) {
        // One word, as the key (the part equality always compares): the notifications of a save
        // hash every saved object's ID.
        switch key {
        case .permanent(let key): hasher.combine(UInt64(bitPattern: key) << 1)
        case .temporary(let number): hasher.combine(number << 1 | 1)
        }
    }

    /// What sets and dictionaries hash an ID by: the same word as `hash(into:)`, mixed without a
    /// `Hasher` (see `WordHash`). Not part of Apple's API; the standard library's own hook.
    public func _rawHashValue(seed: Int) -> Int {
        switch key {
        case .permanent(let key): WordHash.hash(UInt64(bitPattern: key) << 1, seed: seed)
        case .temporary(let number): WordHash.hash(number << 1 | 1, seed: seed)
        }
    }

    public var description: String {
        "<NSManagedObjectID \(uriRepresentation().absoluteString)>"
    }
}

extension NSManagedObjectID: NSCopying {
    /// The same object: an object ID never changes, so a copy is the object itself, as with
    /// Foundation's immutable classes.
    ///
    /// ```swift
    /// let same = value.copy(with: nil) as! NSManagedObjectID
    /// ```
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
