import Foundation

/// What CloudKit cannot mirror in a model, as `NSPersistentCloudKitContainer` checks it before
/// adding a mirrored store (Apple's "Creating a Core Data Model for CloudKit"): uniqueness
/// constraints; attributes that are required and have no default value; relationships that are
/// required, have no inverse or are ordered. Each breach is reported in the words of Core
/// Data's failure reason, with the entity that declares the property. (The deny rule, which
/// Apple's guide also rules out, is not checked: it is not known to stop a store from loading.)
enum CloudKitModelRules {
    /// The failure reason listing every breach among `entities`, or nil when there is none.
    static func breaches(in entities: [NSEntityDescription]) -> String? {
        var constrained: [String] = [], required: [String] = [], requiredRelationships: [String] = []
        var withoutInverse: [String] = [], ordered: [String] = []
        for entity in withTheirSuperentities(entities).sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let name = entity.name ?? "?"
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                constrained.append("\(name): \(constraint.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" }.joined(separator: ","))")
            }
            for property in entity.properties where !property.isTransient {
                switch property {
                case let attribute as NSAttributeDescription:
                    if !attribute.isOptional && attribute.defaultValue == nil { required.append("\(name): \(attribute.name)") }
                case let relationship as NSRelationshipDescription:
                    let label = "\(name): \(relationship.name)"
                    if !relationship.isOptional { requiredRelationships.append(label) }
                    if relationship.inverseRelationship == nil { withoutInverse.append(label) }
                    if relationship.isOrdered { ordered.append(label) }
                default:
                    break
                }
            }
        }
        let reasons = [
            (constrained, "CloudKit integration does not support unique constraints. The following entities are constrained:"),
            (required, "CloudKit integration requires that all attributes be optional, or have a default value set. The following attributes are marked non-optional but do not have a default value:"),
            (requiredRelationships, "CloudKit integration requires that all relationships be optional, the following are not:"),
            (withoutInverse, "CloudKit integration requires that all relationships have an inverse, the following do not:"),
            (ordered, "CloudKit integration does not support ordered relationships. The following relationships are marked ordered:"),
        ].filter { !$0.0.isEmpty }.map { labels, text in ([text] + labels).joined(separator: "\n") }
        return reasons.isEmpty ? nil : reasons.joined(separator: "\n")
    }

    /// `entities` and every superentity of theirs, once each: each entity's own properties are
    /// checked, and a configuration may list a subentity without its parent.
    private static func withTheirSuperentities(_ entities: [NSEntityDescription]) -> [NSEntityDescription] {
        var all: [NSEntityDescription] = []
        var seen = Set<ObjectIdentifier>()
        for entity in entities {
            var current: NSEntityDescription? = entity
            while let next = current, seen.insert(ObjectIdentifier(next)).inserted {
                all.append(next)
                current = next.superentity
            }
        }
        return all
    }
}
