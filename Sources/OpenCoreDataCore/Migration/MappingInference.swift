import Foundation

/// Infers the mapping between two versions of a model, as Core Data's lightweight migration
/// does: entities and properties are the same element when their names match or the newer
/// one's `renamingIdentifier` names the older one.
///
/// What it maps: entities, attributes and relationships added, removed or renamed; attributes
/// made optional or required; numeric type changes (integers, Boolean, decimal, double and
/// float into each other); sub-entities added or removed; a to-one becoming a to-many where its
/// links survive (one-to-one → one-to-many, one-to-many → many-to-many); relationships becoming
/// ordered (in key order) or unordered; changes in inheritance that keep each tree's objects
/// apart from other trees' (a new parent entity over a root, a sub-entity moved out of its tree
/// or elsewhere in it, properties moved up and down). What it refuses, each listed in one
/// `NSInferredMappingModelError`: other type changes, entities of two trees brought into one
/// (Core Data's "cannot merge entity hierarchies"), other changes between to-one and to-many, a
/// relationship to another destination entity.
struct MappingInference {
    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel
    /// Destination entity → the source entity it is a version of.
    private let entityMatches: [ObjectIdentifier: NSEntityDescription]

    init(source: NSManagedObjectModel, destination: NSManagedObjectModel) {
        self.source = source
        self.destination = destination
        entityMatches = Self.match(Self.sorted(destination.entities), to: Self.sorted(source.entities),
                                   name: { $0.name }, renamingIdentifier: { $0.renamingIdentifier })
    }

    /// A change inference cannot map.
    struct Obstacle {
        let entity: String
        let property: String?
        let reason: String
    }

    func mappingModel() throws -> NSMappingModel {
        var obstacles: [Obstacle] = []
        let model = NSMappingModel()
        var matchedSources = Set<ObjectIdentifier>()
        for entity in Self.sorted(destination.entities) {
            guard let name = entity.name else { continue }
            guard let sourceEntity = sourceEntity(matching: entity) else {
                model.entityMappings.append(addMapping(for: entity))
                continue
            }
            matchedSources.insert(ObjectIdentifier(sourceEntity))
            let mapping = NSEntityMapping()
            mapping.name = "\(sourceEntity.name ?? "")To\(name)"
            mapping.sourceEntityName = sourceEntity.name
            mapping.sourceEntityVersionHash = sourceEntity.versionHash
            mapping.destinationEntityName = name
            mapping.destinationEntityVersionHash = entity.versionHash
            mapping.mappingType = sourceEntity.name == name && sourceEntity.versionHash == entity.versionHash
                ? .copyEntityMappingType : .transformEntityMappingType
            mapping.attributeMappings = attributeMappings(of: entity, from: sourceEntity, obstacles: &obstacles)
            mapping.relationshipMappings = relationshipMappings(of: entity, from: sourceEntity, obstacles: &obstacles)
            model.entityMappings.append(mapping)
        }
        checkTreesStayApart(into: &obstacles)
        for entity in Self.sorted(source.entities) where !matchedSources.contains(ObjectIdentifier(entity)) {
            let mapping = NSEntityMapping()
            mapping.name = "Remove\(entity.name ?? "")"
            mapping.mappingType = .removeEntityMappingType
            mapping.sourceEntityName = entity.name
            mapping.sourceEntityVersionHash = entity.versionHash
            model.entityMappings.append(mapping)
        }
        if let error = Self.error(for: obstacles) { throw error }
        return model
    }

    // MARK: Matching elements

