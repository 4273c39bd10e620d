import Foundation
import CoreData

extension APISignatures {
    static func nsFetchedPropertyDescription(_ check: inout Checks) {
        check("NSFetchedPropertyDescription") {
            let _: NSPropertyDescription = NSFetchedPropertyDescription()
        }
        check("NSFetchedPropertyDescription.init()") {
            let _: NSFetchedPropertyDescription = NSFetchedPropertyDescription()
            let _: (String) -> NSFetchedPropertyDescription = NSFetchedPropertyDescription.init(name:)
        }
        check("NSFetchedPropertyDescription.fetchRequest") {
            let _: ReferenceWritableKeyPath<NSFetchedPropertyDescription, NSFetchRequest<any NSFetchRequestResult>?> = \.fetchRequest
        }
    }
}
