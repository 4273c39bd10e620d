import Foundation

/// Rebuilds an `NSManagedObjectModel` from the keyed archive of one: a compiled `.mom`, or a
/// store's model cache once inflated (COREDATA-FORMAT.md §5).
///
/// The archive's keys, by class (what is not listed is not read; see the notes at the end):
/// - `NSManagedObjectModel`: `NSEntities` (an `NSMutableDictionary` in a `.mom`, an
///   `NSKnownKeysDictionary1` in a model cache), `NSVersionIdentifiers`, `NSConfigurations`
///   (name → set of entities), `NSFetchRequestTemplates` (name → `NSFetchRequest`).
/// - `NSEntityDescription`: `NSEntityName`, `NSClassNameForEntity`, `NSIsAbstract`,
///   `NSSuperentity`, `NSProperties`, `NSUserInfo`, `NSVersionHashModifier`,
///   `NSRenamingIdentifier`, `NSUniqueTuples`, `NSFetchIndexDescriptions`, `NSCompoundIndexes`.
/// - every property: `NSPropertyName`, `NSIsOptional`, `NSIsTransient`, `NSIsIndexed`,
///   `NSUserInfo`, `NSVersionHashModifier`, `NSRenamingIdentifier`, `NSValidationPredicates`.
/// - `NSAttributeDescription`: `NSAttributeType`, `NSAttributeValueClassName`,
///   `NSDefaultValue`, `NSValueTransformerName`, `NSFlagsKey`; `NSDerivedAttributeDescription`
///   adds `NSDerivationExpression`.
/// - `NSRelationshipDescription`: `NSDestinationEntity` (or `_NSDestinationEntityName`),
///   `NSInverseRelationship` (or `_NSInverseRelationshipName`), `NSMinCount`, `NSMaxCount`,
///   `NSDeleteRule`, `NSIsOrdered`.
/// - `NSFetchedPropertyDescription`: `NSFetchRequest` (whose entity is `NSEntity`, or
///   `_NSFetchRequestEntityName` on the property).
///
/// Notes on what the archives hold:
/// - A model cache lists every property of a sub-entity again, inherited ones included, as
///   separate objects whose `NSEntity` is the sub-entity. A property whose name an ancestor
///   already has is taken as the ancestor's (references to the copy resolve to it), so each
///   property is declared once, as in Xcode's model.
/// - `NSRenamingIdentifier` holds the name itself when none was set; that comes back as nil.
/// - `NSMaxCount` is -1 for "no limit" when code set `Int.max` (it is archived in 32 bits);
///   that comes back as `Int.max`. Model files write 0 for an unbounded to-many.
/// - `NSFlagsKey` 0x10 is `preservesValueInHistoryOnDeletion` (an attribute with
///   `preserveAfterDeletion="YES"` in the corpus). 0x04 is read as
///   `allowsExternalBinaryDataStorage`: the bit Core Data's headers name
///   `_storeBinaryDataExternally` in the attribute's flags, not confirmed by a corpus file.
/// - Xcode's minimum, maximum and regular expression are archived as validation predicates
///   (`length >= 3`, `SELF <= 100`, `SELF MATCHES "…"`); those come back as `minValue`,
///   `maxValue` and `regularExpression`. Other validation predicates, and any with a warning of
///   their own, are kept as `validationPredicates` with their `validationWarnings`.
/// - In model caches, a property that is the only element of a fetch index is `isIndexed`, and
///   has a fetch index named after it besides (`byUUID` on `uuid` brings an index `uuid`): the
///   store has both (`Z_BookmarkEntity_byUUID`, `Z_BookmarkEntity_uuid`), and so does the model.
/// - `NSCompoundIndexes` repeats every fetch index of several properties (as property names);
///   those are left out of `compoundIndexes`, which keeps only the others.
/// - `entities`, `properties` and `subentities` come back sorted by name.
final class KeyedArchiveModelDecoder {
    private let source: URL
    private let archive: KeyedArchive
    /// The element named in errors about the archive as a whole.
    private let wholeElement: String?
    private var entitiesByUID: [Int: NSEntityDescription] = [:]
    private var entityObjects: [(object: ArchivedObject, entity: NSEntityDescription)] = []
    private var propertiesByUID: [Int: NSPropertyDescription] = [:]
    private var propertyObjects: [(object: ArchivedObject, property: NSPropertyDescription)] = []
    private var predicates = KeyedArchivePredicateDecoder()