    /// Pairs each new element with the old one it is a version of: first by renaming identifier
    /// (carried by the old element too, or naming it), then by name; each old element is
    /// claimed once, so a renamed element and a new one under its old name stay apart.
    static func match<Element: AnyObject>(_ new: [Element], to old: [Element], name: (Element) -> String?,
                                          renamingIdentifier: (Element) -> String?) -> [ObjectIdentifier: Element] {
        var matches: [ObjectIdentifier: Element] = [:]
        var claimed = Set<ObjectIdentifier>()
        func claim(_ element: Element, _ candidate: Element?) -> Bool {
            guard let candidate, !claimed.contains(ObjectIdentifier(candidate)) else { return false }
            matches[ObjectIdentifier(element)] = candidate
            claimed.insert(ObjectIdentifier(candidate))
            return true
        }
        for element in new {
            guard let identifier = renamingIdentifier(element), !identifier.isEmpty else { continue }
            // The old element carrying the same identifier first: Xcode copies identifiers into
            // every later version, so one version on, an old element *named* like the
            // identifier may be a different, newer element.
            if !claim(element, old.first { renamingIdentifier($0) == identifier }) {
                _ = claim(element, old.first { name($0) == identifier })
            }
        }
        for element in new where matches[ObjectIdentifier(element)] == nil {
            _ = claim(element, old.first { name($0) != nil && name($0) == name(element) })
        }
        return matches
    }

    /// The source entity `entity` is a version of (see `match`).
    func sourceEntity(matching entity: NSEntityDescription) -> NSEntityDescription? {
        entityMatches[ObjectIdentifier(entity)]
    }

    /// The source properties of `kind` that the properties of `entity` are versions of (see
    /// `match`), inherited ones included, by destination name.
    static func propertyMatches<Kind: NSPropertyDescription>(of entity: NSEntityDescription, from sourceEntity: NSEntityDescription,
                                                             _ kind: Kind.Type) -> [String: Kind] {
        let new = persistentProperties(of: entity, kind)
        let old = sourceEntity.propertiesByName.values.compactMap { $0 as? Kind }.sorted { $0.name < $1.name }
        let matches = match(new, to: old, name: { $0.name }, renamingIdentifier: { $0.renamingIdentifier })
        var byName: [String: Kind] = [:]
        for property in new { if let found = matches[ObjectIdentifier(property)] { byName[property.name] = found } }
        return byName
    }

    // MARK: Entities

    private func addMapping(for entity: NSEntityDescription) -> NSEntityMapping {
        let mapping = NSEntityMapping()
        mapping.name = "Add\(entity.name ?? "")"
        mapping.mappingType = .addEntityMappingType
        mapping.destinationEntityName = entity.name
        mapping.destinationEntityVersionHash = entity.versionHash
        mapping.attributeMappings = Self.persistentProperties(of: entity, NSAttributeDescription.self).map { NSPropertyMapping.adding($0.name) }
        mapping.relationshipMappings = Self.persistentProperties(of: entity, NSRelationshipDescription.self).map { NSPropertyMapping.adding($0.name) }
        return mapping
    }

    /// Each inheritance tree of the destination holds versions of entities of one source tree
    /// only. Objects of one tree share one sequence of primary keys (and one table); two trees'
    /// objects brought under one root could collide, so, as in Core Data, entities that share no
    /// root in the source cannot share one in the destination. A new root over one tree, a
    /// sub-entity moved out of its tree or to another place in it, keep every tree's keys apart.
    private func checkTreesStayApart(into obstacles: inout [Obstacle]) {
        var sourceTrees: [ObjectIdentifier: [(entity: NSEntityDescription, sourceRoot: NSEntityDescription)]] = [:]
        for entity in Self.sorted(destination.entities) {
            guard let sourceEntity = sourceEntity(matching: entity) else { continue }
            sourceTrees[ObjectIdentifier(entity.rootEntity), default: []].append((entity, sourceEntity.rootEntity))
        }
        for root in Self.sorted(destination.entities) where root.superentity == nil {
            guard let members = sourceTrees[ObjectIdentifier(root)], let first = members.first,
                  let other = members.first(where: { $0.sourceRoot !== first.sourceRoot }) else { continue }
            let name = { (entity: NSEntityDescription) in "'\(entity.name ?? "")'" }
            obstacles.append(Obstacle(entity: other.entity.name ?? "", property: nil,
                                      reason: "entities \(name(first.entity)) and \(name(other.entity)) share the inheritance tree of \(name(root)) but were in the trees of \(name(first.sourceRoot)) and \(name(other.sourceRoot)); inference cannot merge inheritance trees"))
        }
    }

    // MARK: Attributes

