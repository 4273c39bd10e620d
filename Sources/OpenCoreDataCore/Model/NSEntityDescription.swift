import Foundation
import Synchronization

/// An entity: a kind of object, with its properties, its place in an inheritance tree, and the
/// class that represents its objects.
///
/// ```swift
/// let entry = NSEntityDescription(name: "Entry")
/// entry.properties = [
///     NSAttributeDescription(name: "age", type: .integer64AttributeType),
///     NSAttributeDescription(name: "time", type: .dateAttributeType),
/// ]
/// ```
open class NSEntityDescription: NSObject, @unchecked Sendable {
    // @unchecked Sendable: mutated only while the model is being built; frozen afterwards.

    /// The entity's name, unique within its model.
    public var name: String? { didSet { checkEditable("name") } }
    /// Abstract entities have no instances of their own, only of their sub-entities.
    public var isAbstract = false { didSet { checkEditable("isAbstract") } }
    /// The name of the `NSManagedObject` subclass for this entity's objects.
    ///
    /// Implicitly unwrapped, as Apple's (`null_resettable`): assigning nil resets it to
    /// `"NSManagedObject"`.
    public var managedObjectClassName: String! {
        get { className }
        set {
            checkEditable("managedObjectClassName")
            className = newValue ?? "NSManagedObject"
        }
    }
    private var className = "NSManagedObject"
    /// Free-form information for the application.
    public var userInfo: [AnyHashable: Any]? { didSet { checkEditable("userInfo") } }
    /// A string that changes the version hash without changing the schema.
    public var versionHashModifier: String? { didSet { checkEditable("versionHashModifier") } }
    /// Xcode's code generation setting (`codeGenerationType`: `class`, `category`, or nil for
    /// manual), for generating classes. Changes nothing at run time.
    package var codeGenerationType: String?
    /// The name this entity had in an earlier model version (for migration).
    public var renamingIdentifier: String? { didSet { checkEditable("renamingIdentifier") } }
    /// Groups of property names whose values must be unique together, as `[["email"], ["first", "last"]]`.
    /// Elements may be names or property descriptions, as in Core Data.
    public var uniquenessConstraints: [[Any]] = [] { didSet { checkEditable("uniquenessConstraints") } }
    /// Old-style compound indexes: each an array of property names or descriptions. Deprecated
    /// in Core Data in favour of `indexes`; kept because older Xcode models declare them.
    /// Difference from Core Data: the SQLite store does not create indexes for them yet.
    public var compoundIndexes: [[Any]] = [] { didSet { checkEditable("compoundIndexes") } }
    /// Fetch indexes (compound indexes) the store creates for this entity.
    public var indexes: [NSFetchIndexDescription] = [] {
        didSet {
            checkEditable("indexes")
            for index in oldValue where index.entityAnchor === anchor { index.entityAnchor = nil }
            for index in indexes { index.entityAnchor = anchor }
        }
    }

    /// The model the entity belongs to.
    public internal(set) weak var managedObjectModel: NSManagedObjectModel?
    /// The entity this one inherits from.
    public internal(set) var superentity: NSEntityDescription? {
        get { superentityAnchor?.entity }
        set { superentityAnchor = newValue?.anchor }
    }
    private weak var superentityAnchor: EntityAnchor?

    /// What other descriptions refer to this entity through, weakly. Weak references to the
    /// entity itself would give it a side table, which makes every retain and release of it —
    /// one per object and per object ID — take the slow path.
    private(set) lazy var anchor = EntityAnchor(self)

    /// Where `@Managed` properties find their slots.
    let managedPropertyCache = ManagedPropertyCache()
    private var ownProperties: [NSPropertyDescription] = []
    private var ownSubentities: [NSEntityDescription] = []
    private var registeredClass: NSManagedObject.Type?

    public init(name: String? = nil) {
        self.name = name
    }

    public override convenience init() { self.init(name: nil) }

    // MARK: Coding

