import Foundation

/// A managed object model: the entities an application stores, and their configurations.
///
/// ```swift
/// let model = NSManagedObjectModel()
/// model.entities = [entry, tag]
/// try model.validate()          // unknown destinations, broken inverses, duplicate names
/// ```
/// A model can be edited until it is first used by a coordinator; from then on it is frozen.
open class NSManagedObjectModel: NSObject, @unchecked Sendable {
    // @unchecked Sendable: mutated only while being built; `freeze()` ends that, under a lock.

    private var ownEntities: [NSEntityDescription] = []
    private var configurationEntities: [String: [NSEntityDescription]] = [:]
    private let freezeLock = NSLock()
    private var frozenEntitiesByName: [String: NSEntityDescription]?
    /// Entities by the class registered for them (only classes registered for one entity).
    private(set) var frozenEntitiesByClass: [ObjectIdentifier: NSEntityDescription]?
    /// Entities whose class was found after the model was frozen, by that class.
    private let lateEntitiesByClass = LockedState<[ObjectIdentifier: NSEntityDescription]>([:])
    /// Entity version hashes, computed once the model is frozen (see `NSEntityDescription.versionHash`).
    let versionHashCache = ComputedOnce<ObjectIdentifier, Data>()
    /// The version metadata stores of this model write, computed once it is frozen (see
    /// `versionMetadata(for:)`), per set of entities: in any order, the metadata does not
    /// depend on it.
    let versionMetadataCache = ComputedOnce<Set<ObjectIdentifier>, [String: Any]>()

    /// Identifiers of this model version (`NSStoreModelVersionIdentifiers` in store metadata).
    public var versionIdentifiers: Set<AnyHashable> = [] { didSet { checkEditable() } }

    /// The localized names of the model's entities and properties, and of its error strings
    /// (validation warnings), which validation errors use: keys `Entity/<name>`,
    /// `Property/<name>/Entity/<entity>`, `Property/<name>` and `ErrorString/<string>`.
    /// Unless set, it is read the first time it is asked for from the model's strings file,
    /// `<ModelName>Model.strings` beside the model file or in an `.lproj` folder there (the
    /// preferred languages first, then `Base` and `en`); nil when there is none.
    ///
    /// ```swift
    /// model.localizationDictionary = ["Entity/Club": "Verein", "Property/name/Entity/Club": "Vereinsname"]
    /// ```
    ///
    /// Differences from Core Data: the `.lproj` folders are looked for beside the model file
    /// (Linux has no application bundle resources), and the languages are
    /// `Locale.preferredLanguages`.
    public var localizationDictionary: [String: String]? {
        get {
            localization.withLock { state in
                if case .known(let dictionary) = state { return dictionary }
                let dictionary = ModelLocalization.dictionary(forModelAt: fileURL)
                state = .known(dictionary)
                return dictionary
            }
        }
        set {
            checkEditable()
            localization.withLock { $0 = .known(newValue) }
        }
    }
    private let localization = LockedState<ModelLocalization.State>(.unread)

    /// For a model read from a store file: each entity's `Z_ENT` there, which the SQLite store
    /// uses instead of numbering the entities itself.
    package var storedEntityNumbers: [String: Int64]?
    /// Set on a model guessed from a store's tables (`StoreSchemaInference`): good for reading only.
    package var isInferredFromStore = false
    /// The model file this model was loaded from (`.xcdatamodeld`, `.xcdatamodel`, `.momd` or
    /// `.mom`): a migration looks among its other versions for the model a store was written with.
    package var fileURL: URL?
    /// For a model loaded from a `.xcdatamodeld` bundle: the bundle's versions (oldest first)
    /// and the one loaded, as they were when it was loaded, so that a migration need not list
    /// and read the bundle again (`ModelVersionCandidates`).
    package var bundleVersions: (files: [URL], loaded: URL)?

    /// Named fetch requests (see NSManagedObjectModel+FetchRequestTemplates.swift).
    var fetchRequestTemplates: [String: NSFetchRequest<NSFetchRequestResult>] = [:]

    public override init() {}

