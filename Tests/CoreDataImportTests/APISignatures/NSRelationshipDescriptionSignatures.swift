import Foundation
import CoreData

extension APISignatures {
    static func nsRelationshipDescription(_ check: inout Checks) {
        check("NSDeleteRule") {
            let rule: NSDeleteRule = .cascadeDeleteRule
            let _: UInt = rule.rawValue
            let _: NSDeleteRule? = NSDeleteRule(rawValue: 1)
        }
        check("NSDeleteRule.noActionDeleteRule") {
            let _: NSDeleteRule = .noActionDeleteRule
        }
        check("NSDeleteRule.nullifyDeleteRule") {
            let _: NSDeleteRule = .nullifyDeleteRule
        }
        check("NSDeleteRule.cascadeDeleteRule") {
            let _: NSDeleteRule = .cascadeDeleteRule
        }
        check("NSDeleteRule.denyDeleteRule") {
            let _: NSDeleteRule = .denyDeleteRule
        }
        check("NSRelationshipDescription") {
            let _: NSPropertyDescription = NSRelationshipDescription()
        }
        check("NSRelationshipDescription.init()") {
            let _: NSRelationshipDescription = NSRelationshipDescription()
        }
        check("NSRelationshipDescription.destinationEntity") {
            let _: ReferenceWritableKeyPath<NSRelationshipDescription, NSEntityDescription?> = \.destinationEntity
        }
        check("NSRelationshipDescription.inverseRelationship") {
            let _: ReferenceWritableKeyPath<NSRelationshipDescription, NSRelationshipDescription?> = \.inverseRelationship
        }
        check("NSRelationshipDescription.maxCount") {
            let _: ReferenceWritableKeyPath<NSRelationshipDescription, Int> = \.maxCount
        }
        check("NSRelationshipDescription.minCount") {
            let _: ReferenceWritableKeyPath<NSRelationshipDescription, Int> = \.minCount
        }
        check("NSRelationshipDescription.deleteRule") {
            let _: ReferenceWritableKeyPath<NSRelationshipDescription, NSDeleteRule> = \.deleteRule
        }
        check("NSRelationshipDescription.isToMany") {
            let _: KeyPath<NSRelationshipDescription, Bool> = \.isToMany
        }
        check("NSRelationshipDescription.versionHash") {
            let _: KeyPath<NSRelationshipDescription, Data> = \.versionHash
        }
        check("NSRelationshipDescription.isOrdered") {
            let _: ReferenceWritableKeyPath<NSRelationshipDescription, Bool> = \.isOrdered
        }
    }
}
