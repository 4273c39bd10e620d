import Foundation

/// A named index over one or more properties of an entity (Core Data's compound fetch index).
///
/// ```swift
/// entity.indexes = [NSFetchIndexDescription(name: "byScore", elements: [
///     NSFetchIndexElementDescription(property: score, collationType: .binary)])]
/// ```
open class NSFetchIndexDescription: NSObject, @unchecked Sendable {
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
        super.init()
        for element in self.elements { element.indexDescription = self }
    }

    /// A new index with the same name, partial-index predicate and copies of the elements, in
    /// no entity (`NSCopying`). The elements' properties are the original's.
    ///
    /// ```swift
    /// let descending = index.copy() as! NSFetchIndexDescription
    /// descending.name = "byScoreDescending"
    /// ```
    /// Difference from Core Data: the copy of an instance of an application's own subclass is
    /// an `NSFetchIndexDescription`.
    open func copy(with zone: NSZone? = nil) -> Any { copy(pointingAt: DescriptionCopies()) }

    /// A copy whose elements name the copies of their properties, where `copies` has them.
    func copy(pointingAt copies: DescriptionCopies) -> NSFetchIndexDescription {
        let copy = NSFetchIndexDescription(name: name, elements: elements.map { element in
            let elementCopy = element.copy() as! NSFetchIndexElementDescription
            elementCopy.property = copies.property(element.property)
            return elementCopy
        })
        copy.partialIndexPredicate = partialIndexPredicate
        return copy
    }
}

extension NSFetchIndexDescription: NSCopying {}

/// One column of a fetch index.
open class NSFetchIndexElementDescription: NSObject, @unchecked Sendable {
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

    /// An element of no index, of the same property, collation and order (`NSCopying`).
    ///
    /// Difference from Core Data: the copy of an instance of an application's own subclass is
    /// an `NSFetchIndexElementDescription`.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSFetchIndexElementDescription(collationType: collationType)
        copy.property = property
        copy.propertyName = propertyName
        copy.isAscending = isAscending
        return copy
    }

    private init(collationType: CollationType) {
        self.collationType = collationType
    }
}

extension NSFetchIndexElementDescription: NSCopying {}
