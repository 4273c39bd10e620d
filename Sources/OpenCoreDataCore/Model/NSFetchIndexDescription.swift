/// A named index over one or more properties of an entity (Core Data's compound fetch index).
///
/// ```swift
/// entity.indexes = [NSFetchIndexDescription(name: "byScore", elements: [
///     NSFetchIndexElementDescription(property: score, collationType: .binary)])]
/// ```
public final class NSFetchIndexDescription: @unchecked Sendable {
    // @unchecked Sendable: like every model description, frozen once the model is in use.
    public var name: String
    public var elements: [NSFetchIndexElementDescription] {
        didSet {
            for element in oldValue where element.indexDescription === self { element.indexDescription = nil }
            for element in elements { element.indexDescription = self }
        }
    }
    /// The entity whose `indexes` hold this index (nil until it is given to one).
    ///
    /// Difference from Core Data: a weak reference where Apple's is `unowned(unsafe)`; it reads
    /// nil once the entity is gone instead of pointing at freed memory.
    public var entity: NSEntityDescription? { entityAnchor?.entity }
    weak var entityAnchor: EntityAnchor?
    /// Indexes only the rows that match this predicate (a partial index), when set.
    ///
    /// Difference from Core Data: kept in the model (and read from Xcode models), but the SQLite
    /// store creates the index over every row. Fetches give the same results; the index is
    /// larger than it needs to be.
    public var partialIndexPredicate: NSPredicate?

    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        self.name = name
        self.elements = elements ?? []
        for element in self.elements { element.indexDescription = self }
    }
}

/// One column of a fetch index.
public final class NSFetchIndexElementDescription: @unchecked Sendable {
    // @unchecked Sendable: frozen once the model is in use.
    public enum CollationType: UInt, Sendable {
        case binary = 0
        case rTree = 1
    }

    public var property: NSPropertyDescription?
    public var propertyName: String?
    public var collationType: CollationType
    public var isAscending = true
    /// The index this element belongs to (nil until it is given to one).
    ///
    /// Difference from Core Data: a weak reference where Apple's is `unowned(unsafe)`.
    public internal(set) weak var indexDescription: NSFetchIndexDescription?

    public init(property: NSPropertyDescription, collationType: CollationType) {
        self.property = property
        self.propertyName = property.name
        self.collationType = collationType
    }
}
