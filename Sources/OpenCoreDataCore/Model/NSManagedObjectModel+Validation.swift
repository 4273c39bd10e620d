/// Something wrong (or doubtful) in a model, found by `NSManagedObjectModel.validate()`.
public struct ModelIssue: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: Sendable { case error, warning }
    public let severity: Severity
    /// The entity concerned.
    public let entity: String
    /// The property concerned, if any.
    public let property: String?
    /// What is wrong, in words.
    public let reason: String

    public var description: String {
        let place = property.map { "\(entity).\($0)" } ?? entity
        return "\(severity == .error ? "error" : "warning"): \(place): \(reason)"
    }
}

/// A model that cannot be used, with every error found.
public struct ModelValidationError: Error, CustomStringConvertible {
    public let issues: [ModelIssue]
    public var description: String {
        "The managed object model is not valid:\n" + issues.map { "  \($0)" }.joined(separator: "\n")
    }
}

extension NSManagedObjectModel {
    /// Every problem in the model: errors that make it unusable, and warnings (such as a
    /// relationship without an inverse, which Core Data allows but which breaks inverse
    /// maintenance and delete rules).
    public func validationIssues() -> [ModelIssue] {
        var issues: [ModelIssue] = []
        func error(_ entity: String, _ property: String?, _ reason: String) {
            issues.append(ModelIssue(severity: .error, entity: entity, property: property, reason: reason))
        }
        func warning(_ entity: String, _ property: String?, _ reason: String) {
            issues.append(ModelIssue(severity: .warning, entity: entity, property: property, reason: reason))
        }

        var seenEntityNames: Set<String> = []
        for entity in entities {
            guard let name = entity.name, !name.isEmpty else {
                error("<unnamed>", nil, "an entity has no name")
                continue
            }
            if !seenEntityNames.insert(name).inserted { error(name, nil, "two entities are named '\(name)'") }
            if let parent = entity.superentity, !entities.contains(where: { $0 === parent }) {
                error(name, nil, "its superentity '\(parent.name ?? "?")' is not in the model")
            }
            var seenProperties: Set<String> = []
            for property in entity.allProperties {
                if property.name.isEmpty { error(name, nil, "a property has no name") }
                if !seenProperties.insert(property.name).inserted {
                    error(name, property.name, "two properties are named '\(property.name)' (inherited ones included)")
                }
            }
            for attribute in entity.properties.compactMap({ $0 as? NSAttributeDescription }) {
                if attribute.attributeType == .undefinedAttributeType && !attribute.isTransient {
                    error(name, attribute.name, "an undefined attribute type is only allowed on transient attributes")
                }
                if attribute.defaultValue != nil,
                   (try? PrimitiveValue(attribute.defaultValue, for: attribute)) == nil {
                    error(name, attribute.name, "its default value \(attribute.defaultValue!) is not a \(attribute.attributeType.modelName)")
                }
                if let composite = attribute as? NSCompositeAttributeDescription {
                    for problem in Self.elementProblems(of: composite) { error(name, attribute.name, problem) }
                }
            }
            for relationship in entity.properties.compactMap({ $0 as? NSRelationshipDescription }) {
                checkRelationship(relationship, of: name, error: error, warning: warning)
            }
            for constraint in entity.uniquenessConstraints {
                for element in constraint {
                    let propertyName = (element as? NSPropertyDescription)?.name ?? (element as? String) ?? "\(element)"
                    guard let property = entity.propertiesByName[propertyName] else {
                        error(name, propertyName, "a uniqueness constraint names a property the entity does not have")
                        continue
                    }
                    if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                        error(name, propertyName, "a uniqueness constraint cannot contain a to-many relationship")
                    }
                }
            }
        }
        return issues
    }

    private func checkRelationship(_ relationship: NSRelationshipDescription, of entity: String,
                                   error: (String, String?, String) -> Void, warning: (String, String?, String) -> Void) {
        guard let destination = relationship.destinationEntity else {
            error(entity, relationship.name, "the relationship has no destination entity")
            return
        }
        guard entities.contains(where: { $0 === destination }) else {
            error(entity, relationship.name, "its destination entity '\(destination.name ?? "?")' is not in the model")
            return
        }
        guard let inverse = relationship.inverseRelationship else {
            warning(entity, relationship.name, "the relationship has no inverse")
            return
        }
        guard let owner = relationship.entity, let inverseOwner = inverse.entity else { return }
        if !destination.isKindOf(entity: inverseOwner) {
            error(entity, relationship.name,
                  "its inverse '\(inverseOwner.name ?? "?").\(inverse.name)' is not a relationship of its destination '\(destination.name ?? "?")'")
        } else if inverse.inverseRelationship !== relationship {
            let back = inverse.inverseRelationship.map { "'\($0.name)'" } ?? "nothing"
            error(entity, relationship.name,
                  "its inverse '\(inverseOwner.name ?? "?").\(inverse.name)' names \(back) as its inverse, not '\(relationship.name)'")
        } else if let inverseDestination = inverse.destinationEntity, !owner.isKindOf(entity: inverseDestination) {
            error(entity, relationship.name,
                  "its inverse '\(inverseOwner.name ?? "?").\(inverse.name)' points to '\(inverseDestination.name ?? "?")', not to '\(entity)'")
        }
    }

    /// What is wrong with a composite's elements: none, an element without a name or with a
    /// name taken, of a type a composite cannot hold or kept in external files, or a composite
    /// that contains itself (`containing`: the composites around it).
    private static func elementProblems(of composite: NSCompositeAttributeDescription, path: String = "",
                                        containing: [ObjectIdentifier] = []) -> [String] {
        if composite.attributeType != .compositeAttributeType {
            return ["a composite attribute's type must be Composite, not \(composite.attributeType.modelName)"]
        }
        if composite.elements.isEmpty { return ["the composite attribute has no elements"] }
        var problems: [String] = []
        var names: Set<String> = []
        let containing = containing + [ObjectIdentifier(composite)]
        for element in composite.elements {
            let elementPath = path.isEmpty ? element.name : path + "." + element.name
            if element.name.isEmpty { problems.append("an element of the composite attribute has no name") }
            if !names.insert(element.name).inserted { problems.append("two elements of the composite attribute are named '\(element.name)'") }
            if let nested = element as? NSCompositeAttributeDescription {
                if containing.contains(ObjectIdentifier(nested)) {
                    problems.append("the element '\(elementPath)' is the composite itself or one around it")
                } else {
                    problems += elementProblems(of: nested, path: elementPath, containing: containing)
                }
            } else if element is NSDerivedAttributeDescription
                        || [.undefinedAttributeType, .transformableAttributeType, .objectIDAttributeType, .compositeAttributeType].contains(element.attributeType) {
                problems.append("the element '\(elementPath)' is \(element.attributeType.modelName), which a composite attribute cannot hold")
            } else if element.allowsExternalBinaryDataStorage {
                problems.append("the element '\(elementPath)' allows external storage, which an element cannot have")
            }
        }
        return problems
    }

    /// Throws `ModelValidationError` listing every error (warnings are not thrown).
    public func validate() throws {
        let errors = validationIssues().filter { $0.severity == .error }
        if !errors.isEmpty { throw ModelValidationError(issues: errors) }
    }
}
