import Foundation

/// The store option holding an `NSStagedMigrationManager`: a store that needs migrating is
/// taken through the manager's stages when it is added.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"

/// Migrates a store through a series of model versions, stage by stage, running your code
/// before and after the custom stages; a user who skipped app versions goes from v1 to v5
/// through every stage in between.
///
/// ```swift
/// let manager = NSStagedMigrationManager([
///     NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum]),
///     fillInTitles,                                   // an NSCustomMigrationStage from v2 to v3
///     NSLightweightMigrationStage([v3.versionChecksum, v4.versionChecksum, v5.versionChecksum]),
/// ])
/// description.setOption(manager, forKey: NSPersistentStoreStagedMigrationManagerOptionKey)
/// ```
/// When the store is added, the version it was written with is found among the stages' models
/// (by its version hashes), and every step from there runs in order: a lightweight stage moves
/// the store one version at a time, a custom stage calls `willMigrateHandler`, migrates to its
/// next model by lightweight migration, then calls `didMigrateHandler`; during a handler,
/// `container` holds the store opened with that step's model. The steps stop at the version the
/// coordinator's model is; if the last stage leaves the store short of it, the usual automatic
/// migration takes it the rest of the way. Each step is committed on its own: a kill or a
/// failure leaves the store at the version of the last completed step (never between two), and
/// the next add goes on from there — running first a `didMigrateHandler` that had not completed
/// (the store's metadata records it until it returns).
///
/// Errors: a model a stage names that cannot be found is `NSManagedObjectModelReferenceNotFoundError`
/// (134504); a store newer in the stages than the coordinator's model is
/// `NSStagedMigrationBackwardMigrationError` (134506); a handler that throws fails the add with
/// `NSMigrationError` (134110) naming the stage, the handler's error under
/// `NSUnderlyingErrorKey`. Differences from Apple: a store whose version none of the stages
/// names is migrated as without the manager (Apple's behaviour there is not documented); two
/// consecutive stages that do not meet at one version are joined by a lightweight step.
open class NSStagedMigrationManager: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the stages are set up before the store is added; `container` is
    // set and read only on the thread that runs the migration, one step at a time.

    /// The stages, in the order they run.
    public let stages: [NSMigrationStage]

    /// The container holding the migrating store while a custom stage's handler runs; nil
    /// otherwise.
    public internal(set) var container: NSPersistentContainer?

    public init(_ stages: [NSMigrationStage]) {
        self.stages = stages
        super.init()
    }
}