    private func attributeMappings(of entity: NSEntityDescription, from sourceEntity: NSEntityDescription,
                                   obstacles: inout [Obstacle]) -> [NSPropertyMapping] {
        let matches = Self.propertyMatches(of: entity, from: sourceEntity, NSAttributeDescription.self)
        return Self.persistentProperties(of: entity, NSAttributeDescription.self).map { attribute in
            guard let old = matches[attribute.name], !old.isTransient else {
                return NSPropertyMapping.adding(attribute.name)
            }
            if !Self.canConvert(old.attributeType, to: attribute.attributeType) {
                obstacles.append(Obstacle(entity: entity.name ?? "", property: attribute.name,
                                          reason: "attribute '\(attribute.name)' of entity '\(entity.name ?? "")' changes type from \(old.attributeType.modelName) to \(attribute.attributeType.modelName), which inference cannot map"))
            } else if let composite = attribute as? NSCompositeAttributeDescription, let oldComposite = old as? NSCompositeAttributeDescription {
                for reason in Self.elementChanges(from: oldComposite, to: composite, path: attribute.name) {
                    obstacles.append(Obstacle(entity: entity.name ?? "", property: attribute.name,
                                              reason: "\(reason) in entity '\(entity.name ?? "")', which inference cannot map"))
                }
            }
            return NSPropertyMapping.copying(attribute: old.name, to: attribute.name)
        }
    }

    /// What a migration that keeps a composite's stored values (its JSON, element by element)
    /// would lose: an element whose values would no longer read as its new type, or one renamed
    /// (its values stay under the old name). Added and removed elements lose nothing stored.
    static func elementChanges(from old: NSCompositeAttributeDescription, to new: NSCompositeAttributeDescription,
                               path: String) -> [String] {
        var changes: [String] = []
        for element in new.elements {
            let elementPath = path + "." + element.name
            if let previous = old.element(named: element.name) {
                switch (previous as? NSCompositeAttributeDescription, element as? NSCompositeAttributeDescription) {
                case let (previous?, element?):
                    changes += elementChanges(from: previous, to: element, path: elementPath)
                case (nil, nil) where previous.attributeType == element.attributeType || keepsJSONNumbers(previous.attributeType, element.attributeType):
                    break
                default:
                    changes.append("element '\(elementPath)' changes type from \(previous.attributeType.modelName) to \(element.attributeType.modelName)")
                }
            } else if let renamed = element.renamingIdentifier, old.element(named: renamed) != nil {
                changes.append("element '\(path).\(renamed)' is renamed '\(element.name)'")
            }
        }
        return changes
    }

