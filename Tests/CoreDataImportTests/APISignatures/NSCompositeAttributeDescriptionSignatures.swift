import Foundation
import CoreData

extension APISignatures {
    static func nsCompositeAttributeDescription(_ check: inout Checks) {
        // Nothing of NSCompositeAttributeDescription.h is provided yet.
    }
}
