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
        let copy = NSFetchIndexDescription(name: name, elements: nil)
        copySettings(to: copy, pointingAt: copies)
        return copy
    }

    private func copySettings(to copy: NSFetchIndexDescription, pointingAt copies: DescriptionCopies) {
        copy.name = name
        copy.archiveModel = archiveModel
        copy.elements = elements.map { element in
            let elementCopy = element.copy() as! NSFetchIndexElementDescription
            elementCopy.property = copies.property(element.property)
            return elementCopy
        }
        copy.partialIndexPredicate = partialIndexPredicate
    }

    // MARK: Coding

    /// Decodes a fetch index that `encode(with:)` archived (`NSCoding`): a copy of it, as
    /// `copy()` makes one, whose elements name the properties archived with it. Nil when the
    /// coder holds no fetch index (an unarchiver then reports that the class failed to decode).
    ///
    /// Difference from Core Data: the archive is OpenCoreData's (see `encode(with:)`), and the
    /// decoded index is in no entity.
    public required init?(coder: NSCoder) {
        name = ""
        elements = []
        super.init()
        do {
            let archive = try DescriptionArchive(coder: coder)
            try archive.index().copySettings(to: self, pointingAt: DescriptionCopies())
            archiveModel = archive.model
        } catch {
            DescriptionArchive.report(error, to: coder)
            return nil
        }
    }

    /// Archives the index (`NSCoding`) as the compiled archive of a model of copies of its
    /// entity — or of a stand-in entity holding its elements' properties, when it is in none —
    /// and of the entities that one reaches, with the index's name, under keys of OpenCoreData's
    /// own.
    ///
    /// Difference from Core Data: Apple's archive holds the index's own objects under Apple's
    /// keys. An index the archive cannot hold encodes nothing, and decodes as nil.
    open func encode(with coder: NSCoder) { DescriptionArchive(index: self)?.encode(into: coder) }

    /// The model a decoded index was read from, kept so that its properties' entity lives as
    /// long as it does.
    private var archiveModel: NSManagedObjectModel?
}

extension NSFetchIndexDescription: NSCopying, NSCoding {}

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
        copySettings(to: copy)
        return copy
    }

    private func copySettings(to copy: NSFetchIndexElementDescription) {
        copy.property = property
        copy.propertyName = propertyName
        copy.collationType = collationType
        copy.isAscending = isAscending
        copy.archiveModel = archiveModel
    }

    private init(collationType: CollationType) {
        self.collationType = collationType
    }

    // MARK: Coding

    /// Decodes an index element that `encode(with:)` archived (`NSCoding`): a copy of it, as
    /// `copy()` makes one, of the property archived with it. Nil when the coder holds no index
    /// element (an unarchiver then reports that the class failed to decode).
    ///
    /// Difference from Core Data: the archive is OpenCoreData's (see `encode(with:)`), and the
    /// decoded element is in no index.
    public required init?(coder: NSCoder) {
        collationType = .binary
        super.init()
        do {
            let archive = try DescriptionArchive(coder: coder)
            try archive.element().copySettings(to: self)
            archiveModel = archive.model
        } catch {
            DescriptionArchive.report(error, to: coder)
            return nil
        }
    }

    /// Archives the element (`NSCoding`) as its index is archived (see
    /// `NSFetchIndexDescription.encode(with:)`), with its position in the index.
    ///
    /// Difference from Core Data: Apple's archive holds the element's own objects under
    /// Apple's keys. An element the archive cannot hold encodes nothing, and decodes as nil.
    open func encode(with coder: NSCoder) { DescriptionArchive(element: self)?.encode(into: coder) }

    /// The model a decoded element was read from, kept so that its property's entity lives as
    /// long as it does.
    private var archiveModel: NSManagedObjectModel?
}

extension NSFetchIndexElementDescription: NSCopying, NSCoding {}
