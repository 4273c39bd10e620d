import Foundation
import CoreData

extension APISignatures {
    static func nsMigrationStage(_ check: inout Checks) {
        check("NSMigrationStage") {
            // Apple's is an `NSObject` subclass.
            let _: NSMigrationStage = NSLightweightMigrationStage(["a"])
            let _: (NSMigrationStage) -> AnyObject = { $0 }
        }
        check("NSMigrationStage.label") {
            // Apple's is `String!`.
            let _: ReferenceWritableKeyPath<NSMigrationStage, String?> = \.label
        }
    }
}
