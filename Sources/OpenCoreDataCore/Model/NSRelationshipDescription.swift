import Foundation

/// What happens to the destination objects when the source object is deleted.
///
/// Raw values as Core Data's `NSDeleteRule`.
public enum NSDeleteRule: UInt, Sendable {
    /// Do nothing; references to the deleted object are left dangling.
    case noActionDeleteRule = 0
    /// Remove the deleted object from the inverse relationship of each destination.
    case nullifyDeleteRule = 1
    /// Delete the destination objects too.
    case cascadeDeleteRule = 2
    /// Refuse the deletion (at save, with `NSValidationRelationshipDeniedDeleteError`) while
    /// the relationship has a destination.
    case denyDeleteRule = 3
}

/// A relationship from one entity to another: to-one or to-many, ordered or not, with an inverse.
///
/// ```swift
/// let pets = NSRelationshipDescription(name: "pets", destination: pet, toMany: true)
/// let owner = NSRelationshipDescription(name: "owner", destination: person)
/// pets.inverseRelationship = owner
/// owner.inverseRelationship = pets
/// pets.deleteRule = .cascadeDeleteRule
/// ```
open class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
    /// The entity at the other end.
    public var destinationEntity: NSEntityDescription? {
        get { destinationAnchor?.entity }
        set {
            destinationAnchor = newValue?.anchor
            checkEditable("destinationEntity")
        }
    }
    private weak var destinationAnchor: EntityAnchor?
    /// The relationship on the destination entity that points back here.
    public var inverseRelationship: NSRelationshipDescription? {
        get { inverseAnchor?.relationship }
        set {
            inverseAnchor = newValue?.anchor
            checkEditable("inverseRelationship")
        }
    }
    private weak var inverseAnchor: RelationshipAnchor?
    /// What other relationships refer to this one through, weakly (see `EntityAnchor`).
    private(set) lazy var anchor = RelationshipAnchor(self)
    // `@exclusivity(unchecked)` on the properties read for every object on hot paths: a model
    // is only edited before it is used (then frozen), so reads never overlap a write, and the
    // dynamic check cost more than the read.
    /// Minimum number of destination objects (to-many); 0 means no minimum.
    @exclusivity(unchecked) public var minCount: Int = 0 { didSet { checkEditable("minCount") } }
    /// Maximum number of destination objects; 1 makes a to-one relationship, 0 means no maximum.
    @exclusivity(unchecked) public var maxCount: Int = 1 { didSet { checkEditable("maxCount") } }
    /// What deleting the source does to the destination.
    @exclusivity(unchecked) public var deleteRule: NSDeleteRule = .nullifyDeleteRule { didSet { checkEditable("deleteRule") } }
    /// Whether a to-many relationship keeps its order (an `NSOrderedSet`).
    @exclusivity(unchecked) public var isOrdered: Bool = false { didSet { checkEditable("isOrdered") } }

    /// A relationship to `destination`; to-one unless `toMany` is true.
    public init(name: String, destination: NSEntityDescription? = nil, toMany: Bool = false, optional: Bool = true,
                deleteRule: NSDeleteRule = .nullifyDeleteRule, ordered: Bool = false) {
        super.init(name: name)
        self.destinationEntity = destination
        self.maxCount = toMany ? 0 : 1
        self.isOptional = optional
        self.deleteRule = deleteRule
        self.isOrdered = ordered
    }

    /// As Core Data: a new relationship description is to-many (`maxCount` 0) until `maxCount` is set to 1.
    public convenience init() { self.init(name: "", toMany: true) }

    /// Decodes a relationship that `encode(with:)` archived (`NSCoding`): its destination and
    /// inverse are the entity and relationship archived with it; see
    /// `NSPropertyDescription.init(coder:)`.
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
    }

    override func emptyCopy() -> NSPropertyDescription { NSRelationshipDescription(name: name) }

    override func copySettings(to copy: NSPropertyDescription) {
        super.copySettings(to: copy)
        guard let copy = copy as? NSRelationshipDescription else { return }
        copy.destinationEntity = destinationEntity
        copy.inverseRelationship = inverseRelationship
        copy.minCount = minCount
        copy.maxCount = maxCount
        copy.deleteRule = deleteRule
        copy.isOrdered = isOrdered
    }

    /// True unless `maxCount` is 1.
    public var isToMany: Bool { maxCount != 1 }

    /// Storage index among the relationships of an object of the source entity. Set at freeze.
    @exclusivity(unchecked) package var relationshipSlot = -1
}

/// Stands for a relationship in weak references, so that the relationship itself has no side
/// table (see `EntityAnchor`).
final class RelationshipAnchor: @unchecked Sendable {
    // @unchecked Sendable: immutable.
    unowned(unsafe) let relationship: NSRelationshipDescription
    init(_ relationship: NSRelationshipDescription) { self.relationship = relationship }
}