    /// Decodes the model archived in `data`; errors name `source`, and `wholeElement` for
    /// errors about the archive as a whole (`Z_MODELCACHE` for a store's cache).
    init(data: Data, source: URL, wholeElement: String? = nil) throws {
        self.source = source
        self.wholeElement = wholeElement
        do {
            archive = try KeyedArchive(data: data)
        } catch let error as KeyedArchiveError {
            throw ModelFileError(file: source, element: wholeElement, reason: error.reason)
        }
    }

    /// The model, in a new `NSManagedObjectModel`.
    func decodeModel() throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try decodeModel(into: model)
        return model
    }

    /// Decodes the model into `model`, an empty, unfrozen model (as an initializer has it).
    func decodeModel(into model: NSManagedObjectModel) throws {
        let root = try within(wholeElement) { () throws -> ArchivedObject in
            let root = try archive.rootObject().asObject("the archive's root object")
            guard root.isKind(of: "NSManagedObjectModel") else {
                throw KeyedArchiveError(reason: "the archive's root object is an \(root.className), not an NSManagedObjectModel")
            }
            return root
        }
        try decodeEntities(of: root)
        try linkInheritance()
        // Parents before children, so that a child can tell its inherited properties.
        for (object, entity) in entityObjects.sorted(by: { depth(of: $0.entity) < depth(of: $1.entity) }) {
            try decodeProperties(of: object, into: entity)
        }
        for (object, property) in propertyObjects {
            try linkProperty(object, property)
        }
        for (object, entity) in entityObjects {
            try decodeConstraintsAndIndexes(of: object, into: entity)
        }
        model.entities = entityObjects.map(\.entity).sorted(by: Self.byName)
        try decodeModelLevel(of: root, into: model)
    }

    // MARK: Entities

    private func decodeEntities(of root: ArchivedObject) throws {
        let entries = try within(wholeElement) { () throws -> [(key: String, value: ArchivedValue)] in
            guard let dictionary = try root.object(forKey: "NSEntities") else { return [] }
            return try dictionary.stringKeyedEntries()
        }
        for (key, value) in entries {
            try within("entity \(key)") {
                let object = try value.asObject("the entity")
                guard object.isKind(of: "NSEntityDescription") else {
                    throw KeyedArchiveError(reason: "\(object) is not an NSEntityDescription")
                }
                guard entitiesByUID[object.uid] == nil else {
                    throw KeyedArchiveError(reason: "\(object) is listed twice in NSEntities")
                }
                let name = try object.string(forKey: "NSEntityName") ?? key
                let entity = NSEntityDescription(name: name)
                entity.managedObjectClassName = try object.string(forKey: "NSClassNameForEntity") ?? "NSManagedObject"
                entity.isAbstract = try object.bool(forKey: "NSIsAbstract")
                entity.userInfo = try object.userInfo()
                entity.versionHashModifier = try object.string(forKey: "NSVersionHashModifier")
                entity.renamingIdentifier = try renamingIdentifier(of: object, name: name)
                entitiesByUID[object.uid] = entity
                entityObjects.append((object, entity))
            }
        }
    }

    private func linkInheritance() throws {
        var children: [ObjectIdentifier: [NSEntityDescription]] = [:]
        var parents: [ObjectIdentifier: NSEntityDescription] = [:]
        for (object, entity) in entityObjects {
            try within("entity \(entity.name ?? "?")") {
                guard let parentObject = try object.object(forKey: "NSSuperentity") else { return }
                guard let parent = entitiesByUID[parentObject.uid] else {
                    throw KeyedArchiveError(reason: "its superentity (\(parentObject)) is not one of the model's entities")
                }
                parents[ObjectIdentifier(entity)] = parent
                children[ObjectIdentifier(parent), default: []].append(entity)
            }
        }
        // A malformed archive may make an entity its own ancestor.
        for (_, entity) in entityObjects {
            var seen: Set<ObjectIdentifier> = [ObjectIdentifier(entity)]
            var current = parents[ObjectIdentifier(entity)]
            while let ancestor = current {
                guard seen.insert(ObjectIdentifier(ancestor)).inserted else {
                    throw ModelFileError(file: source, element: "entity \(entity.name ?? "?")", reason: "its superentities form a cycle")
                }
                current = parents[ObjectIdentifier(ancestor)]
            }
        }
        for (_, entity) in entityObjects {
            if let subentities = children[ObjectIdentifier(entity)] {
                entity.subentities = subentities.sorted(by: Self.byName)
            }
        }
    }

    private func depth(of entity: NSEntityDescription) -> Int {
        var depth = 0
        var current = entity.superentity
        while let parent = current {
            depth += 1
            current = parent.superentity
        }
        return depth
    }

    // MARK: Properties

    private func decodeProperties(of object: ArchivedObject, into entity: NSEntityDescription) throws {
        let entityName = entity.name ?? "?"
        let entries = try within("entity \(entityName)") { () throws -> [(key: String, value: ArchivedValue)] in
            guard let dictionary = try object.object(forKey: "NSProperties") else { return [] }
            return try dictionary.stringKeyedEntries()
        }
        let inherited = entity.superentity?.propertiesByName ?? [:]
        var own: [NSPropertyDescription] = []
        for (key, value) in entries {
            try within("\(entityName).\(key)") {
                let propertyObject = try value.asObject("the property")
                if let ancestors = inherited[key] {
                    // A model cache's copy of an inherited property.
                    propertiesByUID[propertyObject.uid] = ancestors
                    return
                }
                guard propertiesByUID[propertyObject.uid] == nil else {
                    throw KeyedArchiveError(reason: "\(propertyObject) is listed by two entities")
                }
                let property = try decodeProperty(propertyObject, key: key)
                propertiesByUID[propertyObject.uid] = property
                propertyObjects.append((propertyObject, property))
                own.append(property)
            }
        }
        entity.properties = own.sorted { $0.name < $1.name }
    }

    /// Where OpenCoreData's archives keep a composite attribute's elements (`NSCompositeAttributeDescription`).
    static let compositeElementsKey = "OCDCompositeElements"

    private func decodeProperty(_ object: ArchivedObject, key: String) throws -> NSPropertyDescription {
        let name = try object.string(forKey: "NSPropertyName") ?? key
        let property: NSPropertyDescription
        if object.isKind(of: "NSDerivedAttributeDescription") {
            let derived = NSDerivedAttributeDescription(name: name, type: .undefinedAttributeType)
            try decodeAttribute(object, into: derived)
            if let expression = try object.object(forKey: "NSDerivationExpression") {
                derived.derivationExpression = try predicates.expression(expression)
                derived.derivationExpressionFormat = derived.derivationExpression?.description
            }
            if try object.object(forKey: "NSFilteringPredicate") != nil {
                throw KeyedArchiveError(reason: "the derived attribute has a filtering predicate, which the model cannot represent yet")
            }
            property = derived
        } else if object.isKind(of: "NSAttributeDescription"), let elements = try object.object(forKey: Self.compositeElementsKey) {
            let composite = NSCompositeAttributeDescription(name: name, type: .compositeAttributeType)
            try decodeAttribute(object, into: composite)
            composite.elements = try elements.collectionElements().map { value in
                let element = try value.asObject("an element of the composite \(name)")
                guard let attribute = try decodeProperty(element, key: "") as? NSAttributeDescription else {
                    throw KeyedArchiveError(reason: "an element of the composite \(name) is not an attribute")
                }
                return attribute
            }
            property = composite
        } else if object.isKind(of: "NSAttributeDescription") {
            let attribute = NSAttributeDescription(name: name, type: .undefinedAttributeType)
            try decodeAttribute(object, into: attribute)
            property = attribute
        } else if object.isKind(of: "NSRelationshipDescription") {
            let relationship = NSRelationshipDescription(name: name)
            relationship.minCount = try object.integer(forKey: "NSMinCount")
            let maxCount = try object.integer(forKey: "NSMaxCount")
            relationship.maxCount = maxCount < 0 ? Int.max : maxCount
            guard relationship.minCount >= 0 else {
                throw KeyedArchiveError(reason: "\(object) has a negative NSMinCount (\(relationship.minCount))")
            }
            let rawRule = try object.integer(forKey: "NSDeleteRule")
            guard rawRule >= 0, let rule = NSDeleteRule(rawValue: UInt(rawRule)) else {
                throw KeyedArchiveError(reason: "\(object) has the unknown delete rule \(rawRule)")
            }
            relationship.deleteRule = rule
            relationship.isOrdered = try object.bool(forKey: "NSIsOrdered")
            property = relationship
        } else if object.isKind(of: "NSFetchedPropertyDescription") {
            property = NSFetchedPropertyDescription(name: name)
        } else {
            throw KeyedArchiveError(reason: "\(object) is not a kind of property this reader knows")
        }
        property.isOptional = try object.bool(forKey: "NSIsOptional")
        property.isTransient = try object.bool(forKey: "NSIsTransient")
        property.isIndexed = try object.bool(forKey: "NSIsIndexed")
        property.userInfo = try object.userInfo()
        property.versionHashModifier = try object.string(forKey: "NSVersionHashModifier")
        property.renamingIdentifier = try renamingIdentifier(of: object, name: name)
        try decodeValidationRules(object, into: property)
        return property
    }

    private func decodeAttribute(_ object: ArchivedObject, into attribute: NSAttributeDescription) throws {
        let rawType = try object.integer(forKey: "NSAttributeType")
        guard rawType >= 0, let type = NSAttributeType(rawValue: UInt(rawType)) else {
            throw KeyedArchiveError(reason: "\(object) has the unknown attribute type \(rawType)")
        }
        attribute.attributeType = type
        attribute.attributeValueClassName = try object.string(forKey: "NSAttributeValueClassName")
        attribute.valueTransformerName = try object.string(forKey: "NSValueTransformerName")
        let flags = try object.integer(forKey: "NSFlagsKey")
        attribute.allowsExternalBinaryDataStorage = flags & 0x04 != 0
        attribute.preservesValueInHistoryOnDeletion = flags & 0x10 != 0
        attribute.defaultValue = try defaultValue(of: object, type: type)
    }

    /// The validation predicates and their warnings. A rule whose warning is an error code (a
    /// minimum, maximum or pattern), or that has no warnings at all, becomes the attribute's `minValue`, `maxValue` or
    /// `regularExpression` where it has that form; every other rule is kept as it is, with its
    /// warning (as `setValidationPredicates(_:withValidationWarnings:)` made it).
    private func decodeValidationRules(_ object: ArchivedObject, into property: NSPropertyDescription) throws {
        guard let list = try object.object(forKey: "NSValidationPredicates") else { return }
        let rules = try list.collectionElements().map { try predicates.predicate($0.asObject("a validation predicate")) }
        var warnings: [Any?]?
        if let warningList = try object.object(forKey: "NSValidationWarnings") {
            var values = FoundationValueDecoder()
            // A warning this reader cannot rebuild leaves its rule without one, not the model unread.
            warnings = try warningList.collectionElements().map { (try? values.decode($0)) ?? nil }
        }
        for (index, predicate) in rules.enumerated() {
            let warning = warnings.flatMap { index < $0.count ? $0[index] : nil }
            // A minimum, maximum or pattern carries its error code as its warning (or, in files
            // without warnings, nothing); a rule set in code carries a text, even an empty one.
            if let attribute = property as? NSAttributeDescription, isRangeOrPattern(predicate, warning: warning, of: attribute,
                                                                                  archiveHasWarnings: warnings != nil),
               applyValidationRule(predicate, to: attribute) {
                continue
            }
            property.addCustomValidationRule(predicate, warning: warning ?? "")
        }
    }

    /// The default value in the form the attribute's type takes. A default value of an
    /// application's own class (a transformable attribute's) cannot be rebuilt and is left out.
    private func defaultValue(of object: ArchivedObject, type: NSAttributeType) throws -> Any? {
        var values = FoundationValueDecoder()
        let value: Any?
        do {
            value = try values.decode(object.value(forKey: "NSDefaultValue"))
        } catch let error as KeyedArchiveError where error.unsupportedClass != nil && type == .transformableAttributeType {
            return nil
        }
        guard let value else { return nil }
        switch type {
        case .booleanAttributeType:
            if let number = value as? Int { return number != 0 }
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            if let flag = value as? Bool { return flag ? 1 : 0 }
        case .doubleAttributeType, .floatAttributeType:
            if let number = value as? Int { return Double(number) }
        case .decimalAttributeType:
            if let number = value as? Int { return Decimal(number) }
            if let number = value as? Double { return Decimal(number) }
        default:
            break
        }
        return value
    }

    /// Whether a rule is an attribute's minimum, maximum or pattern: in an archive without
    /// warnings, any rule of that form; otherwise one bound or pattern whose warning is the very
    /// code `ruleValidationRules` gives it (a rule set in code may carry any number, or a text).
    private func isRangeOrPattern(_ predicate: NSPredicate, warning: Any?, of attribute: NSAttributeDescription,
                                  archiveHasWarnings: Bool) -> Bool {
        guard archiveHasWarnings else { return true }
        guard let code = warning as? Int else { return false }
        let scratch = NSAttributeDescription(name: attribute.name, type: attribute.attributeType)
        guard applyValidationRule(predicate, to: scratch) else { return false }
        let rules = scratch.ruleValidationRules
        return rules.count == 1 && rules[0].warning as? Int == code
    }

    /// Applies a validation predicate Xcode makes of a minimum, maximum or pattern (`length >=
    /// 3`, `SELF <= 100`, `SELF MATCHES "…"`, or an AND of such) as `minValue`, `maxValue`
    /// or `regularExpression`. Returns false, changing nothing, for any other predicate.
    private func applyValidationRule(_ predicate: NSPredicate, to attribute: NSAttributeDescription) -> Bool {
        var rules: [(kind: String, value: Any)] = []
        func collect(_ predicate: NSPredicate) -> Bool {
            if let compound = predicate as? NSCompoundPredicate {
                return compound.compoundPredicateType == .and && compound.subpredicates.allSatisfy(collect)
            }
            guard let comparison = predicate as? NSComparisonPredicate, comparison.comparisonPredicateModifier == .direct,
                  comparison.options.isEmpty, comparison.rightExpression.expressionType == .constantValue,
                  let bound = comparison.rightExpression.constantValue else { return false }
            let left = comparison.leftExpression
            let isLength = left.expressionType == .keyPath && left.keyPath == "length"
            let isSelf = left.expressionType == .evaluatedObject
            let measuresLength = [.stringAttributeType, .binaryDataAttributeType].contains(attribute.attributeType)
            guard isSelf || (isLength && measuresLength) else { return false }
            switch comparison.predicateOperatorType {
            case .greaterThanOrEqualTo where isLength || !measuresLength: rules.append(("min", bound))
            case .lessThanOrEqualTo where isLength || !measuresLength: rules.append(("max", bound))
            case .matches where isSelf && attribute.attributeType == .stringAttributeType:
                guard let pattern = bound as? String else { return false }
                rules.append(("pattern", pattern))
            default: return false
            }
            return true
        }
        guard collect(predicate) else { return false }
        // A second rule of a kind already applied stays a predicate of its own.
        let taken = ["min": attribute.minValue != nil, "max": attribute.maxValue != nil, "pattern": attribute.regularExpression != nil]
        guard rules.allSatisfy({ taken[$0.kind] != true }), Set(rules.map(\.kind)).count == rules.count else { return false }
        for (kind, value) in rules {
            switch kind {
            case "min": attribute.minValue = value
            case "max": attribute.maxValue = value
            default: attribute.regularExpression = value as? String
            }
        }
        return true
    }

    // MARK: Links between descriptions

    private func linkProperty(_ object: ArchivedObject, _ property: NSPropertyDescription) throws {
        let element = "\(property.entity?.name ?? "?").\(property.name)"
        try within(element) {
            if let relationship = property as? NSRelationshipDescription {
                try linkRelationship(object, relationship)
            } else if let fetched = property as? NSFetchedPropertyDescription, let request = try object.object(forKey: "NSFetchRequest") {
                let entityName = try object.string(forKey: "_NSFetchRequestEntityName")
                fetched.fetchRequest = try fetchRequest(request, entityName: entityName)
            }
        }
    }

    private func linkRelationship(_ object: ArchivedObject, _ relationship: NSRelationshipDescription) throws {
        if let destinationObject = try object.object(forKey: "NSDestinationEntity") {
            guard let destination = entitiesByUID[destinationObject.uid] else {
                throw KeyedArchiveError(reason: "its destination (\(destinationObject)) is not one of the model's entities")
            }
            relationship.destinationEntity = destination
        } else if let name = try object.string(forKey: "_NSDestinationEntityName") {
            guard let destination = entityObjects.first(where: { $0.entity.name == name })?.entity else {
                throw KeyedArchiveError(reason: "its destination entity \"\(name)\" is not in the model")
            }
            relationship.destinationEntity = destination
        }
        if let inverseObject = try object.object(forKey: "NSInverseRelationship") {
            guard let inverse = propertiesByUID[inverseObject.uid] as? NSRelationshipDescription else {
                throw KeyedArchiveError(reason: "its inverse (\(inverseObject)) is not a relationship of the model")
            }
            relationship.inverseRelationship = inverse
        } else if let name = try object.string(forKey: "_NSInverseRelationshipName") {
            guard let inverse = relationship.destinationEntity?.propertiesByName[name] as? NSRelationshipDescription else {
                throw KeyedArchiveError(reason: "its inverse \"\(name)\" is not a relationship of its destination")
            }
            relationship.inverseRelationship = inverse
        }
    }

    private func fetchRequest(_ object: ArchivedObject, entityName: String?) throws -> NSFetchRequest<NSFetchRequestResult> {
        guard object.isKind(of: "NSFetchRequest") else {
            throw KeyedArchiveError(reason: "\(object) is not an NSFetchRequest")
        }
        let request = NSFetchRequest<NSFetchRequestResult>()
        if let entityObject = try object.object(forKey: "NSEntity") {
            guard let entity = entitiesByUID[entityObject.uid] else {
                throw KeyedArchiveError(reason: "the entity of \(object) (\(entityObject)) is not one of the model's entities")
            }
            request.entity = entity
            request.entityName = entity.name
        } else if let name = try object.string(forKey: "NSEntityName") ?? entityName {
            request.entityName = name
            request.entity = entityObjects.first { $0.entity.name == name }?.entity
        }
        if let predicate = try object.object(forKey: "NSPredicate") {
            request.predicate = try predicates.predicate(predicate)
        }
        if let list = try object.object(forKey: "NSSortDescriptors") {
            request.sortDescriptors = try list.collectionElements().map { element in
                let descriptor = try element.asObject("a sort descriptor of \(object)")
                guard descriptor.isKind(of: "NSSortDescriptor") else {
                    throw KeyedArchiveError(reason: "\(descriptor) is not an NSSortDescriptor")
                }
                return NSSortDescriptor(key: try descriptor.string(forKey: "NSKey"), ascending: try descriptor.bool(forKey: "NSAscending"),
                                        selectorName: try descriptor.string(forKey: "NSSelector") ?? "compare:")
            }
        }
        request.fetchLimit = try object.integer(forKey: "NSFetchLimit")
        request.fetchOffset = try object.integer(forKey: "NSFetchOffset")
        request.fetchBatchSize = try object.integer(forKey: "NSBatchSize")
        request.resultType = NSFetchRequestResultType(rawValue: UInt(truncatingIfNeeded: try object.integer(forKey: "NSResultType")))
        if let list = try object.object(forKey: "NSRelationshipKeyPathsForPrefetching") {
            request.relationshipKeyPathsForPrefetching = try list.collectionElements().map { element in
                guard let path = try element.stringValue() else {
                    throw KeyedArchiveError(reason: "a prefetching key path of \(object) is \(element.kindName)")
                }
                return path
            }
        }
        if let list = try object.object(forKey: "NSValuesToFetch") {
            request.propertiesToFetch = try list.collectionElements().map { element -> Any in
                if let name = try element.stringValue() { return name }
                let described = try element.asObject("a property to fetch of \(object)")
                guard let property = propertiesByUID[described.uid] else {
                    throw KeyedArchiveError(reason: "\(object) fetches \(described), which the model cannot represent as a property to fetch")
                }
                return property
            }
        }
        if try object.object(forKey: "NSValuesToGroupBy") != nil || object.object(forKey: "NSHavingPredicate") != nil {
            throw KeyedArchiveError(reason: "\(object) groups its results (NSValuesToGroupBy / NSHavingPredicate), which fetch requests cannot represent yet")
        }
        return request
    }

    private func decodeConstraintsAndIndexes(of object: ArchivedObject, into entity: NSEntityDescription) throws {
        try within("entity \(entity.name ?? "?")") {
            if let tuples = try object.object(forKey: "NSUniqueTuples") {
                entity.uniquenessConstraints = try tuples.collectionElements().map { tuple -> [Any] in
                    try tuple.asObject("a uniqueness constraint").collectionElements().map { element -> Any in
                        if let name = try element.stringValue() { return name }
                        let described = try element.asObject("a uniqueness constraint element")
                        guard let property = propertiesByUID[described.uid] else {
                            throw KeyedArchiveError(reason: "a uniqueness constraint names \(described), which is not a property of the model")
                        }
                        return property.name
                    }
                }
            }
            if let list = try object.object(forKey: "NSFetchIndexDescriptions") {
                entity.indexes = try list.collectionElements().map { try fetchIndex($0.asObject("a fetch index"), of: entity) }
            }
            if let list = try object.object(forKey: "NSCompoundIndexes") {
                // Every fetch index of several properties is listed here again; only the others
                // are compound indexes of their own.
                let fetchIndexes = Set(entity.indexes.filter { $0.elements.count > 1 }.map { $0.elements.compactMap(\.propertyName) })
                entity.compoundIndexes = try list.collectionElements().map { index -> [Any] in
                    try index.asObject("a compound index").collectionElements().map { element -> String in
                        guard let name = try element.stringValue() else {
                            throw KeyedArchiveError(reason: "a compound index holds \(element.kindName), not a property name")
                        }
                        return name
                    }
                }.filter { !fetchIndexes.contains($0.map { "\($0)" }) }
            }
        }
    }

    private func fetchIndex(_ object: ArchivedObject, of entity: NSEntityDescription) throws -> NSFetchIndexDescription {
        guard object.isKind(of: "NSFetchIndexDescription") else {
            throw KeyedArchiveError(reason: "\(object) is not an NSFetchIndexDescription")
        }
        let name = try object.string(forKey: "NSIndexName") ?? ""
        let elements = try object.object(forKey: "NSIndexElements").map { list in
            try list.collectionElements().map { value -> NSFetchIndexElementDescription in
                let element = try value.asObject("an element of the fetch index \(name)")
                let property: NSPropertyDescription
                if let propertyName = try element.string(forKey: "NSPropertyName") {
                    guard let found = entity.propertiesByName[propertyName] else {
                        throw KeyedArchiveError(reason: "the fetch index \(name) names the property \"\(propertyName)\", which the entity does not have")
                    }
                    property = found
                } else if let described = try element.object(forKey: "NSProperty"), let found = propertiesByUID[described.uid] {
                    property = found
                } else {
                    throw KeyedArchiveError(reason: "\(element) of the fetch index \(name) names no property")
                }
                let rawCollation = try element.integer(forKey: "NSFetchIndexElementType")
                guard rawCollation >= 0, let collation = NSFetchIndexElementDescription.CollationType(rawValue: UInt(rawCollation)) else {
                    throw KeyedArchiveError(reason: "\(element) has the unknown index type \(rawCollation)")
                }
                let description = NSFetchIndexElementDescription(property: property, collationType: collation)
                description.isAscending = element.contains("NSAscending") ? try element.bool(forKey: "NSAscending") : true
                return description
            }
        } ?? []
        let index = NSFetchIndexDescription(name: name, elements: elements)
        if let predicate = try object.object(forKey: "NSPartialIndexPredicate") {
            index.partialIndexPredicate = try predicates.predicate(predicate)
        }
        return index
    }

    // MARK: The model

    private func decodeModelLevel(of root: ArchivedObject, into model: NSManagedObjectModel) throws {
        try within(wholeElement) {
            if let identifiers = try root.object(forKey: "NSVersionIdentifiers") {
                var values = FoundationValueDecoder()
                let decoded = try values.decode(.object(identifiers))
                if let set = decoded as? Set<AnyHashable> {
                    model.versionIdentifiers = set
                } else if let array = decoded as? [Any] {
                    model.versionIdentifiers = Set(array.compactMap { $0 as? AnyHashable })
                } else {
                    throw KeyedArchiveError(reason: "NSVersionIdentifiers is \(identifiers), not a set")
                }
            }
        }
        if let configurations = try within(wholeElement, { try root.object(forKey: "NSConfigurations") }) {
            for (name, value) in try within(wholeElement, { try configurations.stringKeyedEntries() }) {
                try within("configuration \(name)") {
                    let members = try value.asObject("the configuration").collectionElements().map { member in
                        let object = try member.asObject("a member of the configuration")
                        guard let entity = entitiesByUID[object.uid] else {
                            throw KeyedArchiveError(reason: "\(object) is not one of the model's entities")
                        }
                        return entity
                    }
                    model.setEntities(members.sorted(by: Self.byName), forConfigurationName: name)
                }
            }
        }
        if let templates = try within(wholeElement, { try root.object(forKey: "NSFetchRequestTemplates") }) {
            for (name, value) in try within(wholeElement, { try templates.stringKeyedEntries() }) {
                try within("fetch request template \(name)") {
                    model.setFetchRequestTemplate(try fetchRequest(value.asObject("the template"), entityName: nil), forName: name)
                }
            }
        }
    }

    // MARK: Helpers

    private func renamingIdentifier(of object: ArchivedObject, name: String) throws -> String? {
        let identifier = try object.string(forKey: "NSRenamingIdentifier")
        return identifier == name ? nil : identifier
    }

    /// Runs `body`, turning an archive error into a `ModelFileError` about `element`.
    private func within<T>(_ element: String?, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as KeyedArchiveError {
            throw ModelFileError(file: source, element: element, reason: error.reason)
        }
    }

    private static func byName(_ lhs: NSEntityDescription, _ rhs: NSEntityDescription) -> Bool {
        (lhs.name ?? "") < (rhs.name ?? "")
    }
}
