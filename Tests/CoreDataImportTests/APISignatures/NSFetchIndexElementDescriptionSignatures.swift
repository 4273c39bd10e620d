import Foundation
import CoreData

extension APISignatures {
    static func nsFetchIndexElementDescription(_ check: inout Checks) {
        check("NSFetchIndexElementDescription.init(coder:)") {
            let _: (NSCoder) -> NSFetchIndexElementDescription? = NSFetchIndexElementDescription.init(coder:)
            let _: any NSCoding.Type = NSFetchIndexElementDescription.self
        }
        check("NSFetchIndexElementDescription.encode(with:)") {
            let _: (NSFetchIndexElementDescription) -> (NSCoder) -> Void = NSFetchIndexElementDescription.encode(with:)
        }
        check("NSFetchIndexElementDescription.copy(with:)") {
            let _: (NSFetchIndexElementDescription) -> (NSZone?) -> Any = NSFetchIndexElementDescription.copy(with:)
            let _: any NSCopying.Type = NSFetchIndexElementDescription.self
        }
        check("NSFetchIndexElementType") {
            let type: NSFetchIndexElementDescription.CollationType = .binary
            let _: UInt = type.rawValue
            let _: NSFetchIndexElementDescription.CollationType? = NSFetchIndexElementDescription.CollationType(rawValue: 1)
        }
        check("NSFetchIndexElementType.binary") {
            let _: NSFetchIndexElementDescription.CollationType = .binary
        }
        check("NSFetchIndexElementType.rTree") {
            let _: NSFetchIndexElementDescription.CollationType = .rTree
        }
        check("NSFetchIndexElementDescription") {
            let _: NSObject = NSFetchIndexElementDescription(property: NSAttributeDescription(), collationType: .binary)
        }
        check("NSFetchIndexElementDescription.init(property:collationType:)") {
            let _: (NSPropertyDescription, NSFetchIndexElementDescription.CollationType) -> NSFetchIndexElementDescription = NSFetchIndexElementDescription.init(property:collationType:)
            let _: NSFetchIndexElementDescription = NSFetchIndexElementDescription(property: NSAttributeDescription(), collationType: .rTree)
        }
        check("NSFetchIndexElementDescription.property") {
            let _: KeyPath<NSFetchIndexElementDescription, NSPropertyDescription?> = \.property
        }
        check("NSFetchIndexElementDescription.indexDescription") {
            let _: KeyPath<NSFetchIndexElementDescription, NSFetchIndexDescription?> = \.indexDescription
        }
        check("NSFetchIndexElementDescription.propertyName") {
            let _: KeyPath<NSFetchIndexElementDescription, String?> = \.propertyName
        }
        check("NSFetchIndexElementDescription.collationType") {
            let _: ReferenceWritableKeyPath<NSFetchIndexElementDescription, NSFetchIndexElementDescription.CollationType> = \.collationType
        }
        check("NSFetchIndexElementDescription.isAscending") {
            let _: ReferenceWritableKeyPath<NSFetchIndexElementDescription, Bool> = \.isAscending
        }
    }
}
