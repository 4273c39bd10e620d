import Foundation

/// Builds an `NSManagedObjectModel` from the `contents` XML of an Xcode `.xcdatamodel`.
///
/// Reads what every Xcode era writes (4.3's `syncable` and `minimumToolsVersion` to 16's
/// `usedWithSwiftData`). Attributes that change nothing at run time (`syncable`,
/// `sourceLanguage`, diagram `elements`, …) are accepted and ignored, `usesScalarValueType` and
/// `codeGenerationType` kept for `ocd codegen` only; anything that would change the model's
/// meaning and cannot be read is an error naming the line.
struct XcodeModelDecoder {
    let file: URL

    private var entitiesByName: [String: NSEntityDescription] = [:]
    /// The model's `<composite>` declarations by name, which composite attributes name.
    private var compositeNodes: [String: XMLElementNode] = [:]
    /// References resolved once every entity exists.
    private var pendingParents: [(entity: NSEntityDescription, parent: String, line: Int)] = []
    private var pendingRelationships: [(relationship: NSRelationshipDescription, node: XMLElementNode)] = []
    private var pendingIndexes: [(entity: NSEntityDescription, node: XMLElementNode)] = []
    private var pendingFetchedProperties: [(property: NSFetchedPropertyDescription, node: XMLElementNode)] = []

    init(file: URL) {
        self.file = file
    }

    /// Decodes the model held by `root` (the `<model>` element) into `model`.
    mutating func decode(_ root: XMLElementNode, into model: NSManagedObjectModel) throws {
        guard root.name == "model" else {
            throw error(at: root, "expected a <model> element, found <\(root.name)>")
        }
        if let identifier = root["userDefinedModelVersionIdentifier"] {
            // Core Data records an empty identifier too (`[""]` in store metadata).
            model.versionIdentifiers = [identifier]
        }
        for node in root.children(named: "composite") {
            let name = try required("name", of: node, element: "composite")
            guard compositeNodes[name] == nil else { throw error(at: node, element: "composite \(name)", "a second composite has this name") }
            compositeNodes[name] = node
        }
        var entities: [NSEntityDescription] = []
        for node in root.children(named: "entity") {
            let entity = try decodeEntity(node)
            guard entitiesByName[entity.name!] == nil else {
                throw error(at: node, element: "entity \(entity.name!)", "a second entity has this name")
            }
            entitiesByName[entity.name!] = entity
            entities.append(entity)
        }
        try resolveParents()
        try resolveRelationships()
        try resolveIndexes()
        model.entities = entities
        for node in root.children(named: "configuration") {
            try decodeConfiguration(node, into: model)
        }
        for node in root.children(named: "fetchRequest") {
            let name = try required("name", of: node, element: "fetch request")
            model.setFetchRequestTemplate(try decodeFetchRequest(node, element: "fetch request \(name)"), forName: name)
        }
        for (property, node) in pendingFetchedProperties {
            guard let request = node.child(named: "fetchRequest") else { continue }
            property.fetchRequest = try decodeFetchRequest(request, element: "\(property.entity?.name ?? "?").\(property.name)")
        }
    }

    // MARK: Entities

