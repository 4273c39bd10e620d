import Foundation

/// The store option holding models (`[NSManagedObjectModel]`) a migration tries first as the
/// model the store was written with, before the versions of the model's file: a staged
/// migration's step names its source this way.
package let OCDMigrationSourceModelsOption = "OCDMigrationSourceModelsOption"

/// The store option holding a `Progress` that a migration of the store reports to, and that
/// cancels it (see `NSPersistentStoreDescription.migrationProgress`). An OpenCoreData extension.
public let OCDMigrationProgressOption = "OCDMigrationProgressOption"

extension ProgressUserInfoKey {
    /// In a migration's `Progress`: the name of the entity whose table is being migrated
    /// (nil between tables). An OpenCoreData extension.
    public static let migrationEntityName = ProgressUserInfoKey("OCDMigrationEntityName")
}

extension NSPersistentStoreDescription {
    /// A `Progress` that a migration of this store reports to: its fraction completed (one unit
    /// per table, and one each for the indexes and the metadata) and, under
    /// `ProgressUserInfoKey.migrationEntityName`, the entity whose table is being migrated.
    /// Cancelling it stops the migration, between tables or in the middle of one, with
    /// `NSMigrationCancelledError` (134120), and leaves the store as it was. A staged migration
    /// (`NSPersistentStoreStagedMigrationManagerOptionKey`) counts one unit per step, each step's
    /// migration reporting to a child of it; cancelled, it leaves the store whole at the version
    /// the last finished step reached, where the next add goes on. Kept in `options`
    /// under `OCDMigrationProgressOption`. An OpenCoreData extension: Core Data reports no progress
    /// for lightweight migrations.
    ///
    /// ```swift
    /// let progress = Progress(totalUnitCount: 0)
    /// description.migrationProgress = progress
    /// try await container.loadPersistentStores()   // migrates off the calling thread
    /// ```
    public var migrationProgress: Progress? {
        get { options[OCDMigrationProgressOption] as? Progress }
        set { setOption(newValue, forKey: OCDMigrationProgressOption) }
    }
}
