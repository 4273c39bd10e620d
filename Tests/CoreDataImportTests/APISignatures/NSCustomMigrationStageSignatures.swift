import Foundation
import CoreData

extension APISignatures {
    static func nsCustomMigrationStage(_ check: inout Checks) {
        check("NSCustomMigrationStage") {
            let reference = NSManagedObjectModelReference(model: NSManagedObjectModel(), versionChecksum: "x")
            let _: NSMigrationStage = NSCustomMigrationStage(migratingFrom: reference, to: reference)
        }
        check("NSCustomMigrationStage.currentModel") {
            let _: KeyPath<NSCustomMigrationStage, NSManagedObjectModelReference> = \.currentModel
        }
        check("NSCustomMigrationStage.nextModel") {
            let _: KeyPath<NSCustomMigrationStage, NSManagedObjectModelReference> = \.nextModel
        }
        check("NSCustomMigrationStage.init(migratingFrom:to:)") {
            let _: (NSManagedObjectModelReference, NSManagedObjectModelReference) -> NSCustomMigrationStage
                = NSCustomMigrationStage.init(migratingFrom:to:)
        }
        check("NSCustomMigrationStage.willMigrateHandler") {
            let _: ReferenceWritableKeyPath<NSCustomMigrationStage, ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?>
                = \.willMigrateHandler
            let reference = NSManagedObjectModelReference(model: NSManagedObjectModel(), versionChecksum: "x")
            let stage = NSCustomMigrationStage(migratingFrom: reference, to: reference)
            var notSendable = 0
            stage.willMigrateHandler = { manager, stage in
                notSendable += 1
                let _: NSPersistentContainer? = manager.container
                let _: NSManagedObjectModelReference = stage.nextModel
                if notSendable > 1 { throw CocoaError(.migration) }
            }
        }
        check("NSCustomMigrationStage.didMigrateHandler") {
            let _: ReferenceWritableKeyPath<NSCustomMigrationStage, ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?>
                = \.didMigrateHandler
            let reference = NSManagedObjectModelReference(model: NSManagedObjectModel(), versionChecksum: "x")
            let stage = NSCustomMigrationStage(migratingFrom: reference, to: reference)
            var notSendable = 0
            stage.didMigrateHandler = { _, _ in
                notSendable += 1
                if notSendable > 1 { throw CocoaError(.migration) }
            }
        }
    }
}
