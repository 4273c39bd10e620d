import Foundation
import CoreData

extension APISignatures {
    static func nsStagedMigrationManager(_ check: inout Checks) {
        check("NSStagedMigrationManager") {
            let _: NSObject = NSStagedMigrationManager([NSLightweightMigrationStage(["a"])])
        }
        check("NSStagedMigrationManager.stages") {
            let _: KeyPath<NSStagedMigrationManager, [NSMigrationStage]> = \.stages
        }
        check("NSStagedMigrationManager.container") {
            let _: KeyPath<NSStagedMigrationManager, NSPersistentContainer?> = \.container
        }
        check("NSStagedMigrationManager.init(_:)") {
            let _: ([NSMigrationStage]) -> NSStagedMigrationManager = NSStagedMigrationManager.init(_:)
        }
    }
}
