import Foundation

/// One stage of a staged migration: use `NSLightweightMigrationStage` or
/// `NSCustomMigrationStage`, never this class itself.
open class NSMigrationStage: NSObject, @unchecked Sendable {
    // @unchecked Sendable: a stage is set up before the store is added and only read while the
    // migration runs.

    /// What the stage is for, as it appears in errors and logs.
    open var label: String?

    /// Apple says not to make instances of this class itself; make its subclasses'.
    public override init() {}

    /// The models the stage leads through, in order: a lightweight stage's versions, a custom
    /// stage's current and next model.
    package func modelReferences() -> [NSManagedObjectModelReference] { [] }

    open override var description: String { label.map { "stage \"\($0)\"" } ?? "\(type(of: self))" }
}

/// A stage of versions a store moves through by lightweight (inferred) migration, one version
/// to the next.
///
/// ```swift
/// let early = NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum, v3.versionChecksum])
/// early.label = "v1 to v3: new attributes only"
/// ```
/// The models are found by their checksums among the versions of the coordinator's model
/// file and the models the other stages name. Difference from Apple: versions that are not in
/// the model file the coordinator's model was loaded from must be named by a custom stage too.
public final class NSLightweightMigrationStage: NSMigrationStage, @unchecked Sendable {
    // @unchecked Sendable: the checksums are immutable; `label` as in NSMigrationStage.

    /// The versions' checksums (`NSManagedObjectModel.versionChecksum`), oldest first.
    public let versionChecksums: [String]

    public init(_ checksums: [String]) {
        versionChecksums = checksums
        super.init()
    }
}

/// A stage that migrates a store from one model version to the next by lightweight migration,
/// with your code run before (on the store as the current model sees it) and after (as the next
/// model sees it).
///
/// ```swift
/// let stage = NSCustomMigrationStage(migratingFrom: v1Reference, to: v2Reference)
/// stage.willMigrateHandler = { manager, _ in
///     let context = manager.container!.newBackgroundContext()
///     try context.performAndWait {
///         // give every note without a title one, before v2 makes `title` required
///         try context.save()
///     }
/// }
/// ```
/// Each handler's saves are committed when it returns: a failure in a later step leaves the
/// store at the version the last completed step left it at, which a later add migrates on
/// from.
public final class NSCustomMigrationStage: NSMigrationStage, @unchecked Sendable {
    // @unchecked Sendable: set up before the store is added; the handlers run one at a time.

    /// The model the stage migrates from.
    public let currentModel: NSManagedObjectModelReference
    /// The model the stage migrates to.
    public let nextModel: NSManagedObjectModelReference
    /// Runs before the stage migrates, with the store open on `currentModel` in
    /// `manager.container`.
    public var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?
    /// Runs after the stage migrated, with the store open on `nextModel` in `manager.container`.
    public var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?

    public init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init()
    }

    override package func modelReferences() -> [NSManagedObjectModelReference] { [currentModel, nextModel] }
}
