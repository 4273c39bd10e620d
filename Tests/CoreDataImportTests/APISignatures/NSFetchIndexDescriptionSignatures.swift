import Foundation
import CoreData

extension APISignatures {
    static func nsFetchIndexDescription(_ check: inout Checks) {
        check("NSFetchIndexDescription.init(coder:)") {
            let _: (NSCoder) -> NSFetchIndexDescription? = NSFetchIndexDescription.init(coder:)
            let _: any NSCoding.Type = NSFetchIndexDescription.self
        }
        check("NSFetchIndexDescription.encode(with:)") {
            let _: (NSFetchIndexDescription) -> (NSCoder) -> Void = NSFetchIndexDescription.encode(with:)
        }
        check("NSFetchIndexDescription.copy(with:)") {
            let _: (NSFetchIndexDescription) -> (NSZone?) -> Any = NSFetchIndexDescription.copy(with:)
            let _: any NSCopying.Type = NSFetchIndexDescription.self
        }
        check("NSFetchIndexDescription") {
            let _: NSObject = NSFetchIndexDescription(name: "byName", elements: nil)
        }
        check("NSFetchIndexDescription.init(name:elements:)") {
            let _: (String, [NSFetchIndexElementDescription]?) -> NSFetchIndexDescription = NSFetchIndexDescription.init(name:elements:)
        }
        check("NSFetchIndexDescription.name") {
            let _: ReferenceWritableKeyPath<NSFetchIndexDescription, String> = \.name
        }
        check("NSFetchIndexDescription.entity") {
            let _: KeyPath<NSFetchIndexDescription, NSEntityDescription?> = \.entity
        }
        check("NSFetchIndexDescription.elements") {
            let _: ReferenceWritableKeyPath<NSFetchIndexDescription, [NSFetchIndexElementDescription]> = \.elements
        }
        check("NSFetchIndexDescription.partialIndexPredicate") {
            let _: ReferenceWritableKeyPath<NSFetchIndexDescription, NSPredicate?> = \.partialIndexPredicate
        }
    }
}
