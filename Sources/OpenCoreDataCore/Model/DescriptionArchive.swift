import Foundation

/// How an entity, property, fetch index or index element description is archived
/// (`NSCoding`): as the compiled archive (what a `.mom` holds) of a model made of copies of the
/// description's entity and of every entity it reaches — superentities, sub-entities,
/// relationship destinations — with the path to the description in that model. Decoding reads
/// the model back and finds the description there; the decoded object becomes a copy of it, as
/// `copy()` makes one.
///
/// ```swift
/// DescriptionArchive(property: title)?.encode(into: coder)
/// let found = try DescriptionArchive(coder: coder).property()
/// ```
/// A description outside any entity (a property or index built in code and not yet added) is
/// archived in a stand-in entity that holds a copy of it. What the archive cannot hold encodes
/// nothing, as `NSManagedObjectModel`'s coding does, and decodes as nil: a fetched property
/// whose predicate is a block, user info of values that are not property-list objects, entities
/// without a name or sharing one (the archive keeps entities by name), an index sharing its
/// name with another of its entity, a composite attribute that contains itself.
struct DescriptionArchive {
    /// The model the description was found in (decoding) or is archived in (encoding).
    let model: NSManagedObjectModel
    private let entityName: String
    /// The property's name, then, for an element of a composite attribute, the element's.
    private let propertyPath: [String]
    private let indexName: String?
    private let elementPosition: Int?

    // MARK: Encoding

    /// The archive of `entity`; nil when the archive cannot name it (see `modelOfCopies`).
    init?(entity: NSEntityDescription) {
        guard let (model, copies) = Self.modelOfCopies(reaching: [entity]), let copy = copies.copyOf(entity), let name = copy.name else { return nil }
        self.init(model: model, entityName: name, propertyPath: [], indexName: nil, elementPosition: nil)
    }

