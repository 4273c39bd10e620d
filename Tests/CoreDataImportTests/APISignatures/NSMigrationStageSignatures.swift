import Foundation
import CoreData

extension APISignatures {
    static func nsMigrationStage(_ check: inout Checks) {
        check("NSMigrationStage") {
            let _: NSMigrationStage = NSLightweightMigrationStage(["a"])
            let _: (NSMigrationStage) -> NSObject = { $0 }
        }
        check("NSMigrationStage.init()") {
            let _: NSMigrationStage = NSMigrationStage()
        }
        check("NSMigrationStage.label") {
            // Apple's is `String!`.
            let _: ReferenceWritableKeyPath<NSMigrationStage, String?> = \.label
        }
    }
}
