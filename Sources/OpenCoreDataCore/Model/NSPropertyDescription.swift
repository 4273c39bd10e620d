/// What every property of an entity has: a name, optionality, transience, user info.
///
/// Subclasses: `NSAttributeDescription`, `NSRelationshipDescription`. Descriptions are built and
/// changed freely until their model is first used by a coordinator or an object; from then on
/// the model is frozen and treated as immutable, which is what makes sharing it across threads safe.
open class NSPropertyDescription: @unchecked Sendable {
    // @unchecked Sendable: mutated only while the model is being built; a frozen model is never
    // mutated again (setters check `isEditable`).

    /// The property's name, unique within its entity (inherited properties included).
    public var name: String { didSet { checkEditable("name") } }
    // `@exclusivity(unchecked)` on the properties read for every object on hot paths: a model
    // is only edited before it is used (then frozen), so reads never overlap a write, and the
    // dynamic check cost more than the read.
    /// Whether nil (or, for to-many relationships, an empty set) is allowed at save.
    @exclusivity(unchecked) public var isOptional: Bool = true { didSet { checkEditable("isOptional") } }
    /// Transient properties live in memory only and are never saved.
    @exclusivity(unchecked) public var isTransient: Bool = false { didSet { checkEditable("isTransient") } }
    /// Whether stores should index this property (`CREATE INDEX` in the SQLite store).
    public var isIndexed: Bool = false { didSet { checkEditable("isIndexed") } }
    /// Free-form information for the application.
    public var userInfo: [AnyHashable: Any]? = nil { didSet { checkEditable("userInfo") } }
    /// A string that changes the version hash without changing the schema.
    public var versionHashModifier: String? = nil { didSet { checkEditable("versionHashModifier") } }
    /// The name this property had in an earlier model version (for migration).
    public var renamingIdentifier: String? = nil { didSet { checkEditable("renamingIdentifier") } }

    /// The entity this property is declared on (not inherited into).
    public internal(set) var entity: NSEntityDescription? {
        get { entityAnchor?.entity }
        set { entityAnchor = newValue?.anchor }
    }
    private weak var entityAnchor: EntityAnchor?

    public init(name: String = "") {
        self.name = name
    }

    /// Storage index in an object of the property's entity (and of its sub-entities).
    /// Set when the model is frozen; -1 before.
    @exclusivity(unchecked) var slot = -1

    func checkEditable(_ property: String) {
        if let model = entity?.managedObjectModel, model.isFrozen {
            preconditionFailure("Can't change \(property) of property '\(name)': its model is in use and can no longer be edited")
        }
    }
}

extension NSPropertyDescription: CustomStringConvertible {
    public var description: String { "\(type(of: self))(\(entity?.name ?? "?").\(name))" }
}

extension NSPropertyDescription: Hashable {
    public static func == (lhs: NSPropertyDescription, rhs: NSPropertyDescription) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
