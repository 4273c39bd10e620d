import Foundation
import CoreData

extension APISignatures {
    static func nsPropertyMapping(_ check: inout Checks) {
        check("NSPropertyMapping") {
            let _: NSObject = NSPropertyMapping()
        }
        check("NSPropertyMapping.init()") {
            let _: NSPropertyMapping = NSPropertyMapping()
        }
        check("NSPropertyMapping.name") {
            let _: ReferenceWritableKeyPath<NSPropertyMapping, String?> = \.name
        }
        check("NSPropertyMapping.valueExpression") {
            let _: ReferenceWritableKeyPath<NSPropertyMapping, NSExpression?> = \.valueExpression
        }
        check("NSPropertyMapping.userInfo") {
            let _: ReferenceWritableKeyPath<NSPropertyMapping, [AnyHashable: Any]?> = \.userInfo
        }
    }
}