    /// Whether the JSON numbers of an element of `old` type all read as values of `new` type:
    /// integers as wider integers or as fractions, fractions as fractions.
    private static func keepsJSONNumbers(_ old: NSAttributeType, _ new: NSAttributeType) -> Bool {
        let integers: [NSAttributeType] = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType]
        let fractions: Set<NSAttributeType> = [.doubleAttributeType, .floatAttributeType, .decimalAttributeType]
        if let from = integers.firstIndex(of: old) {
            return fractions.contains(new) || integers.firstIndex(of: new).map { $0 >= from } == true
        }
        return fractions.contains(old) && fractions.contains(new)
    }

    /// Whether a value of `old` type is kept as a value of `new` type: the same type, or two
    /// numeric ones (SQL converts them as it stores them).
    static func canConvert(_ old: NSAttributeType, to new: NSAttributeType) -> Bool {
        if old == new { return true }
        let numeric: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
                                             .booleanAttributeType, .decimalAttributeType, .doubleAttributeType, .floatAttributeType]
        return numeric.contains(old) && numeric.contains(new)
    }

    // MARK: Relationships

    private func relationshipMappings(of entity: NSEntityDescription, from sourceEntity: NSEntityDescription,
                                      obstacles: inout [Obstacle]) -> [NSPropertyMapping] {
        let matches = Self.propertyMatches(of: entity, from: sourceEntity, NSRelationshipDescription.self)
        return Self.persistentProperties(of: entity, NSRelationshipDescription.self).map { relationship in
            guard let old = matches[relationship.name], !old.isTransient else {
                return NSPropertyMapping.adding(relationship.name)
            }
            if let reason = storageChange(from: old, to: relationship) {
                obstacles.append(Obstacle(entity: entity.name ?? "", property: relationship.name,
                                          reason: "relationship '\(relationship.name)' of entity '\(entity.name ?? "")' \(reason), which inference does not map yet"))
            }
            return NSPropertyMapping.copying(relationship: old.name, to: relationship.name)
        }
    }

    /// Where a relationship's links are kept in a store.
    enum Storage: Equatable {
        /// A to-one: a key column in the source's row.
        case foreignKey
        /// A to-many whose inverse is a to-one: the inverse's key column in each destination's row.
        case inverseForeignKey
        /// A many-to-many: rows of a join table.
        case joinTable
        /// A to-many without inverse.
        case withoutInverse

        init(of relationship: NSRelationshipDescription) {
            if !relationship.isToMany { self = .foreignKey }
            else if let inverse = relationship.inverseRelationship { self = inverse.isToMany ? .joinTable : .inverseForeignKey }
            else { self = .withoutInverse }
        }
    }

    /// Why `old`'s links cannot be carried over to `new`, if they cannot. Carried over: the same
    /// storage; a to-one whose inverse was a to-one becoming a to-many (the inverse's key keeps
    /// the links); a one-to-many becoming a many-to-many, and a to-one becoming a to-many without
    /// inverse (the key fills the join table); a to-many that loses its to-one inverse (the
    /// inverse's key fills the join table); a many-to-many that loses one side, and a to-many
    /// without inverse that gains a to-many one (the join table keeps the links). Order may be
    /// added (by key) or dropped. Not carried over: changes that could not keep every link (a
    /// to-many becoming a to-one, or gaining a to-one inverse).
    private func storageChange(from old: NSRelationshipDescription, to new: NSRelationshipDescription) -> String? {
        if let target = new.destinationEntity, sourceEntity(matching: target) !== old.destinationEntity {
            return "now leads to entity '\(target.name ?? "")' instead of '\(old.destinationEntity?.name ?? "")'"
        }
        let (was, becomes) = (Storage(of: old), Storage(of: new))
        switch (was, becomes) {
        case _ where was == becomes:
            return nil
        case (.foreignKey, .inverseForeignKey) where old.inverseRelationship.map(Storage.init(of:)) == .foreignKey:
            return nil
        case (.foreignKey, .joinTable), (.inverseForeignKey, .joinTable), (.foreignKey, .withoutInverse),
             (.inverseForeignKey, .withoutInverse), (.joinTable, .withoutInverse), (.withoutInverse, .joinTable):
            return nil
        default:
            return "changes from \(Self.describe(was)) to \(Self.describe(becomes))"
        }
    }

    private static func describe(_ storage: Storage) -> String {
        switch storage {
        case .foreignKey: "to-one"
        case .inverseForeignKey: "to-many with a to-one inverse"
        case .joinTable: "many-to-many"
        case .withoutInverse: "to-many without inverse"
        }
    }

    // MARK: Helpers

    /// The stored properties of `entity` of `kind`, inherited ones included, by name.
    static func persistentProperties<Kind: NSPropertyDescription>(of entity: NSEntityDescription, _ kind: Kind.Type) -> [Kind] {
        entity.propertiesByName.values.compactMap { $0 as? Kind }.filter { !$0.isTransient }.sorted { $0.name < $1.name }
    }

    static func sorted(_ entities: [NSEntityDescription]) -> [NSEntityDescription] {
        entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
    }

    /// Core Data's 134190, listing every obstacle; the first's reason, entity and property in
    /// `userInfo` under `reason`, `entity` and `property`.
    static func error(for obstacles: [Obstacle]) -> CocoaError? {
        guard let first = obstacles.first else { return nil }
        var info: [String: Any] = ["reason": first.reason, "entity": first.entity]
        if let property = first.property { info["property"] = property }
        let list = obstacles.map(\.reason).joined(separator: "; ")
        return CoreDataError.make(.inferredMappingModel, "Can't infer a mapping model: \(list)", info)
    }
}
