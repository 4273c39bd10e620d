import Foundation

/// Checks a predicate against the model before a store runs it, so that a key the entity does
/// not have is a clear error (Core Data raises "keypath … not found in entity …").
package enum PredicateCheck {
    package static func validate(_ predicate: NSPredicate, for entity: NSEntityDescription) throws {
        switch predicate.resolved {
        case let compound as NSCompoundPredicate:
            for subpredicate in compound.subpredicates { try validate(subpredicate, for: entity) }
        case let comparison as NSComparisonPredicate:
            let allowsToMany = comparison.comparisonPredicateModifier != .direct
            try validate(comparison.leftExpression, for: entity, allowsToMany: allowsToMany, in: predicate)
            try validate(comparison.rightExpression, for: entity, allowsToMany: false, in: predicate)
        default:
            break
        }
    }

    package static func validate(_ expression: NSExpression, for entity: NSEntityDescription, allowsToMany: Bool,
                                 in predicate: NSPredicate) throws {
        switch expression.expressionType {
        case .keyPath:
            _ = try resolve(keyPath: expression.keyPath, from: entity, allowsToMany: allowsToMany, in: predicate)
        case .aggregate:
            for element in expression.members { try validate(element, for: entity, allowsToMany: false, in: predicate) }
        case .function:
            // A function's arguments may be collections (`sum:(pets.weight)`); a method's or a
            // key path's receiver is checked, its keys are the receiver's (`$pet.weight`).
            if let operand = expression.operand {
                try validate(operand, for: entity, allowsToMany: true, in: predicate)
            } else {
                for argument in expression.arguments ?? [] { try validate(argument, for: entity, allowsToMany: true, in: predicate) }
            }
        case .conditional:
            try validate(expression.predicate, for: entity)
            try validate(expression.trueExpression, for: entity, allowsToMany: allowsToMany, in: predicate)
            try validate(expression.falseExpression, for: entity, allowsToMany: allowsToMany, in: predicate)
        case .subquery:
            // Key paths in the subquery's predicate that do not start with its variable belong to
            // the evaluated object, as everywhere else.
            if let collection = expression.collection as? NSExpression {
                try validate(collection, for: entity, allowsToMany: true, in: predicate)
            }
            try validate(expression.predicate, for: entity)
        case .unionSet, .intersectSet, .minusSet:
            try validate(expression.left, for: entity, allowsToMany: true, in: predicate)
            try validate(expression.right, for: entity, allowsToMany: true, in: predicate)
        case .fetchRequest:
            // Its request and context are values (constants or variables), not keys of the entity.
            if let (request, context, _) = expression.fetchParts {
                try validate(request, for: entity, allowsToMany: true, in: predicate)
                try validate(context, for: entity, allowsToMany: true, in: predicate)
            }
        case .constantValue, .evaluatedObject, .variable:
            break
        }
    }

    /// Checks a fetch's sort descriptors: key paths the model has (as `resolve` allows them),
    /// and comparison selectors a store can sort by. The same check for every store, so that a
    /// sort the SQLite store refuses is refused in memory too.
    package static func validate(_ sortDescriptors: [NSSortDescriptor], for entity: NSEntityDescription) throws {
        for descriptor in sortDescriptors {
            guard !descriptor.selectorName.isEmpty else {
                throw invalid("the sort descriptor for key \(descriptor.key ?? "SELF") compares with a block, which a fetch can't sort by (sort the results with sortedArray(using:))", nil)
            }
            guard NSSortDescriptor.supportedSelectorNames.contains(descriptor.selectorName) else {
                let supported = NSSortDescriptor.supportedSelectorNames.sorted().joined(separator: ", ")
                throw invalid("unsupported sort selector \(descriptor.selectorName) for key \(descriptor.key ?? "SELF") (supported: \(supported))", nil)
            }
            if let key = descriptor.key { _ = try resolve(keyPath: key, from: entity, allowsToMany: false, in: nil) }
        }
    }

    /// The properties a key path walks through, checked against the model.
    package static func resolve(keyPath: String, from entity: NSEntityDescription, allowsToMany: Bool,
                        in predicate: NSPredicate?) throws -> [NSPropertyDescription] {
        var properties: [NSPropertyDescription] = []
        var current: NSEntityDescription? = entity
        let keys = keyPath.split(separator: ".").map(String.init)
        for (index, key) in keys.enumerated() {
            if key.hasPrefix("@") {
                // A collection operator (`pets.@count`, `pets.@sum.weight`): it must follow a
                // to-many relationship, and what it aggregates must be a key of the members.
                guard let relationship = properties.last as? NSRelationshipDescription, relationship.isToMany else {
                    throw invalid("the collection operator \(key) in \(keyPath) must follow a to-many relationship", predicate)
                }
                let aggregated = keys[(index + 1)...].joined(separator: ".")
                if !aggregated.isEmpty, let destination = relationship.destinationEntity {
                    _ = try resolve(keyPath: aggregated, from: destination, allowsToMany: false, in: predicate)
                }
                return properties
            }
            if let composite = properties.last as? NSCompositeAttributeDescription {
                // `magnitude.richter`: an element of a composite attribute.
                guard let element = composite.element(named: key) else {
                    throw invalid("keypath \(keyPath): the composite attribute '\(composite.name)' has no element '\(key)'", predicate)
                }
                properties.append(element)
                continue
            }
            guard let here = current else {
                // `name.length`: a string's length, as key-value coding reads it.
                if key == "length", index == keys.count - 1,
                   (properties.last as? NSAttributeDescription)?.attributeType == .stringAttributeType {
                    return properties
                }
                throw invalid("keypath \(keyPath) continues after attribute '\(keys[index - 1])'", predicate)
            }
            guard let property = here.layout.propertiesByName[key] else {
                throw invalid("keypath \(keyPath) not found in entity \(here.name ?? "?")", predicate)
            }
            properties.append(property)
            if let relationship = property as? NSRelationshipDescription {
                let followedByOperator = index + 1 < keys.count && keys[index + 1].hasPrefix("@")
                if relationship.isToMany && !allowsToMany && !followedByOperator {
                    // In a predicate a modifier fixes it; a sort key cannot go through a to-many at all.
                    let hint = predicate == nil ? "a sort key cannot go through a to-many relationship" : "use ANY, ALL or NONE"
                    throw invalid("to-many key not allowed here: \(keyPath) (\(hint))", predicate)
                }
                current = relationship.destinationEntity
            } else {
                current = nil
            }
        }
        return properties
    }

    package static func invalid(_ message: String, _ predicate: NSPredicate?) -> CocoaError {
        let suffix = predicate.map { " in predicate \($0.predicateFormat)" } ?? ""
        return CoreDataError.make(.persistentStoreUnsupportedRequestType, "Invalid fetch request: \(message)\(suffix)")
    }
}

/// Helpers for dictionary results.
enum DictionaryResults {
    /// Drops dictionaries equal to an earlier one (for `returnsDistinctResults`).
    static func distinct(_ dictionaries: [[String: Any]]) -> [[String: Any]] {
        var seen: [[String: String]] = []
        var result: [[String: Any]] = []
        for dictionary in dictionaries {
            let key = dictionary.mapValues { "\($0)" }
            if !seen.contains(key) {
                seen.append(key)
                result.append(dictionary)
            }
        }
        return result
    }
}