    private mutating func decodeEntity(_ node: XMLElementNode) throws -> NSEntityDescription {
        let name = try required("name", of: node, element: "entity")
        let entity = NSEntityDescription(name: name)
        entity.managedObjectClassName = node["representedClassName"] ?? "NSManagedObject"
        entity.isAbstract = node.flag("isAbstract")
        entity.codeGenerationType = node["codeGenerationType"]
        entity.versionHashModifier = node["versionHashModifier"]
        entity.renamingIdentifier = node["elementID"] ?? node["renamingIdentifier"]
        entity.userInfo = try decodeUserInfo(of: node)
        if let parent = node["parentEntity"] { pendingParents.append((entity, parent, node.line)) }
        var properties: [NSPropertyDescription] = []
        var names = Set<String>()
        for child in node.children {
            let property: NSPropertyDescription
            switch child.name {
            case "attribute": property = try decodeAttribute(child, entity: name)
            case "relationship": property = try decodeRelationship(child, entity: name)
            case "fetchedProperty": property = try decodeFetchedProperty(child, entity: name)
            case "uniquenessConstraints":
                entity.uniquenessConstraints = try decodeNameLists(child, list: "uniquenessConstraint", item: "constraint",
                                                                   element: "entity \(name)")
                continue
            case "compoundIndexes":
                entity.compoundIndexes = try decodeNameLists(child, list: "compoundIndex", item: "index", element: "entity \(name)")
                continue
            case "fetchIndex":
                pendingIndexes.append((entity, child))
                continue
            default:
                continue
            }
            guard names.insert(property.name).inserted else {
                throw error(at: child, element: "\(name).\(property.name)", "the entity has a second property with this name")
            }
            properties.append(property)
        }
        entity.properties = properties
        return entity
    }

    private func resolveParents() throws {
        for (entity, parentName, line) in pendingParents {
            guard let parent = entitiesByName[parentName] else {
                throw ModelFileError(file: file, line: line, element: "entity \(entity.name!)",
                                     reason: "the parent entity \"\(parentName)\" is not in the model")
            }
            var ancestor: NSEntityDescription? = parent
            var seen: Set<ObjectIdentifier> = []
            while let current = ancestor {
                // Back at the entity, or in a loop above it: either way the chain never ends.
                if current === entity || !seen.insert(ObjectIdentifier(current)).inserted {
                    throw ModelFileError(file: file, line: line, element: "entity \(entity.name!)",
                                         reason: "the entity inherits from itself")
                }
                ancestor = pendingParents.first { $0.entity === current }.flatMap { entitiesByName[$0.parent] }
            }
            parent.subentities = parent.subentities + [entity]
        }
    }

    // MARK: Attributes

    /// `entity`: where the attribute is, for messages (`Quake`, or `Quake.magnitude` for an
    /// element); `composites`: the composites being decoded around it, to catch one that
    /// contains itself.
    private func decodeAttribute(_ node: XMLElementNode, entity: String, composites: [String] = []) throws -> NSAttributeDescription {
        let name = try required("name", of: node, element: "attribute of \(entity)")
        let element = "\(entity).\(name)"
        let typeName = try required("attributeType", of: node, element: element)
        guard let type = NSAttributeType.allCases.first(where: { $0.modelName == typeName }) else {
            throw error(at: node, element: element, "unknown attribute type \"\(typeName)\"")
        }
        let attribute: NSAttributeDescription
        if type == .compositeAttributeType {
            attribute = try decodeComposite(node, named: name, element: element, composites: composites)
        } else if node.flag("derived") {
            let derived = NSDerivedAttributeDescription(name: name, type: type)
            if let format = node["derivationExpression"] {
                derived.derivationExpressionFormat = format
                var parser = try? PredicateFormatParser(format: format, arguments: [])
                derived.derivationExpression = try? parser?.parseStandaloneExpression()
            }
            attribute = derived
        } else {
            attribute = NSAttributeDescription(name: name, type: type)
        }
        try decodeCommonProperty(node, into: attribute)
        attribute.allowsExternalBinaryDataStorage = node.flag("allowsExternalBinaryDataStorage")
        attribute.preservesValueInHistoryOnDeletion = node.flag("preserveAfterDeletion")
        attribute.allowsCloudEncryption = node.flag("allowsCloudEncryption")
        attribute.valueTransformerName = node["valueTransformerName"]
        attribute.attributeValueClassName = node["customClassName"]
        attribute.usesScalarValueType = node["usesScalarValueType"].map { $0 == "YES" }
        attribute.regularExpression = node["regularExpressionString"]
        attribute.defaultValue = try value(node, string: "defaultValueString", date: "defaultDateTimeInterval", type: type, element: element)
        attribute.minValue = try bound(node, string: "minValueString", date: "minDateTimeInterval", type: type, element: element)
        attribute.maxValue = try bound(node, string: "maxValueString", date: "maxDateTimeInterval", type: type, element: element)
        return attribute
    }

