import Foundation

/// Archives an `NSManagedObjectModel` as Core Data keeps it in a store's model cache
/// (`Z_MODELCACHE`, COREDATA-FORMAT.md §5): the inverse of `KeyedArchiveModelDecoder`.
///
/// ```swift
/// let archive = try KeyedArchiveModelEncoder.archive(model)
/// let blob = try RawDeflate.deflate(archive)          // Z_MODELCACHE.Z_CONTENT
/// ```
///
/// The layout follows the model caches Apple's Core Data wrote into the corpus stores, class
/// by class and key by key (a test compares the two archives of the same model):
/// - `NSManagedObjectModel`: `NSEntities` as an `NSKnownKeysDictionary1` (keys sorted, in the
///   `keys` of its `NSKnownKeysMappingStrategy1`), `NSVersionIdentifiers` (an `NSSet`),
///   `NSFetchRequestTemplates` (nil when there are none); `NSConfigurations` (an
///   `NSMutableDictionary` of name → `NSSet` of entities, as in SampleModel2's caches) when the
///   model has configurations.
/// - every entity lists all its properties in `NSProperties`, inherited ones as copies whose
///   `NSEntity` is the sub-entity; `NSRenamingIdentifier` is the name when none is set;
///   `NSUniqueTuples` appears only when there are constraints; `NSCompoundIndexes` repeats
///   every fetch index of several properties.
/// - every property carries `_P`, a bit set Core Data reads back: 0x01 always, 0x02 optional,
///   0x04 read-only (fetched and derived properties), 0x08 transient, 0x10 and 0x20 no
///   validation predicates, 0x40 no user info, 0x80 no version hash modifier, 0x400 an ordered
///   relationship. Every `_P` of the corpus archives fits these meanings; that 0x10 and 0x20
///   are two flags (predicates, warnings) rather than one is a guess, as they always go
///   together. Boolean keys (`NSIsOptional`, `NSIsTransient`, `NSIsIndexed`, `NSIsOrdered`) are
///   present only when true, as in Apple's archives.
/// - a minimum, maximum and regular expression become validation predicates (`length >= 3`,
///   `SELF MATCHES "…"`) whose warnings are their error codes; rules set with
///   `setValidationPredicates` follow with their warnings. A rule the archive cannot hold is
///   left out.
///
/// A value that cannot be archived — a transformable attribute's default value of an
/// application class — is left out, as the decoder leaves it out; a predicate the archive
/// cannot hold is an error (`KeyedArchiveEncodingError`).
struct KeyedArchiveModelEncoder {
    private var writer = KeyedArchiveWriter()
    private var entityReferences: [ObjectIdentifier: Int] = [:]
    /// The archived object of each property on the entity that declares it.
    private var declaredPropertyReferences: [ObjectIdentifier: Int] = [:]
    /// Each property's class chain and fields once archived: the copies on sub-entities share
    /// every value with the declared object (expressions, predicates, defaults), as in Apple's
    /// archives, and differ only in `NSEntity`.
    private var encodedProperties: [ObjectIdentifier: (classes: [String], fields: [String: PropertyListValue])] = [:]

    /// The keyed archive of `model` in the model cache's layout.
    static func archive(_ model: NSManagedObjectModel) throws -> Data {
        var encoder = KeyedArchiveModelEncoder()
        return try encoder.encode(model)
    }

    private mutating func encode(_ model: NSManagedObjectModel) throws -> Data {
        let root = writer.reserve()
        let entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        for entity in entities { entityReferences[ObjectIdentifier(entity)] = writer.reserve() }
        for entity in entities {
            for property in entity.properties { declaredPropertyReferences[ObjectIdentifier(property)] = writer.reserve() }
        }
        for entity in entities { try encodeEntity(entity, model: root) }

        let names = entities.map { writer.string($0.name ?? "") }
        let keys = writer.array(names)
        let mapping = writer.object(["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"], [
            "keys": keys, "length": .integer(Int64(entities.count)), "version": .integer(1),
        ])
        let values = writer.array(entities.map { reference(to: $0) })
        let entityDictionary = writer.object(
            ["NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"], [
                "searchMapping": mapping, "values": values, "version": .integer(1),
                "emptyToken": writer.string("__empty_slot_token_4c24_98dc_ac1e_b773__"),
            ])
        var fields: [String: PropertyListValue] = [
            "NSEntities": entityDictionary,
            "NSVersionIdentifiers": writer.set(try model.versionIdentifiers
                .sorted { String(describing: $0) < String(describing: $1) }
                .map { try writer.foundationValue($0.base) }),
            "NSFetchRequestTemplates": try fetchRequestTemplates(of: model),
        ]
        if !model.configurations.isEmpty {
            let names = model.configurations
            let members = names.map { name in
                writer.set((model.entities(forConfigurationName: name) ?? []).compactMap { entityReferences[ObjectIdentifier($0)].map(PropertyListValue.uid) })
            }
            fields["NSConfigurations"] = writer.dictionary(keys: names.map { writer.string($0) }, values: members, mutable: true)
        }
        writer.fill(root, classes: ["NSManagedObjectModel", "NSObject"], fields: fields)
        return writer.archive(root: root)
    }