    /// The archive of `property`, in its entity or, when no entity holds it, in a stand-in
    /// entity; nil for a composite attribute that contains itself.
    init?(property: NSPropertyDescription) {
        var path = [property.name]
        var outermost = property
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(property)]
        while let composite = outermost.containingComposite {
            guard seen.insert(ObjectIdentifier(composite)).inserted else { return nil }
            path.insert(composite.name, at: 0)
            outermost = composite
        }
        // A property taken out of its entity still names it; it is archived as one in none.
        let owner = outermost.entity.flatMap { entity in entity.properties.contains { $0 === outermost } ? entity : nil }
        let entity = owner ?? Self.standInEntity(holding: outermost)
        guard let (model, copies) = Self.modelOfCopies(reaching: [entity]), let name = copies.copyOf(entity)?.name else { return nil }
        self.init(model: model, entityName: name, propertyPath: path, indexName: nil, elementPosition: nil)
    }

    /// The archive of `index`, in its entity or, when no entity holds it, in a stand-in entity
    /// with copies of its elements' properties.
    init?(index: NSFetchIndexDescription) {
        let owner = index.entity.flatMap { entity in entity.indexes.contains { $0 === index } ? entity : nil }
        // Indexes are found by name: one whose name another index of its entity shares cannot be.
        if let owner, owner.indexes.filter({ $0.name == index.name }).count > 1 { return nil }
        guard let entity = owner ?? Self.standInEntity(index: index),
              let (model, copies) = Self.modelOfCopies(reaching: [entity]), let name = copies.copyOf(entity)?.name else { return nil }
        self.init(model: model, entityName: name, propertyPath: [], indexName: index.name, elementPosition: nil)
    }

    /// The archive of `element`, in its index or, when no index holds it, in a stand-in index.
    init?(element: NSFetchIndexElementDescription) {
        let index: NSFetchIndexDescription
        let position: Int
        if let owner = element.indexDescription, let found = owner.elements.firstIndex(where: { $0 === element }) {
            (index, position) = (owner, found)
        } else {
            (index, position) = (NSFetchIndexDescription(name: Self.standInName, elements: [element.copy() as! NSFetchIndexElementDescription]), 0)
        }
        guard let archive = DescriptionArchive(index: index) else { return nil }
        self.init(model: archive.model, entityName: archive.entityName, propertyPath: [], indexName: index.name, elementPosition: position)
    }

    private init(model: NSManagedObjectModel, entityName: String, propertyPath: [String], indexName: String?, elementPosition: Int?) {
        self.model = model
        self.entityName = entityName
        self.propertyPath = propertyPath
        self.indexName = indexName
        self.elementPosition = elementPosition
    }

    /// Writes the model's archive and the path; writes nothing when the model cannot be archived.
    func encode(into coder: NSCoder) {
        guard let archive = try? KeyedArchiveModelEncoder.archive(model) else { return }
        coder.encode(archive as NSData, forKey: Keys.model)
        coder.encode(entityName as NSString, forKey: Keys.entity)
        if !propertyPath.isEmpty { coder.encode(propertyPath.map { $0 as NSString } as NSArray, forKey: Keys.properties) }
        if let indexName { coder.encode(indexName as NSString, forKey: Keys.index) }
        if let elementPosition { coder.encode(elementPosition, forKey: Keys.element) }
    }

    // MARK: Decoding

    /// Reads the model and the path a description's `encode(with:)` wrote.
    init(coder: NSCoder) throws {
        guard let archive = coder.decodeObject(of: NSData.self, forKey: Keys.model),
              let entityName = coder.decodeObject(of: NSString.self, forKey: Keys.entity) else {
            throw KeyedArchiveError(reason: "the coder holds no archived model description (\(Keys.model), \(Keys.entity))")
        }
        let model = NSManagedObjectModel()
        try CompiledModel.decode(archive: Data(archive), source: URL(fileURLWithPath: "NSCoder"), into: model)
        // Optional keys are asked for only when present: asking for an absent one sets the
        // coder's error, which makes every later decode fail.
        let path = coder.containsValue(forKey: Keys.properties)
            ? coder.decodeObject(of: [NSArray.self, NSString.self], forKey: Keys.properties) as? [String] ?? [] : []
        let index = coder.containsValue(forKey: Keys.index) ? coder.decodeObject(of: NSString.self, forKey: Keys.index).map { String($0) } : nil
        let element = coder.containsValue(forKey: Keys.element) ? coder.decodeInteger(forKey: Keys.element) : nil
        self.init(model: model, entityName: String(entityName), propertyPath: path, indexName: index, elementPosition: element)
    }

    /// The archived entity, in the decoded model.
    func entity() throws -> NSEntityDescription {
        guard let entity = model.entitiesByName[entityName] else {
            throw KeyedArchiveError(reason: "the archived model has no entity '\(entityName)'")
        }
        return entity
    }

    /// The archived property, in the decoded model.
    func property() throws -> NSPropertyDescription {
        let entity = try entity()
        guard let first = propertyPath.first, var property = entity.propertiesByName[first] else {
            throw KeyedArchiveError(reason: "the archived entity '\(entityName)' has no property '\(propertyPath.first ?? "")'")
        }
        for name in propertyPath.dropFirst() {
            guard let element = (property as? NSCompositeAttributeDescription)?.elements.first(where: { $0.name == name }) else {
                throw KeyedArchiveError(reason: "the archived property '\(property.name)' has no element '\(name)'")
            }
            property = element
        }
        return property
    }

    /// The archived fetch index, in the decoded model.
    func index() throws -> NSFetchIndexDescription {
        let entity = try entity()
        guard let index = entity.indexes.first(where: { $0.name == indexName }) else {
            throw KeyedArchiveError(reason: "the archived entity '\(entityName)' has no fetch index '\(indexName ?? "")'")
        }
        return index
    }

    /// The archived fetch index element, in the decoded model.
    func element() throws -> NSFetchIndexElementDescription {
        let index = try index()
        guard let position = elementPosition, index.elements.indices.contains(position) else {
            throw KeyedArchiveError(reason: "the archived fetch index '\(index.name)' has no element \(elementPosition.map(String.init) ?? "")")
        }
        return index.elements[position]
    }

    /// Marks the coder failed, with why, when it collects errors: Foundation on Linux keeps only
    /// that it failed (its unarchiver reports that the class failed to decode). One that raises
    /// is not told, as that would end the process (Foundation on Linux has no exceptions to catch).
    static func report(_ error: any Error, to coder: NSCoder) {
        if coder.decodingFailurePolicy == .setErrorAndReturn { coder.failWithError(error) }
    }

    // MARK: The archived model

    private enum Keys {
        static let model = "OCDDescriptionModelArchive"
        static let entity = "OCDDescriptionEntity"
        static let properties = "OCDDescriptionProperties"
        static let index = "OCDDescriptionIndex"
        static let element = "OCDDescriptionIndexElement"
    }

    /// The name of the stand-in entity and index that hold a description outside any.
    private static let standInName = "OCDArchivedDescription"

    /// A model of copies of `entities` and of every entity they reach, and the copies made; nil
    /// when one of them has no name or two share one, as the archive keeps entities by name.
    private static func modelOfCopies(reaching entities: [NSEntityDescription]) -> (NSManagedObjectModel, DescriptionCopies)? {
        var reached: [NSEntityDescription] = []
        var seen = Set<ObjectIdentifier>()
        var pending = entities
        while let entity = pending.popLast() {
            guard seen.insert(ObjectIdentifier(entity)).inserted else { continue }
            reached.append(entity)
            pending += entity.subentities
            if let superentity = entity.superentity { pending.append(superentity) }
            for property in entity.properties {
                if let destination = (property as? NSRelationshipDescription)?.destinationEntity { pending.append(destination) }
                if let request = (property as? NSFetchedPropertyDescription)?.fetchRequest,
                   let fetched = request.entity ?? request.entityName.flatMap({ entity.managedObjectModel?.entitiesByName[$0] }) {
                    pending.append(fetched)
                }
            }
        }
        let names = reached.compactMap(\.name)
        guard names.count == reached.count, Set(names).count == names.count else { return nil }
        var copies = DescriptionCopies()
        let model = NSManagedObjectModel()
        model.entities = NSManagedObjectModel.copies(of: reached, recordingIn: &copies)
        return (model, copies)
    }

    /// An entity holding a copy of `property`: what a property in no entity is archived in.
    private static func standInEntity(holding property: NSPropertyDescription) -> NSEntityDescription {
        let entity = NSEntityDescription(name: standInName)
        entity.properties = [property.copy() as! NSPropertyDescription]
        return entity
    }

    /// An entity holding copies of the properties of `index`'s elements and a copy of `index`
    /// whose elements name them.
    private static func standInEntity(index: NSFetchIndexDescription) -> NSEntityDescription? {
        var copies = DescriptionCopies()
        var seen = Set<ObjectIdentifier>()
        let properties = index.elements.compactMap(\.property).filter { seen.insert(ObjectIdentifier($0)).inserted }
        // Elements of same-named properties of different entities could not be told apart.
        guard Set(properties.map(\.name)).count == properties.count else { return nil }
        let entity = NSEntityDescription(name: standInName)
        entity.properties = properties.map { property in
            let copy = property.copy() as! NSPropertyDescription
            copies.record(copy, of: property)
            return copy
        }
        entity.indexes = [index.copy(pointingAt: copies)]
        return entity
    }
}