    /// Decodes an entity that `encode(with:)` archived (`NSCoding`): a copy of it, as `copy()`
    /// makes one — its settings and properties, in no model and no inheritance tree, its
    /// relationships leading to the entities archived with it, which it and its copies keep
    /// alive. Nil when the coder holds no entity: an unarchiver then reports that the class
    /// failed to decode — when its `decodingFailurePolicy` is `.setErrorAndReturn`, as Foundation
    /// on Linux raises by default.
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: entity, requiringSecureCoding: false)
    /// let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
    /// unarchiver.requiresSecureCoding = false
    /// unarchiver.decodingFailurePolicy = .setErrorAndReturn
    /// let decoded = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSEntityDescription
    /// ```
    /// Difference from Core Data: the archive is OpenCoreData's (see `encode(with:)`), and the
    /// decoded entity is a copy in no model, where Apple's belongs to a decoded model.
    public required init?(coder: NSCoder) {
        super.init()
        do {
            let archive = try DescriptionArchive(coder: coder)
            let archived = try archive.entity()
            var copies = DescriptionCopies()
            archived.copySettings(to: self, recordingIn: &copies)
            pointAtCopies(of: archived, in: copies)
            archiveModel = archive.model
        } catch {
            DescriptionArchive.report(error, to: coder)
            return nil
        }
    }

    /// Archives the entity (`NSCoding`) as the compiled archive of a model of copies of it and
    /// of every entity it reaches (superentities, sub-entities, relationship destinations),
    /// under keys of OpenCoreData's own.
    ///
    /// Difference from Core Data: Apple's archive holds the entity's own objects under Apple's
    /// keys. An entity the archive cannot hold (a fetched property with a block predicate, user
    /// info that is not property-list objects, entities it reaches without a name or sharing
    /// one, a composite attribute that contains itself) encodes nothing, and decodes as nil.
    /// The decoded entity lists its properties in the archive's order, by name.
    open func encode(with coder: NSCoder) { DescriptionArchive(entity: self)?.encode(into: coder) }

    /// The model a decoded entity was read from, kept so that its relationships' destinations
    /// (held weakly) live as long as it does.
    private var archiveModel: NSManagedObjectModel?

    public override var description: String { "NSEntityDescription(\(name ?? "unnamed"))" }

    /// The properties declared on this entity (not the inherited ones).
    public var properties: [NSPropertyDescription] {
        get { ownProperties }
        set {
            checkEditable("properties")
            for property in ownProperties where property.entity === self && !newValue.contains(where: { $0 === property }) {
                property.entity = nil
            }
            ownProperties = newValue
            for property in newValue { property.entity = self }
        }
    }

    /// The entities that inherit from this one.
    public var subentities: [NSEntityDescription] {
        get { ownSubentities }
        set {
            checkEditable("subentities")
            for old in ownSubentities where old.superentity === self { old.superentity = nil }
            ownSubentities = newValue
            for entity in newValue { entity.superentity = self }
        }
    }

    /// The entities that inherit from this one, by name.
    ///
    /// ```swift
    /// let car = vehicle.subentitiesByName["Car"]
    /// ```
    public var subentitiesByName: [String: NSEntityDescription] {
        Dictionary(ownSubentities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The class whose instances represent this entity's objects; setting it also sets
    /// `managedObjectClassName`.
    ///
    /// A class name as Xcode writes it (`Item`, `.Item`) is found once code has named the class
    /// or another class of its module (`Item(context:)`, `NSFetchRequest<Item>`, …); until then
    /// the entity's objects are of its superentity's class or `NSManagedObject`. See
    /// `NSManagedObjectModel.registerManagedObjectClasses(_:)` and Docs/Differences.md.
    public var managedObjectClass: NSManagedObject.Type {
        get {
            if let registeredClass { return registeredClass }
            if let layout = frozenLayout { return layout.objectClass }
            return ManagedObjectClassFinder.managedObjectClass(named: managedObjectClassName)
                .flatMap { ManagedValueFit.classFits($0, properties: propertiesByName) ? $0 : nil }
                ?? superentity?.managedObjectClass ?? NSManagedObject.self
        }
        set {
            registeredClass = newValue
            managedObjectClassName = String(reflecting: newValue)
            ManagedClassRegistry.register(newValue, for: self)
            ManagedObjectClassFinder.announce(newValue)
        }
    }

    // MARK: Properties including inherited ones

    /// Every property, inherited ones included, by name.
    public var propertiesByName: [String: NSPropertyDescription] {
        if let layout = frozenLayout { return layout.propertiesByName }
        return Dictionary(allProperties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every attribute, inherited ones included, by name.
    public var attributesByName: [String: NSAttributeDescription] {
        propertiesByName.compactMapValues { $0 as? NSAttributeDescription }
    }

    /// Every relationship, inherited ones included, by name.
    public var relationshipsByName: [String: NSRelationshipDescription] {
        propertiesByName.compactMapValues { $0 as? NSRelationshipDescription }
    }

    /// The relationships (inherited ones included) whose destination is `entity`.
    public func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        allRelationships.filter { $0.destinationEntity === entity }
    }

    /// Whether this entity is `entity` or inherits from it.
    public func isKindOf(entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.superentity
        }
        return false
    }

    /// Properties in storage order: inherited ones first, then this entity's own.
    var allProperties: [NSPropertyDescription] {
        if let layout = frozenLayout { return layout.properties }
        return (superentity?.allProperties ?? []) + ownProperties
    }

    var allAttributes: [NSAttributeDescription] {
        if let layout = frozenLayout { return layout.attributes }
        return allProperties.compactMap { $0 as? NSAttributeDescription }
    }

    var allRelationships: [NSRelationshipDescription] {
        if let layout = frozenLayout { return layout.relationships }
        return allProperties.compactMap { $0 as? NSRelationshipDescription }
    }

    /// The top of this entity's inheritance tree.
    @usableFromInline package var rootEntity: NSEntityDescription {
        if let frozenLayout { return frozenLayout.rootEntity }
        var entity = self
        while let parent = entity.superentity { entity = parent }
        return entity
    }

    /// This entity followed by all its sub-entities, depth first.
    package var selfAndDescendants: [NSEntityDescription] {
        [self] + ownSubentities.flatMap(\.selfAndDescendants)
    }

    // MARK: Freezing

    /// Storage layout, computed once when the model is frozen.
    private(set) var frozenLayout: EntityLayout?

    func freezeLayout() {
        guard frozenLayout == nil else { return }
        superentity?.freezeLayout()
        let properties = (superentity?.allProperties ?? []) + ownProperties
        let attributes = properties.compactMap { $0 as? NSAttributeDescription }
        let relationships = properties.compactMap { $0 as? NSRelationshipDescription }
        for (index, attribute) in attributes.enumerated() where attribute.entity === self {
            attribute.attributeSlot = index
            attribute.slot = index
            attribute.defaultPrimitive = (try? PrimitiveValue(attribute.defaultValue, for: attribute)) ?? .null
        }
        for (index, relationship) in relationships.enumerated() where relationship.entity === self {
            relationship.relationshipSlot = index
            relationship.slot = index
        }
        frozenLayout = EntityLayout(
            properties: properties,
            attributes: attributes,
            relationships: relationships,
            propertiesByName: Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }),
            defaultValues: attributes.map(\.defaultPrimitive),
            hasTransientAttributes: attributes.contains(where: \.isTransient),
            // A class named only by name is looked for when the first object is made, not here:
            // a model loaded only to be compared (a migration's source versions) never pays for
            // the runtime's search by name.
            objectClass: registeredClass,
            objectClassName: managedObjectClassName,
            superentityLayout: superentity?.frozenLayout,
            uniquenessConstraintNames: uniquenessConstraints.map { $0.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" } },
            rootEntity: superentity?.rootEntity ?? self
        )
    }

    // MARK: Copying

    /// A new entity with the same settings and copies of its own properties and fetch indexes,
    /// in no model and no inheritance tree (`NSCopying`): to edit and add to a model not yet
    /// in use. Relationships to other entities keep the original's destinations and inverses;
    /// those to the entity itself lead to the copy, and their inverses to the copied ones.
    ///
    /// ```swift
    /// let archived = item.copy() as! NSEntityDescription
    /// archived.name = "ArchivedItem"
    /// ```
    /// Copying the whole model (`NSManagedObjectModel.copy()`) is how a model in use is
    /// changed: there every reference leads to the copies.
    ///
    /// Difference from Core Data: the copy of an instance of an application's own subclass is
    /// an `NSEntityDescription`.
    open func copy(with zone: NSZone? = nil) -> Any {
        var copies = DescriptionCopies()
        let copy = copiedAlone(into: &copies)
        copy.pointAtCopies(of: self, in: copies)
        return copy
    }

    /// A copy of this entity's settings and own properties, recorded in `copies`; what refers
    /// to other descriptions is set by `pointAtCopies(of:in:)` once they are all copied.
    func copiedAlone(into copies: inout DescriptionCopies) -> NSEntityDescription {
        let copy = NSEntityDescription(name: name)
        copySettings(to: copy, recordingIn: &copies)
        return copy
    }

    /// Gives `copy` this entity's settings and copies of its own properties, recorded in `copies`.
    func copySettings(to copy: NSEntityDescription, recordingIn copies: inout DescriptionCopies) {
        copy.name = name
        copy.archiveModel = archiveModel
        copy.isAbstract = isAbstract
        copy.managedObjectClassName = managedObjectClassName
        copy.registeredClass = registeredClass
        copy.userInfo = userInfo
        copy.versionHashModifier = versionHashModifier
        copy.codeGenerationType = codeGenerationType
        copy.renamingIdentifier = renamingIdentifier
        copy.properties = ownProperties.map { property in
            let propertyCopy = property.copy() as! NSPropertyDescription
            copies.record(propertyCopy, of: property)
            return propertyCopy
        }
        copies.record(copy, of: self)
    }

    /// Points this copy of `original` at the copies of the descriptions `original` refers to.
    func pointAtCopies(of original: NSEntityDescription, in copies: DescriptionCopies) {
        uniquenessConstraints = original.uniquenessConstraints.map { $0.map(copies.element) }
        compoundIndexes = original.compoundIndexes.map { $0.map(copies.element) }
        indexes = original.indexes.map { $0.copy(pointingAt: copies) }
        for (property, copy) in zip(original.ownProperties, ownProperties) {
            if let relationship = property as? NSRelationshipDescription, let copy = copy as? NSRelationshipDescription {
                copy.destinationEntity = copies.entity(relationship.destinationEntity)
                copy.inverseRelationship = copies.relationship(relationship.inverseRelationship)
            } else if let fetched = property as? NSFetchedPropertyDescription, let copy = copy as? NSFetchedPropertyDescription {
                copy.fetchRequest = copies.request(fetched.fetchRequest)
            }
        }
    }

    func checkEditable(_ property: String) {
        if let model = managedObjectModel, model.isFrozen {
            preconditionFailure("Can't change \(property) of entity '\(name ?? "?")': its model is in use and can no longer be edited")
        }
    }
}

