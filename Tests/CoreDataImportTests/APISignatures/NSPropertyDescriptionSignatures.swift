import Foundation
import CoreData

extension APISignatures {
    static func nsPropertyDescription(_ check: inout Checks) {
        check("NSPropertyDescription.isIndexedBySpotlight") {
            let _: ReferenceWritableKeyPath<NSPropertyDescription, Bool> = \.isIndexedBySpotlight
        }
        check("NSPropertyDescription.isStoredInExternalRecord") {
            // Deprecated, as Apple's: checked in a deprecated function, which may use it silently.
            @available(*, deprecated) func signature() {
                let _: ReferenceWritableKeyPath<NSPropertyDescription, Bool> = \.isStoredInExternalRecord
            }
        }
        check("NSPropertyDescription.init(coder:)") {
            let _: (NSCoder) -> NSPropertyDescription? = NSPropertyDescription.init(coder:)
            let _: any NSCoding.Type = NSPropertyDescription.self
        }
        check("NSPropertyDescription.encode(with:)") {
            let _: (NSPropertyDescription) -> (NSCoder) -> Void = NSPropertyDescription.encode(with:)
        }
        check("NSPropertyDescription.copy(with:)") {
            let _: (NSPropertyDescription) -> (NSZone?) -> Any = NSPropertyDescription.copy(with:)
            let _: any NSCopying.Type = NSPropertyDescription.self
        }
        check("NSPropertyDescription") {
            let _: NSObject = NSPropertyDescription()
        }
        check("NSPropertyDescription.init()") {
            let _: NSPropertyDescription = NSPropertyDescription()
            let _: (String) -> NSPropertyDescription = NSPropertyDescription.init(name:)
        }
        check("NSPropertyDescription.entity") {
            let _: KeyPath<NSPropertyDescription, NSEntityDescription?> = \.entity
        }
        check("NSPropertyDescription.name") {
            let _: ReferenceWritableKeyPath<NSPropertyDescription, String> = \.name
        }
        check("NSPropertyDescription.isOptional") {
            let _: ReferenceWritableKeyPath<NSPropertyDescription, Bool> = \.isOptional
        }
        check("NSPropertyDescription.isTransient") {
            let _: ReferenceWritableKeyPath<NSPropertyDescription, Bool> = \.isTransient
        }
        check("NSPropertyDescription.validationPredicates") {
            let _: KeyPath<NSPropertyDescription, [NSPredicate]> = \.validationPredicates
        }
        check("NSPropertyDescription.validationWarnings") {
            let _: KeyPath<NSPropertyDescription, [Any]> = \.validationWarnings
        }
        check("NSPropertyDescription.setValidationPredicates(_:withValidationWarnings:)") {
            let _: (NSPropertyDescription) -> ([NSPredicate]?, [String]?) -> Void = NSPropertyDescription.setValidationPredicates(_:withValidationWarnings:)
        }
        check("NSPropertyDescription.userInfo") {
            let _: ReferenceWritableKeyPath<NSPropertyDescription, [AnyHashable: Any]?> = \.userInfo
        }
        check("NSPropertyDescription.isIndexed") {
            let _: ReferenceWritableKeyPath<NSPropertyDescription, Bool> = \.isIndexed
        }
        check("NSPropertyDescription.versionHash") {
            let _: KeyPath<NSPropertyDescription, Data> = \.versionHash
        }
        check("NSPropertyDescription.versionHashModifier") {
            let _: ReferenceWritableKeyPath<NSPropertyDescription, String?> = \.versionHashModifier
        }
        check("NSPropertyDescription.renamingIdentifier") {
            let _: ReferenceWritableKeyPath<NSPropertyDescription, String?> = \.renamingIdentifier
        }
    }
}