    /// Decodes a model archived with `encode(with:)` (`NSKeyedUnarchiver`, `NSSecureCoding`):
    /// the model's compiled archive, as a `.mom` holds it, under one key. Nil when the coder
    /// holds none, or one that does not decode (the coder's `error` says why, when its
    /// `decodingFailurePolicy` is `.setErrorAndReturn`).
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: model, requiringSecureCoding: true)
    /// let copy = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data)
    /// ```
    ///
    /// Difference from Core Data: Apple's archive of a model is the model's keyed archive itself
    /// (what a `.mom` file holds); here it is that archive, as data, inside the coder's own.
    /// Load `.mom` files with `init(contentsOf:)`.
    public required convenience init?(coder: NSCoder) {
        guard let archive = coder.decodeObject(of: NSData.self, forKey: Self.archiveKey) else { return nil }
        self.init()
        do {
            try CompiledModel.decode(archive: Data(archive), source: URL(fileURLWithPath: "NSCoder"), into: self)
        } catch {
            // Told to the coder when it collects errors; one that raises would end the process
            // (Foundation on Linux has no exceptions to catch).
            if coder.decodingFailurePolicy == .setErrorAndReturn { coder.failWithError(error) }
            return nil
        }
    }

    /// The coder key of the model's compiled archive (`init?(coder:)`, `encode(with:)`).
    static let archiveKey = "OCDManagedObjectModelArchive"

    /// Every entity of the model, sub-entities included.
    public var entities: [NSEntityDescription] {
        get { ownEntities }
        set {
            checkEditable()
            ownEntities = newValue
            for entity in newValue { entity.managedObjectModel = self }
        }
    }

    /// The entities by name.
    public var entitiesByName: [String: NSEntityDescription] {
        if let frozenEntitiesByName { return frozenEntitiesByName }
        return Dictionary(ownEntities.compactMap { entity in entity.name.map { ($0, entity) } },
                          uniquingKeysWith: { first, _ in first })
    }

    /// The names of the model's configurations (without the default one).
    public var configurations: [String] { configurationEntities.keys.sorted() }

    /// The entities of a configuration; `nil` names the default configuration (every entity).
    public func entities(forConfigurationName name: String?) -> [NSEntityDescription]? {
        guard let name, name != "Default", name != "PF_DEFAULT_CONFIGURATION_NAME" else { return ownEntities }
        return configurationEntities[name]
    }

    /// Assigns entities to a named configuration.
    public func setEntities(_ entities: [NSEntityDescription], forConfigurationName name: String) {
        checkEditable()
        configurationEntities[name] = entities
    }

    /// True once the model is in use and can no longer be edited.
    public var isFrozen: Bool {
        freezeLock.lock()
        defer { freezeLock.unlock() }
        return frozenEntitiesByName != nil
    }

    /// Computes every entity's storage layout and forbids further edits. Called by the
    /// coordinator and when the first object of the model is created; calling it again is free.
    package func freeze() {
        freezeLock.lock()
        defer { freezeLock.unlock() }
        guard frozenEntitiesByName == nil else { return }
        for entity in ownEntities {
            entity.managedObjectModel = self
            entity.freezeLayout()
        }
        var byClass: [ObjectIdentifier: [NSEntityDescription]] = [:]
        for entity in ownEntities {
            guard let layout = entity.frozenLayout, layout.namesOwnClass, let objectClass = layout.fixedObjectClass else { continue }
            byClass[ObjectIdentifier(objectClass), default: []].append(entity)
        }
        // A class registered for several entities names none of them.
        frozenEntitiesByClass = byClass.compactMapValues { $0.count == 1 ? $0[0] : nil }
        frozenEntitiesByName = Dictionary(ownEntities.compactMap { entity in entity.name.map { ($0, entity) } },
                                          uniquingKeysWith: { first, _ in first })
        ManagedClassRegistry.modelIsInUse(self)
    }

    // MARK: Copying

    /// A copy of the whole model that can be edited even when this model is in use
    /// (`NSCopying`): each entity and property is copied, and every reference between them — a
    /// relationship's destination and inverse, inheritance, configurations, fetch indexes,
    /// uniqueness constraints, fetch request templates and fetched properties — leads to the
    /// copies. The copy has the same version hashes, so it opens the stores this model wrote.
    ///
    /// ```swift
    /// let edited = container.managedObjectModel.copy() as! NSManagedObjectModel
    /// edited.entitiesByName["Item"]!.properties.append(NSAttributeDescription(name: "note", type: .stringAttributeType))
    /// ```
    /// As Core Data says: to change a model in use, copy it, change the copy, and open the
    /// stores again with it.
    ///
    /// Difference from Core Data: the copy of an instance of an application's own subclass is
    /// an `NSManagedObjectModel`.
    open func copy(with zone: NSZone? = nil) -> Any {
        var copies = DescriptionCopies()
        let entityCopies = Self.copies(of: ownEntities, recordingIn: &copies)
        let copy = NSManagedObjectModel()
        copy.entities = entityCopies
        copy.configurationEntities = configurationEntities.mapValues { $0.compactMap(copies.copyOf) }
        copy.fetchRequestTemplates = fetchRequestTemplates.compactMapValues(copies.request)
        copy.versionIdentifiers = versionIdentifiers
        copy.localization.withLock { $0 = localization.withLock { $0 } }
        // Not the entity numbers of a store the model was read from: entities added to the copy
        // would be numbered around them. The store's own numbers are found when it is opened.
        copy.isInferredFromStore = isInferredFromStore
        copy.fileURL = fileURL
        copy.bundleVersions = bundleVersions
        return copy
    }

    /// Copies of `entities` in which every reference from one of them to another — inheritance,
    /// a relationship's destination and inverse, an index element's property — leads to the
    /// other's copy (references to entities not among them are kept).
    static func copies(of entities: [NSEntityDescription], recordingIn copies: inout DescriptionCopies) -> [NSEntityDescription] {
        let entityCopies = entities.map { $0.copiedAlone(into: &copies) }
        for (entity, copy) in zip(entities, entityCopies) {
            copy.subentities = entity.subentities.compactMap(copies.copyOf)
            copy.pointAtCopies(of: entity, in: copies)
        }
        return entityCopies
    }

    private func checkEditable() {
        if isFrozen { preconditionFailure("Can't edit a managed object model that is already in use") }
    }
}