    private func reference(to entity: NSEntityDescription?) -> PropertyListValue {
        guard let entity, let uid = entityReferences[ObjectIdentifier(entity)] else { return KeyedArchiveWriter.null }
        return .uid(uid)
    }

    private mutating func fetchRequestTemplates(of model: NSManagedObjectModel) throws -> PropertyListValue {
        let templates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }
        guard !templates.isEmpty else { return KeyedArchiveWriter.null }
        var keys: [PropertyListValue] = [], values: [PropertyListValue] = []
        for (name, request) in templates {
            keys.append(writer.string(name))
            let entity = request.entity ?? request.entityName.flatMap { model.entitiesByName[$0] }
            values.append(try KeyedArchivePredicateEncoder.fetchRequest(request, entity: reference(to: entity), into: &writer))
        }
        return writer.dictionary(keys: keys, values: values)
    }

    // MARK: Entities

    private mutating func encodeEntity(_ entity: NSEntityDescription, model root: Int) throws {
        let name = entity.name ?? ""
        var propertyNames: [PropertyListValue] = [], propertyObjects: [PropertyListValue] = []
        for property in entity.allProperties {
            propertyNames.append(writer.string(property.name))
            propertyObjects.append(try encodeProperty(property, in: entity))
        }
        let subentities = entity.subentities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        var fields: [String: PropertyListValue] = [
            "NSEntityName": writer.string(name),
            "NSClassNameForEntity": writer.string(entity.managedObjectClassName == "NSManagedObject" ? nil : entity.managedObjectClassName),
            "NSProperties": writer.dictionary(keys: propertyNames, values: propertyObjects, mutable: true),
            "NSSubentities": writer.dictionary(keys: subentities.map { writer.string($0.name ?? "") },
                                               values: subentities.map { reference(to: $0) }, mutable: true),
            "NSSuperentity": reference(to: entity.superentity),
            "NSManagedObjectModel": .uid(root),
            "NSUserInfo": try userInfo(entity.userInfo) ?? writer.shared("emptyDictionary") { $0.dictionary(keys: [], values: []) },
            "NSVersionHashModifier": writer.string(entity.versionHashModifier),
            "NSRenamingIdentifier": writer.string(entity.renamingIdentifier ?? name),
            "NSFetchIndexDescriptions": writer.array(try entity.indexes.map { try fetchIndex($0, of: entity) }, mutable: true),
            "NSCompoundIndexes": writer.array(compoundIndexes(of: entity).map { names in
                writer.array(names.map { writer.string($0) }, mutable: true)
            }, mutable: true),
        ]
        if entity.isAbstract { fields["NSIsAbstract"] = .bool(true) }
        if !entity.uniquenessConstraints.isEmpty {
            fields["NSUniqueTuples"] = writer.array(entity.uniquenessConstraints.map { tuple in
                writer.array(tuple.map { writer.string(Self.propertyName(of: $0)) }, mutable: true)
            }, mutable: true)
        }
        writer.fill(entityReferences[ObjectIdentifier(entity)]!, classes: ["NSEntityDescription", "NSObject"], fields: fields)
    }

    /// The legacy compound indexes, then every fetch index of several properties again.
    private func compoundIndexes(of entity: NSEntityDescription) -> [[String]] {
        let legacy = entity.compoundIndexes.map { $0.map(Self.propertyName(of:)) }
        let fromFetchIndexes = entity.indexes.filter { $0.elements.count > 1 }.map { index in
            index.elements.map { $0.propertyName ?? $0.property?.name ?? "" }
        }
        return legacy + fromFetchIndexes
    }

    private static func propertyName(of element: Any) -> String {
        (element as? NSPropertyDescription)?.name ?? (element as? String) ?? String(describing: element)
    }

    private mutating func fetchIndex(_ index: NSFetchIndexDescription, of entity: NSEntityDescription) throws -> PropertyListValue {
        let uid = writer.reserve()
        let elements = index.elements.map { element in
            writer.object(["NSFetchIndexElementDescription", "NSObject"], [
                "NSPropertyName": writer.string(element.propertyName ?? element.property?.name),
                "NSFetchIndexElementType": .integer(Int64(element.collationType.rawValue)),
                "NSAscending": .bool(element.isAscending),
                "NSFetchIndexDescription": .uid(uid),
            ])
        }
        let partial = try index.partialIndexPredicate.map { try KeyedArchivePredicateEncoder.predicate($0, into: &writer) }
        writer.fill(uid, classes: ["NSFetchIndexDescription", "NSObject"], fields: [
            "NSIndexName": writer.string(index.name),
            // An NSArray in all but one corpus archive (SampleModel_V2's, an NSMutableArray).
            "NSIndexElements": writer.array(elements),
            "NSPartialIndexPredicate": partial ?? KeyedArchiveWriter.null,
            "NSEntity": reference(to: entity),
        ])
        return .uid(uid)
    }

    // MARK: Properties

    /// The property as listed by `entity`: the declared object on the entity that declares it,
    /// a copy on each entity that inherits it.
    private mutating func encodeProperty(_ property: NSPropertyDescription, in entity: NSEntityDescription) throws -> PropertyListValue {
        var (classes, fields) = try encodedFields(of: property)
        fields["NSEntity"] = reference(to: entity)
        if property.entity === entity, let uid = declaredPropertyReferences[ObjectIdentifier(property)] {
            writer.fill(uid, classes: classes, fields: fields)
            return .uid(uid)
        }
        return writer.object(classes, fields)
    }

    private mutating func encodedFields(of property: NSPropertyDescription) throws -> (classes: [String], fields: [String: PropertyListValue]) {
        if let encoded = encodedProperties[ObjectIdentifier(property)] { return encoded }
        var fields = try commonFields(of: property)
        let classes: [String]
        switch property {
        case let relationship as NSRelationshipDescription:
            classes = ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"]
            relationshipFields(of: relationship, into: &fields)
        case let derived as NSDerivedAttributeDescription:
            classes = ["NSDerivedAttributeDescription", "NSAttributeDescription", "NSPropertyDescription", "NSObject"]
            try attributeFields(of: derived, into: &fields)
            guard let expression = derived.derivationExpression else {
                // Only its format is known (one the parser cannot read): an archive without the
                // expression would describe another attribute.
                throw KeyedArchiveEncodingError(reason: "the derived attribute \(derived) has no derivation expression to archive")
            }
            fields["NSDerivationExpression"] = try KeyedArchivePredicateEncoder.expression(expression, into: &writer)
            fields["NSFilteringPredicate"] = KeyedArchiveWriter.null
        case let attribute as NSAttributeDescription:
            classes = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
            try attributeFields(of: attribute, into: &fields)
            if let composite = attribute as? NSCompositeAttributeDescription {
                // Under a key of OpenCoreData's own: Apple's archive of a composite is not
                // known, and a reader that does not know the key still finds an attribute.
                // Counted as nesting, so that a composite containing itself is refused.
                try writer.enterNesting("the composite attribute \(composite.name)")
                defer { writer.leaveNesting() }
                var elements: [PropertyListValue] = []
                for element in composite.elements {
                    let (elementClasses, elementFields) = try encodedFields(of: element)
                    elements.append(writer.object(elementClasses, elementFields))
                }
                fields[KeyedArchiveModelDecoder.compositeElementsKey] = writer.array(elements)
            }
        case let fetched as NSFetchedPropertyDescription:
            classes = ["NSFetchedPropertyDescription", "NSPropertyDescription", "NSObject"]
            if let request = fetched.fetchRequest {
                let target = request.entity ?? request.entityName.flatMap { fetched.entity?.managedObjectModel?.entitiesByName[$0] }
                fields["NSFetchRequest"] = try KeyedArchivePredicateEncoder.fetchRequest(request, entity: reference(to: target), into: &writer)
                fields["_NSFetchRequestEntityName"] = writer.string(target?.name ?? request.entityName)
            }
        default:
            throw KeyedArchiveEncodingError(reason: "the property \(property) is of a kind a model archive cannot hold")
        }
        encodedProperties[ObjectIdentifier(property)] = (classes, fields)
        return (classes, fields)
    }

    private mutating func commonFields(of property: NSPropertyDescription) throws -> [String: PropertyListValue] {
        let readOnly = property is NSFetchedPropertyDescription || property is NSDerivedAttributeDescription
        // Core Data's fetched properties are always optional and transient.
        let optional = property.isOptional || property is NSFetchedPropertyDescription
        let transient = property.isTransient || property is NSFetchedPropertyDescription
        // A rule the archive cannot hold (a block predicate) is left out of it, not the whole
        // model: validation rules play no part in a store's compatibility or migration.
        var validation: [PropertyListValue] = [], warnings: [PropertyListValue] = []
        for (predicate, warning) in zip(property.validationPredicates, property.validationWarnings) {
            // Tried on a writer of its own first, so that a failure leaves nothing half written.
            var probe = KeyedArchiveWriter()
            guard (try? KeyedArchivePredicateEncoder.predicate(predicate, into: &probe)) != nil,
                  (try? probe.foundationValue(warning)) != nil else { continue }
            validation.append(try KeyedArchivePredicateEncoder.predicate(predicate, into: &writer))
            warnings.append(try writer.foundationValue(warning))
        }
        let userInfo = try userInfo(property.userInfo)
        let ordered = (property as? NSRelationshipDescription)?.isOrdered ?? false

        var flags: Int64 = 0x01
        if optional { flags |= 0x02 }
        if readOnly { flags |= 0x04 }
        if transient { flags |= 0x08 }
        if validation.isEmpty { flags |= 0x30 }
        if userInfo == nil { flags |= 0x40 }
        if property.versionHashModifier == nil { flags |= 0x80 }
        if ordered { flags |= 0x400 }

        var fields: [String: PropertyListValue] = [
            "NSPropertyName": writer.string(property.name),
            "NSRenamingIdentifier": writer.string(property.renamingIdentifier ?? property.name),
            "_P": .integer(flags),
        ]
        // Room for every field an attribute or relationship adds: growing was a tenth of this.
        fields.reserveCapacity(32)
        if optional { fields["NSIsOptional"] = .bool(true) }
        if transient { fields["NSIsTransient"] = .bool(true) }
        if readOnly { fields["NSIsReadOnly"] = .bool(true) }
        if property.isIndexed { fields["NSIsIndexed"] = .bool(true) }
        if let userInfo { fields["NSUserInfo"] = userInfo }
        if let modifier = property.versionHashModifier { fields["NSVersionHashModifier"] = writer.string(modifier) }
        if !validation.isEmpty {
            fields["NSValidationPredicates"] = writer.array(validation)
            fields["NSValidationWarnings"] = writer.array(warnings)
        }
        return fields
    }

    private mutating func attributeFields(of attribute: NSAttributeDescription, into fields: inout [String: PropertyListValue]) throws {
        fields["NSAttributeType"] = .integer(Int64(attribute.attributeType.rawValue))
        fields["NSAttributeValueClassName"] = writer.string(attribute.attributeValueClassName ?? Self.valueClassName(of: attribute.attributeType))
        fields["NSValueTransformerName"] = writer.string(attribute.valueTransformerName)
        // A transformable attribute's default value of an application's own class cannot be
        // archived here; it is left out, as the decoder leaves it out. Any other is archived.
        if attribute.attributeType == .transformableAttributeType {
            fields["NSDefaultValue"] = (try? writer.foundationValue(attribute.defaultValue)) ?? KeyedArchiveWriter.null
        } else {
            fields["NSDefaultValue"] = try writer.foundationValue(attribute.defaultValue)
        }
        var attributeFlags: Int64 = 0
        if attribute.allowsExternalBinaryDataStorage { attributeFlags |= 0x04 }
        if attribute.preservesValueInHistoryOnDeletion { attributeFlags |= 0x10 }
        fields["NSFlagsKey"] = .integer(attributeFlags)
    }

    private mutating func relationshipFields(of relationship: NSRelationshipDescription, into fields: inout [String: PropertyListValue]) {
        fields["NSDestinationEntity"] = reference(to: relationship.destinationEntity)
        fields["_NSDestinationEntityName"] = writer.string(relationship.destinationEntity?.name)
        if let inverse = relationship.inverseRelationship, let uid = declaredPropertyReferences[ObjectIdentifier(inverse)] {
            fields["NSInverseRelationship"] = .uid(uid)
        } else {
            fields["NSInverseRelationship"] = KeyedArchiveWriter.null
        }
        fields["_NSInverseRelationshipName"] = writer.string(relationship.inverseRelationship?.name)
        fields["NSMinCount"] = .integer(Self.archivedCount(relationship.minCount))
        fields["NSMaxCount"] = .integer(Self.archivedCount(relationship.maxCount))
        fields["NSDeleteRule"] = .integer(Int64(relationship.deleteRule.rawValue))
        if relationship.isOrdered { fields["NSIsOrdered"] = .bool(true) }
    }

    /// Counts are archived in 32 bits: "no limit" set as `Int.max` becomes -1.
    private static func archivedCount(_ count: Int) -> Int64 {
        count > Int(Int32.max) ? -1 : Int64(count)
    }

    private mutating func userInfo(_ info: [AnyHashable: Any]?) throws -> PropertyListValue? {
        guard let info, !info.isEmpty else { return nil }
        return try writer.foundationValue(info)
    }

    /// The class Core Data reports for values of `type` when the model names none.
    private static func valueClassName(of type: NSAttributeType) -> String? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
             .doubleAttributeType, .floatAttributeType, .booleanAttributeType: "NSNumber"
        case .decimalAttributeType: "NSDecimalNumber"
        case .stringAttributeType: "NSString"
        case .dateAttributeType: "NSDate"
        case .binaryDataAttributeType: "NSData"
        case .UUIDAttributeType: "NSUUID"
        case .URIAttributeType: "NSURL"
        default: nil
        }
    }
}
