import Foundation
import CoreData

extension APISignatures {
    static func nsDerivedAttributeDescription(_ check: inout Checks) {
        check("NSDerivedAttributeDescription") {
            let _: NSAttributeDescription = NSDerivedAttributeDescription()
        }
        check("NSDerivedAttributeDescription.init()") {
            let _: NSDerivedAttributeDescription = NSDerivedAttributeDescription()
        }
        check("NSDerivedAttributeDescription.derivationExpression") {
            let _: ReferenceWritableKeyPath<NSDerivedAttributeDescription, NSExpression?> = \.derivationExpression
        }
    }
}