extension NSEntityDescription: NSCopying, NSCoding {}

/// Where an entity's values live in its objects: attributes and relationships each in an
/// array indexed by slot, inherited properties first so a slot means the same property in
/// every entity of an inheritance tree. A class, so that reading it on hot paths copies nothing.
package final class EntityLayout: @unchecked Sendable {
    // @unchecked Sendable: immutable but for the class found late, which is published atomically.
    let properties: [NSPropertyDescription]
    package let attributes: [NSAttributeDescription]
    package let relationships: [NSRelationshipDescription]
    package let propertiesByName: [String: NSPropertyDescription]
    /// The values a newly inserted object starts with.
    let defaultValues: [PrimitiveValue]
    let hasTransientAttributes: Bool
    /// The class registered for this entity's objects when the model was frozen (or inherited).
    let fixedObjectClass: NSManagedObject.Type?
    /// Whether the entity names a class of its own (not `NSManagedObject`, not inherited).
    let namesOwnClass: Bool
    /// The class found later, once code named it (see `ManagedObjectClassFinder`).
    private let lateObjectClass = AtomicLazyReference<ObjectClassBox>()
    /// The finder's generation when the class was last looked for.
    private let searchedGeneration = Atomic<Int>(-1)
    private let objectClassName: String
    private unowned(unsafe) let superentityLayout: EntityLayout?
    package let uniquenessConstraintNames: [[String]]
    /// The attributes and relationships validation must look at: required ones, and ones with
    /// range, pattern or count rules.
    let attributesToValidate: [NSAttributeDescription]
    /// The same, as plain values read on every save without touching the descriptions.
    let attributeChecks: [(slot: Int, isOptional: Bool, hasValueRules: Bool)]
    /// Slots of the persistent (non-transient) attributes, and of the persistent to-ones.
    let persistentAttributeSlots: [Int]
    let persistentToOneSlots: [Int]
    /// The top of the entity's inheritance tree (unowned: the model keeps its entities alive), so
    /// that finding it costs no walk through weak superentity references.
    package unowned(unsafe) let rootEntity: NSEntityDescription
    let relationshipsToValidate: [NSRelationshipDescription]
    /// The last class asked about in `overridesValidateValue(_:)` (its metadata's address),
    /// with the answer in the low bit (metadata is word-aligned): nearly every object of an
    /// entity is of one class, and asking the runtime costs more than the rest of validating.
    private let lastValidateValueAnswer = Atomic<UInt>(0)
    /// The inverse of each relationship, by slot: read on every change of a relationship, where
    /// `inverseRelationship` would load a weak reference.
    let inverses: [NSRelationshipDescription?]

    init(properties: [NSPropertyDescription], attributes: [NSAttributeDescription], relationships: [NSRelationshipDescription],
         propertiesByName: [String: NSPropertyDescription], defaultValues: [PrimitiveValue], hasTransientAttributes: Bool,
         objectClass: NSManagedObject.Type?, objectClassName: String, superentityLayout: EntityLayout?,
         uniquenessConstraintNames: [[String]], rootEntity: NSEntityDescription) {
        self.rootEntity = rootEntity
        self.properties = properties
        self.attributes = attributes
        self.relationships = relationships
        self.propertiesByName = propertiesByName
        self.defaultValues = defaultValues
        self.hasTransientAttributes = hasTransientAttributes
        // An entity that names no class of its own takes its superentity's: for good once that
        // one is known.
        let namesNoClass = objectClassName.isEmpty || objectClassName == "NSManagedObject"
        let inherited = superentityLayout.map(\.fixedObjectClass) ?? NSManagedObject.self
        self.fixedObjectClass = objectClass ?? (namesNoClass ? inherited : nil)
        self.namesOwnClass = objectClass != nil || !namesNoClass
        self.objectClassName = objectClassName
        self.superentityLayout = superentityLayout
        self.uniquenessConstraintNames = uniquenessConstraintNames
        self.attributesToValidate = attributes.filter { !$0.isOptional || $0.hasValueRules }
        self.attributeChecks = attributesToValidate.map { ($0.attributeSlot, $0.isOptional, $0.hasValueRules) }
        self.persistentAttributeSlots = attributes.filter { !$0.isTransient }.map(\.attributeSlot)
        self.persistentToOneSlots = relationships.filter { !$0.isToMany && !$0.isTransient }.map(\.relationshipSlot)
        self.relationshipsToValidate = relationships.filter {
            !$0.isOptional || $0.minCount > 0 || $0.maxCount > 1 || !$0.customValidationRules.isEmpty
        }
        self.inverses = relationships.map(\.inverseRelationship)
    }

    /// Whether objects of `objectClass` (one of this entity's) override `validateValue(_:forKey:)`.
    /// Inlined: it runs for every saved object, and is a load and a compare when the class is
    /// the last one asked about.
    @inline(__always)
    func overridesValidateValue(_ objectClass: NSManagedObject.Type) -> Bool {
        let address = UInt(bitPattern: unsafeBitCast(objectClass, to: UnsafeRawPointer.self))
        let last = lastValidateValueAnswer.load(ordering: .relaxed)
        if last & ~1 == address { return last & 1 == 1 }
        return askRuntimeWhetherValidateValueIsOverridden(by: objectClass, address: address)
    }

    private func askRuntimeWhetherValidateValueIsOverridden(by objectClass: NSManagedObject.Type, address: UInt) -> Bool {
        let overrides = ValidateValueOverride.isOverridden(by: objectClass)
        lastValidateValueAnswer.store(address | (overrides ? 1 : 0), ordering: .relaxed)
        return overrides
    }

    /// The class instantiated for this entity's objects.
    var objectClass: NSManagedObject.Type {
        if let fixedObjectClass { return fixedObjectClass }
        if let late = lateObjectClass.load() { return late.type }
        return searchObjectClass()
    }

    /// Makes `type` this entity's class unless it has one already; whether its class is `type`.
    func bind(to type: NSManagedObject.Type) -> Bool {
        if let fixedObjectClass { return fixedObjectClass == type }
        return lateObjectClass.storeIfNil(ObjectClassBox(type)).type == type
    }

    /// Looks for the class again when classes were announced since the last look; until it is
    /// found, objects are of the superentity's class.
    private func searchObjectClass() -> NSManagedObject.Type {
        let generation = ManagedObjectClassFinder.generation
        if searchedGeneration.load(ordering: .acquiring) != generation {
            if let found = ManagedObjectClassFinder.managedObjectClass(named: objectClassName),
               ManagedValueFit.classFits(found, properties: propertiesByName) {
                return lateObjectClass.storeIfNil(ObjectClassBox(found)).type
            }
            searchedGeneration.store(generation, ordering: .releasing)
        }
        return superentityLayout?.objectClass ?? NSManagedObject.self
    }
}

/// Stands for an entity in weak references (see `NSEntityDescription.anchor`). Owned only by its
/// entity, so it lives exactly as long as the entity: while it can be reached, so can the entity.
final class EntityAnchor: @unchecked Sendable {
    // @unchecked Sendable: immutable.
    unowned(unsafe) let entity: NSEntityDescription
    init(_ entity: NSEntityDescription) { self.entity = entity }
}

/// A class as an object, so that it can be published once with an atomic reference.
private final class ObjectClassBox: Sendable {
    let type: NSManagedObject.Type
    init(_ type: NSManagedObject.Type) { self.type = type }
}