extension NSManagedObjectModel: NSCopying {}

extension NSManagedObjectModel {
    /// The entity named `name`, or nil.
    package func entity(named name: String) -> NSEntityDescription? { entitiesByName[name] }

    /// The entity whose registered class is `type`, or whose class name names it.
    func entity(for type: NSManagedObject.Type) -> NSEntityDescription? {
        if let frozen = frozenEntitiesByClass {
            if let entity = frozen[ObjectIdentifier(type)] { return entity }
            return lateEntity(for: type)
        }
        ManagedObjectClassFinder.announce(type)
        if let entity = ownEntities.first(where: { $0.managedObjectClass == type }) { return entity }
        let naming = ownEntities.filter { ManagedObjectClassFinder.name($0.managedObjectClassName, canMean: type) }
        return naming.count == 1 ? naming[0] : nil
    }

    /// The one entity whose class name can mean `type` (see `ManagedObjectClassFinder`), whose
    /// objects are then of `type`: code naming a class settles what an unqualified name means.
    /// Nil when no entity or several do, or the entity's class is already another.
    private func lateEntity(for type: NSManagedObject.Type) -> NSEntityDescription? {
        let key = ObjectIdentifier(type)
        if let entity = lateEntitiesByClass.withLock({ $0[key] }) { return entity }
        ManagedObjectClassFinder.announce(type)
        let naming = ownEntities.filter { entity in
            guard let layout = entity.frozenLayout, layout.namesOwnClass,
                  ManagedObjectClassFinder.name(entity.managedObjectClassName, canMean: type) else { return false }
            return layout.bind(to: type)
        }
        guard naming.count == 1 else { return nil }
        lateEntitiesByClass.withLock { $0[key] = naming[0] }
        return naming[0]
    }
}