    /// A composite attribute: its elements are the attributes of the `<composite>` its
    /// `composite` names, each use with elements of its own.
    private func decodeComposite(_ node: XMLElementNode, named name: String, element: String,
                                 composites: [String]) throws -> NSCompositeAttributeDescription {
        let compositeName = try required("composite", of: node, element: element)
        guard let declaration = compositeNodes[compositeName] else {
            throw error(at: node, element: element, "the model declares no composite named \"\(compositeName)\"")
        }
        guard !composites.contains(compositeName) else {
            throw error(at: node, element: element, "the composite \"\(compositeName)\" contains itself")
        }
        let composite = NSCompositeAttributeDescription(name: name, type: .compositeAttributeType)
        composite.elements = try declaration.children(named: "attribute").map { child in
            try decodeAttribute(child, entity: element, composites: composites + [compositeName])
        }
        return composite
    }

    /// A default value as Core Data holds it: `NSNumber` for numbers and Booleans, `Decimal`,
    /// `String`, `Date`, `UUID`, `URL`.
    private func value(_ node: XMLElementNode, string key: String, date dateKey: String, type: NSAttributeType,
                       element: String) throws -> Any? {
        if type == .dateAttributeType, let interval = node[dateKey] {
            guard let seconds = Double(interval) else { throw error(at: node, element: element, "\(dateKey) \"\(interval)\" is not a number") }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        // An empty value string (older Xcode files have some) means no value, except for strings.
        guard let text = node[key], !text.isEmpty || type == .stringAttributeType else { return nil }
        func invalid() -> ModelFileError {
            error(at: node, element: element, "\(key) \"\(text)\" is not a valid \(type.modelName) value")
        }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            guard let number = Int64(text.trimmingCharacters(in: .whitespaces)) ?? Double(text).flatMap({ Int64(exactly: $0) })
            else { throw invalid() }
            return NSNumber(value: number)
        case .doubleAttributeType, .floatAttributeType:
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else { throw invalid() }
            return NSNumber(value: number)
        case .decimalAttributeType:
            guard let number = Decimal(string: text.trimmingCharacters(in: .whitespaces)) else { throw invalid() }
            return number
        case .booleanAttributeType:
            switch text.uppercased() {
            case "YES", "TRUE", "1": return NSNumber(value: true)
            case "NO", "FALSE", "0": return NSNumber(value: false)
            default: throw invalid()
            }
        case .stringAttributeType:
            return text
        case .UUIDAttributeType:
            guard let uuid = UUID(uuidString: text) else { throw invalid() }
            return uuid
        case .URIAttributeType:
            guard let url = URL(string: text) else { throw invalid() }
            return url
        case .dateAttributeType:
            guard let seconds = Double(text) else { throw invalid() }
            return Date(timeIntervalSinceReferenceDate: seconds)
        default:
            // Binary, Transformable and the rest have no textual default in Xcode.
            return nil
        }
    }

    /// A minimum or maximum: a number for numbers, a length for strings and binary data, a date
    /// for dates.
    private func bound(_ node: XMLElementNode, string key: String, date dateKey: String, type: NSAttributeType,
                       element: String) throws -> Any? {
        switch type {
        case .stringAttributeType, .binaryDataAttributeType, .transformableAttributeType:
            guard let text = node[key] else { return nil }
            guard let length = Int(text) else { throw error(at: node, element: element, "\(key) \"\(text)\" is not a length") }
            return NSNumber(value: length)
        default:
            return try value(node, string: key, date: dateKey, type: type, element: element)
        }
    }

    // MARK: Relationships

