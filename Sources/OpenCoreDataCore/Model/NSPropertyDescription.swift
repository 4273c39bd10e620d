import Foundation

/// What every property of an entity has: a name, optionality, transience, user info.
///
/// Subclasses: `NSAttributeDescription`, `NSRelationshipDescription`. Descriptions are built and
/// changed freely until their model is first used by a coordinator or an object; from then on
/// the model is frozen and treated as immutable, which is what makes sharing it across threads safe.
open class NSPropertyDescription: NSObject, @unchecked Sendable {
    // @unchecked Sendable: mutated only while the model is being built; a frozen model is never
    // mutated again (setters check `isEditable`).

    open override var description: String { "\(type(of: self))(\(entity?.name ?? "?").\(name))" }

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
    /// Whether Core Spotlight indexes the property's values (Xcode's "Index in Spotlight").
    ///
    /// Difference from Apple: Linux has no Core Spotlight, so the setting is kept — read from
    /// Xcode models and copied — and nothing is indexed; compiled model archives leave it out.
    public var isIndexedBySpotlight: Bool = false { didSet { checkEditable("isIndexedBySpotlight") } }
    /// Whether the property was kept in the external record files of Spotlight importers on
    /// macOS (Xcode's "Store in External Record File"). Deprecated by Apple.
    ///
    /// Difference from Apple: kept — read from Xcode models and copied — with no effect, as
    /// external records are macOS only; compiled model archives leave it out.
    @available(*, deprecated, message: "Spotlight external records are deprecated")
    public var isStoredInExternalRecord: Bool {
        get { storedInExternalRecord }
        set { storedInExternalRecord = newValue }
    }
    var storedInExternalRecord = false { didSet { checkEditable("isStoredInExternalRecord") } }

    /// Rules set with `setValidationPredicates(_:withValidationWarnings:)`: predicates a value
    /// must satisfy at save, each with the warning its failure reports.
    @exclusivity(unchecked) package private(set) var customValidationRules: [(predicate: NSPredicate, warning: Any)] = []

    /// The predicates a value of this property must satisfy when its object is validated.
    ///
    /// An attribute's `minValue`, `maxValue` and `regularExpression` come first, one predicate
    /// each (`length >= 3`, `SELF <= 100`, `SELF MATCHES "…"`), then
    /// the predicates set with `setValidationPredicates(_:withValidationWarnings:)`.
    ///
    /// Differences from Apple: Core Data keeps a model editor's minimum, maximum and pattern only
    /// as predicates; OpenCoreData keeps them as properties too, and lists them here as predicates.
    public var validationPredicates: [NSPredicate] { (ruleValidationRules + customValidationRules).map(\.predicate) }

    /// The warnings of `validationPredicates`, in the same order: what a failed predicate reports
    /// as the error's localized description. The warning of an attribute's minimum, maximum or
    /// pattern is the code its failure reports (1610–1680), as an `Int`.
    public var validationWarnings: [Any] { (ruleValidationRules + customValidationRules).map(\.warning) }

    /// Replaces the property's validation rules with `validationPredicates`, each failing with the
    /// warning at the same position.
    ///
    /// ```swift
    /// title.setValidationPredicates([NSPredicate(format: "length >= 3"), NSPredicate(format: "SELF CONTAINS %@", "title")],
    ///                               withValidationWarnings: ["Too short", "Must contain 'title'"])
    /// ```
    /// At save, a value that is nil is not checked (optionality is); any other value is the
    /// predicate's `SELF` — an attribute's value, a to-one's destination, a to-many's set. A
    /// failed predicate is an `NSManagedObjectValidationError` (1550) whose localized description
    /// is the warning, with the predicate under `NSValidationPredicateErrorKey`.
    ///
    /// Differences from Apple: Core Data raises when the counts differ; here a predicate without
    /// a warning reports a message naming it. An attribute's `minValue`, `maxValue` and
    /// `regularExpression` are cleared, since on Apple's platforms they are among the rules
    /// this call replaces.
    public func setValidationPredicates(_ validationPredicates: [NSPredicate]?, withValidationWarnings validationWarnings: [String]?) {
        checkEditable("validationPredicates")
        clearRuleValidation()
        let warnings = validationWarnings ?? []
        customValidationRules = (validationPredicates ?? []).enumerated().map { index, predicate in
            (predicate, index < warnings.count ? warnings[index] : "")
        }
    }

    /// Adds one custom rule whose warning may be any archived value (a model file's).
    package func addCustomValidationRule(_ predicate: NSPredicate, warning: Any) {
        checkEditable("validationPredicates")
        customValidationRules.append((predicate, warning))
    }

    /// The rules a subclass keeps as properties (an attribute's range and pattern), as
    /// predicates with their error codes.
    var ruleValidationRules: [(predicate: NSPredicate, warning: Any)] { [] }

    /// Forgets the rules a subclass keeps as properties.
    func clearRuleValidation() {}

