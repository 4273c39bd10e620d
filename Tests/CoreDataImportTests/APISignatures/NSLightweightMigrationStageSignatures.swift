import Foundation
import CoreData

extension APISignatures {
    static func nsLightweightMigrationStage(_ check: inout Checks) {
        check("NSLightweightMigrationStage") {
            let _: NSMigrationStage = NSLightweightMigrationStage(["a", "b"])
        }
        check("NSLightweightMigrationStage.versionChecksums") {
            let _: KeyPath<NSLightweightMigrationStage, [String]> = \.versionChecksums
        }
        check("NSLightweightMigrationStage.init(_:)") {
            let _: ([String]) -> NSLightweightMigrationStage = NSLightweightMigrationStage.init(_:)
        }
    }
}
