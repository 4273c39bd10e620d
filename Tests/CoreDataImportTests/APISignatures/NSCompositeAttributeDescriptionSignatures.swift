import Foundation
import CoreData

extension APISignatures {
    static func nsCompositeAttributeDescription(_ check: inout Checks) {
        check("NSCompositeAttributeDescription") {
            let _: NSAttributeDescription = NSCompositeAttributeDescription()
        }
        check("NSCompositeAttributeDescription.init()") {
            let _: () -> NSCompositeAttributeDescription = NSCompositeAttributeDescription.init
        }
        check("NSCompositeAttributeDescription.elements") {
            let _: ReferenceWritableKeyPath<NSCompositeAttributeDescription, [NSAttributeDescription]> = \.elements
        }
    }
}