    private mutating func decodeRelationship(_ node: XMLElementNode, entity: String) throws -> NSRelationshipDescription {
        let name = try required("name", of: node, element: "relationship of \(entity)")
        let element = "\(entity).\(name)"
        let relationship = NSRelationshipDescription(name: name, toMany: node.flag("toMany"))
        try decodeCommonProperty(node, into: relationship)
        relationship.isOrdered = node.flag("ordered")
        relationship.deleteRule = try deleteRule(node["deletionRule"] ?? "Nullify", node: node, element: element)
        if let text = node["minCount"] {
            guard let count = Int(text), count >= 0 else { throw error(at: node, element: element, "minCount \"\(text)\" is not a count") }
            relationship.minCount = count
        }
        if let text = node["maxCount"] {
            guard let count = Int(text), count >= 0 else { throw error(at: node, element: element, "maxCount \"\(text)\" is not a count") }
            // A to-one is written with maxCount 1; a to-many keeps its maximum (none = 0).
            relationship.maxCount = node.flag("toMany") ? count : 1
        }
        pendingRelationships.append((relationship, node))
        return relationship
    }

    private func deleteRule(_ text: String, node: XMLElementNode, element: String) throws -> NSDeleteRule {
        switch text {
        case "Nullify": .nullifyDeleteRule
        case "Cascade": .cascadeDeleteRule
        case "Deny": .denyDeleteRule
        case "No Action": .noActionDeleteRule
        default: throw error(at: node, element: element, "unknown deletion rule \"\(text)\"")
        }
    }

    private func resolveRelationships() throws {
        for (relationship, node) in pendingRelationships {
            let element = "\(relationship.entity?.name ?? "?").\(relationship.name)"
            let destinationName = try required("destinationEntity", of: node, element: element)
            guard let destination = entitiesByName[destinationName] else {
                throw error(at: node, element: element,
                            "the destination entity \"\(destinationName)\" is not in the model")
            }
            relationship.destinationEntity = destination
            guard let inverseName = node["inverseName"] else { continue }
            let inverseEntityName = node["inverseEntity"] ?? destinationName
            guard let inverseEntity = entitiesByName[inverseEntityName] else {
                throw error(at: node, element: element, "the inverse entity \"\(inverseEntityName)\" is not in the model")
            }
            guard let inverse = inverseEntity.relationshipsByName[inverseName] else {
                throw error(at: node, element: element,
                            "the inverse relationship \"\(inverseName)\" is not a relationship of \(inverseEntityName)")
            }
            relationship.inverseRelationship = inverse
        }
    }

    // MARK: Fetched properties and fetch requests

    private mutating func decodeFetchedProperty(_ node: XMLElementNode, entity: String) throws -> NSFetchedPropertyDescription {
        let name = try required("name", of: node, element: "fetched property of \(entity)")
        let property = NSFetchedPropertyDescription(name: name)
        try decodeCommonProperty(node, into: property)
        pendingFetchedProperties.append((property, node))
        return property
    }

    private func decodeFetchRequest(_ node: XMLElementNode, element: String) throws -> NSFetchRequest<NSFetchRequestResult> {
        let entityName = try required("entity", of: node, element: element)
        guard let entity = entitiesByName[entityName] else {
            throw error(at: node, element: element, "the entity \"\(entityName)\" is not in the model")
        }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        request.entity = entity
        if let format = node["predicateString"], !format.isEmpty {
            do {
                var parser = try PredicateFormatParser(format: format, arguments: [])
                request.predicate = NSPredicate(wrapping: try parser.parse())
            } catch {
                throw self.error(at: node, element: element, "its predicate cannot be read: \(error)")
            }
        }
        if let limit = node["fetchLimit"].flatMap(Int.init) { request.fetchLimit = limit }
        if let size = node["fetchBatchSize"].flatMap(Int.init) { request.fetchBatchSize = size }
        if let value = node["includeSubentities"] { request.includesSubentities = value == "YES" }
        if let value = node["includesPendingChanges"] { request.includesPendingChanges = value == "YES" }
        if let value = node["returnObjectsAsFaults"] { request.returnsObjectsAsFaults = value == "YES" }
        if let value = node["includePropertyValues"] { request.includesPropertyValues = value == "YES" }
        if let value = node["returnDistinctResults"] { request.returnsDistinctResults = value == "YES" }
        return request
    }

