import Foundation

/// A key path resolved against an entity: the properties it walks, as the model's descriptions
/// (each with its slot), not as names to look up again.
///
/// `owner.name` is the to-one `owner` then the attribute `name`; `pets.@sum.weight` is the
/// to-many `pets` then the collection operator `@sum` over the members' `weight`;
/// `name.length` is the attribute then the string's length. Resolving checks the path against
/// the model once, with the errors `PredicateCheck` gives; reading it (`value(of:)`) then costs
/// no lookups by name.
package struct ResolvedKeyPath {
    package enum Step {
        /// An attribute, a relationship or a fetched property of the object reached so far.
        case property(NSPropertyDescription)
        /// A string's length in UTF-16 units, as `NSString.length` (`name.length`).
        case length
        /// A collection operator (`@count`, `@sum`, `@avg`, `@min`, `@max`, `@unionOfObjects`,
        /// …) over the members reached so far, applied to each member's `members` path (nil:
        /// to the members themselves). It ends the path.
        case collectionOperator(String, members: ResolvedKeyPath?)
    }

    /// The path as written.
    package let keyPath: String
    package let steps: [Step]

    /// A path made of steps already resolved (part of another path).
    package init(_ keyPath: String, steps: [Step]) {
        self.keyPath = keyPath
        self.steps = steps
    }

    /// Resolves `keyPath` from `entity`; `allowsToMany` as `PredicateCheck.resolve`.
    package init(_ keyPath: String, from entity: NSEntityDescription, allowsToMany: Bool, in predicate: NSPredicate?) throws {
        let properties = try PredicateCheck.resolve(keyPath: keyPath, from: entity, allowsToMany: allowsToMany, in: predicate)
        var steps = properties.map(Step.property)
        let keys = keyPath.split(separator: ".").map(String.init)
        // What follows the properties: a collection operator and the key it aggregates, or a
        // string's `length` (the only things `PredicateCheck.resolve` lets follow them).
        if properties.count < keys.count {
            let next = keys[properties.count]
            if next.hasPrefix("@") {
                let aggregated = keys[(properties.count + 1)...].joined(separator: ".")
                let destination = (properties.last as? NSRelationshipDescription)?.destinationEntity
                let members = try destination.flatMap { destination in
                    aggregated.isEmpty ? nil : try ResolvedKeyPath(aggregated, from: destination, allowsToMany: false, in: predicate)
                }
                steps.append(.collectionOperator(next, members: members))
            } else {
                steps.append(.length)
            }
        }
        self.keyPath = keyPath
        self.steps = steps
    }

    /// The relationships the path walks before its first to-many relationship, and that
    /// to-many relationship with the steps after it (nil when there is none).
    package var firstToMany: (toOnes: [NSRelationshipDescription], toMany: NSRelationshipDescription, rest: ArraySlice<Step>)? {
        var toOnes: [NSRelationshipDescription] = []
        for (index, step) in steps.enumerated() {
            guard case .property(let property) = step, let relationship = property as? NSRelationshipDescription else { return nil }
            if relationship.isToMany { return (toOnes, relationship, steps[(index + 1)...]) }
            toOnes.append(relationship)
        }
        return nil
    }

    /// The to-one relationships of a path that ends with a to-many relationship (a SUBQUERY's
    /// collection), and that relationship; nil for any other path.
    package var toOnesThenToMany: (toOnes: [NSRelationshipDescription], toMany: NSRelationshipDescription)? {
        guard let (toOnes, toMany, rest) = firstToMany, rest.isEmpty else { return nil }
        return (toOnes, toMany)
    }

    /// Whether the path goes through a to-many relationship other than right before a
    /// collection operator (`pets.name`, not `pets.@count`).
    package var walksToMany: Bool {
        for (index, step) in steps.enumerated() {
            guard case .property(let property) = step, let relationship = property as? NSRelationshipDescription,
                  relationship.isToMany else { continue }
            if index + 1 < steps.count, case .collectionOperator = steps[index + 1] { continue }
            return true
        }
        return false
    }

    /// This path followed by `step`, written `name` after a dot.
    package func appending(_ step: Step, named name: String) -> ResolvedKeyPath {
        ResolvedKeyPath(keyPath.isEmpty ? name : keyPath + "." + name, steps: steps + [step])
    }

    // MARK: Reading

    /// The value at the path, as key-value coding reads it (`KeyPathValue`): through to-ones,
    /// over the members of to-manys, nil as soon as a step reads nil.
    package func value(of object: Any?) -> Any? {
        Self.value(of: object, steps[...])
    }

    private static func value(of object: Any?, _ steps: ArraySlice<Step>) -> Any? {
        var current = object
        for step in steps {
            switch step {
            case .property(let property):
                current = value(of: current, property)
            case .length:
                current = KeyPathValue.value(of: current, key: "length")
            case .collectionOperator(let name, let members):
                let elements = ValueComparison.elements(of: current)
                return KeyPathValue.aggregate(name, members.map { path in elements.map { path.value(of: $0) } } ?? elements)
            }
            if current == nil { return nil }
        }
        return current
    }

    /// One property of whatever a predicate reads: a managed object, an in-memory store's row,
    /// a collection of them (the members' values), or anything else by the property's name.
    private static func value(of object: Any?, _ property: NSPropertyDescription) -> Any? {
        switch object {
        case let object as NSManagedObject: object.value(of: property)
        case let row as StoredRow: row.value(of: property)
        case let rows as [StoredRow]: rows.map { $0.value(of: property) as Any }
        case let objects as Set<NSManagedObject>: objects.map { $0.value(of: property) as Any }
        case let ordered as NSOrderedSet: ordered.array.map { value(of: $0, property) as Any }
        default: KeyPathValue.value(of: object, key: property.name)
        }
    }
}