    /// The entity this property is declared on (not inherited into).
    public internal(set) var entity: NSEntityDescription? {
        get { entityAnchor?.entity }
        set { entityAnchor = newValue?.anchor }
    }
    private weak var entityAnchor: EntityAnchor?

    public init(name: String = "") {
        self.name = name
    }

    // MARK: Coding

    /// Decodes a property that `encode(with:)` archived (`NSCoding`): a copy of it, as `copy()`
    /// makes one, in no entity; a relationship's destination and inverse are the entities and
    /// relationships archived with it, kept alive by it and by its copies. Nil when the coder
    /// holds no property of this kind (an unarchiver then reports that the class failed to
    /// decode).
    ///
    /// Difference from Core Data: the archive is OpenCoreData's (see `encode(with:)`), and the
    /// decoded property is in no entity.
    public required init?(coder: NSCoder) {
        name = ""
        super.init()
        guard becomeArchivedProperty(from: coder) else { return nil }
    }

    /// Archives the property (`NSCoding`) as the compiled archive of a model of copies of its
    /// entity — or of a stand-in entity holding a copy of it, when it is in none — and of every
    /// entity that one reaches, with the property's name, under keys of OpenCoreData's own.
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: title, requiringSecureCoding: false)
    /// ```
    /// Difference from Core Data: Apple's archive holds the property's own objects under
    /// Apple's keys. A property the archive cannot hold (see `DescriptionArchive`: a block
    /// predicate, user info that is not property-list objects, entities without a name or
    /// sharing one, a composite attribute that contains itself) encodes nothing, and decodes as
    /// nil.
    open func encode(with coder: NSCoder) { DescriptionArchive(property: self)?.encode(into: coder) }

    /// Makes this description a copy of the property `coder` holds; false (the coder marked
    /// failed) when it holds none of this description's kind.
    final func becomeArchivedProperty(from coder: NSCoder) -> Bool {
        do {
            let archive = try DescriptionArchive(coder: coder)
            let archived = try archive.property()
            guard ObjectIdentifier(type(of: archived)) == ObjectIdentifier(type(of: emptyCopy())) else {
                throw KeyedArchiveError(reason: "the archived property '\(archived.name)' is an \(type(of: archived)), not an \(type(of: emptyCopy()))")
            }
            archived.copySettings(to: self)
            archiveModel = archive.model
            return true
        } catch {
            DescriptionArchive.report(error, to: coder)
            return false
        }
    }

    /// The model a decoded property was read from, kept so that what it refers to (held
    /// weakly) lives as long as it does.
    private var archiveModel: NSManagedObjectModel?

    // MARK: Copying

    /// A new description with the same settings, in no entity (`NSCopying`): to edit it and add
    /// it to an entity of a model not yet in use. A relationship's copy has the original's
    /// destination and inverse, a fetched property's a copy of its request.
    ///
    /// ```swift
    /// let renamed = title.copy() as! NSAttributeDescription
    /// renamed.name = "heading"
    /// ```
    /// Difference from Core Data: the copy of an instance of an application's own subclass is
    /// an instance of the OpenCoreData class it derives from.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = emptyCopy()
        copySettings(to: copy)
        return copy
    }

    /// A new description of this kind, its settings not yet copied.
    func emptyCopy() -> NSPropertyDescription { NSPropertyDescription(name: name) }

    /// Copies what every property has; subclasses add theirs.
    func copySettings(to copy: NSPropertyDescription) {
        copy.name = name
        copy.archiveModel = archiveModel
        copy.isOptional = isOptional
        copy.isTransient = isTransient
        copy.isIndexed = isIndexed
        copy.userInfo = userInfo
        copy.versionHashModifier = versionHashModifier
        copy.renamingIdentifier = renamingIdentifier
        copy.isIndexedBySpotlight = isIndexedBySpotlight
        copy.storedInExternalRecord = storedInExternalRecord
        copy.customValidationRules = customValidationRules
    }

    /// Storage index in an object of the property's entity (and of its sub-entities).
    /// Set when the model is frozen; -1 before.
    @exclusivity(unchecked) var slot = -1

    /// The composite attribute this attribute is an element of (weak: the composite holds its
    /// elements); nil for every other property.
    weak var containingComposite: NSCompositeAttributeDescription?

    /// The model the property is part of: its entity's, or for a composite's element, the
    /// composite's.
    var owningModel: NSManagedObjectModel? {
        var property: NSPropertyDescription = self
        var seen: [ObjectIdentifier] = []
        // Up through the composites around it (a composite that contains itself, which
        // validation refuses, ends the walk).
        while property.entity == nil, let composite = property.containingComposite, !seen.contains(ObjectIdentifier(composite)) {
            seen.append(ObjectIdentifier(composite))
            property = composite
        }
        return property.entity?.managedObjectModel
    }

    func checkEditable(_ property: String) {
        if let model = owningModel, model.isFrozen {
            preconditionFailure("Can't change \(property) of property '\(name)': its model is in use and can no longer be edited")
        }
    }
}

extension NSPropertyDescription: NSCopying, NSCoding {}