    // MARK: Indexes, constraints, configurations

    private func resolveIndexes() throws {
        for (entity, node) in pendingIndexes {
            let name = try required("name", of: node, element: "fetch index of \(entity.name!)")
            let element = "index \(entity.name!).\(name)"
            var elements: [NSFetchIndexElementDescription] = []
            let items = node.children(named: "fetchIndexElement")
            // Indexes on expressions are not supported yet; an index only speeds fetches up, so
            // such an index is left out rather than refusing the model (see Docs/Differences.md).
            if items.contains(where: { $0["property"] == nil }) { continue }
            for item in items {
                let propertyName = try required("property", of: item, element: element)
                guard let property = entity.propertiesByName[propertyName] else {
                    throw error(at: item, element: element, "\"\(propertyName)\" is not a property of \(entity.name!)")
                }
                let collation: NSFetchIndexElementDescription.CollationType = item["type"] == "RTree" ? .rTree : .binary
                let description = NSFetchIndexElementDescription(property: property, collationType: collation)
                description.isAscending = item["order"] != "descending"
                elements.append(description)
            }
            entity.indexes = entity.indexes + [NSFetchIndexDescription(name: name, elements: elements)]
        }
    }

    private func decodeNameLists(_ node: XMLElementNode, list: String, item: String, element: String) throws -> [[Any]] {
        try node.children(named: list).map { group in
            try group.children(named: item).map { try required("value", of: $0, element: element) as Any }
        }
    }

    private func decodeConfiguration(_ node: XMLElementNode, into model: NSManagedObjectModel) throws {
        let name = try required("name", of: node, element: "configuration")
        let members = try node.children(named: "memberEntity").map { member -> NSEntityDescription in
            let entityName = try required("name", of: member, element: "configuration \(name)")
            guard let entity = entitiesByName[entityName] else {
                throw error(at: member, element: "configuration \(name)", "the entity \"\(entityName)\" is not in the model")
            }
            return entity
        }
        model.setEntities(members, forConfigurationName: name)
    }

    // MARK: Shared pieces

    private func decodeCommonProperty(_ node: XMLElementNode, into property: NSPropertyDescription) throws {
        // Xcode writes `optional="YES"` only for optional properties.
        property.isOptional = node.flag("optional")
        property.isTransient = node.flag("transient")
        property.isIndexed = node.flag("indexed")
        property.isIndexedBySpotlight = node.flag("spotlightIndexingEnabled")
        property.storedInExternalRecord = node.flag("storedInTruthFile")
        property.versionHashModifier = node["versionHashModifier"]
        property.renamingIdentifier = node["elementID"] ?? node["renamingIdentifier"]
        property.userInfo = try decodeUserInfo(of: node)
    }

    private func decodeUserInfo(of node: XMLElementNode) throws -> [AnyHashable: Any]? {
        guard let info = node.child(named: "userInfo") else { return nil }
        var result: [AnyHashable: Any] = [:]
        for entry in info.children(named: "entry") {
            let key = try required("key", of: entry, element: "userInfo entry")
            result[key] = entry["value"] ?? ""
        }
        return result
    }

    private func required(_ attribute: String, of node: XMLElementNode, element: String) throws -> String {
        guard let value = node[attribute], !value.isEmpty else {
            throw error(at: node, element: element, "the <\(node.name)> element has no \(attribute)")
        }
        return value
    }

    private func error(at node: XMLElementNode, element: String? = nil, _ reason: String) -> ModelFileError {
        ModelFileError(file: file, line: node.line, element: element, reason: reason)
    }
}
