import Foundation

/// What CloudKit cannot mirror in a model, as `NSPersistentCloudKitContainer` checks it before
/// adding a mirrored store (Apple's "Creating a Core Data Model for CloudKit"): uniqueness
/// constraints; attributes that are required and have no default value; relationships that are
/// required, have no inverse, are ordered or use the deny rule. Each breach is reported in the
/// words of Core Data's failure reason, with the entity and property that break it.
enum CloudKitModelRules {
    /// The failure reason listing every breach among `entities`, or nil when there is none.
    static func breaches(in entities: [NSEntityDescription]) -> String? {
        var constrained: [String] = [], required: [String] = [], requiredRelationships: [String] = []
        var withoutInverse: [String] = [], ordered: [String] = [], denying: [String] = []
        for entity in entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let name = entity.name ?? "?"
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                constrained.append("\(name): \(constraint.map { "\($0)" }.joined(separator: ","))")
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
                    if relationship.deleteRule == .denyDeleteRule { denying.append(label) }
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
            (denying, "CloudKit integration does not support the deny delete rule. The following relationships use it:"),
        ].filter { !$0.0.isEmpty }.map { labels, text in ([text] + labels).joined(separator: "\n") }
        return reasons.isEmpty ? nil : reasons.joined(separator: "\n")
    }
}
