import Foundation

/// Store metadata key: the entity version hashes of the model the store was written with,
/// `[entity name: 32-byte Data]`, every entity of the store's configuration (sub-entities included).
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
/// Store metadata key: the model's `versionIdentifiers`, as an array.
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"
/// Store metadata key: the model's `versionChecksum` (base64 SHA-256 of the entity hashes).
public let NSStoreModelVersionChecksumKey = "NSStoreModelVersionChecksumKey"

/// The other keys Core Data writes into every store's metadata; not public API on Apple's platforms.
package enum StoreMetadataKey {
    /// Base64 SHA-512 over the entity names and hashes (`VersionHashing.digest(of:)`).
    static let versionHashesDigest = "NSStoreModelVersionHashesDigest"
    /// The version of the hash scheme: 3 in every store Core Data has written since iOS 3.
    static let versionHashesVersion = "NSStoreModelVersionHashesVersion"
    /// The framework version that wrote the store.
    package static let frameworkVersion = "NSPersistenceFrameworkVersion"
    /// SQLite's `auto_vacuum` level, as a string ("2", incremental).
    package static let autoVacuumLevel = "_NSAutoVacuumLevel"
    /// OpenCoreData's own: the names of the versions of the model file (`.xcdatamodeld`,
    /// `.momd`) the store's model came from, in the file's order, oldest first. With
    /// `modelFileVersion`, it tells a store written by a later release of the model from one
    /// of an earlier release (see `SourceModelSearch`). Absent for a model built in code.
    package static let modelFileVersions = "OCDModelFileVersions"
    /// OpenCoreData's own: the name of the version the store's model is, among `modelFileVersions`.
    package static let modelFileVersion = "OCDModelFileVersion"
    /// OpenCoreData's own: the cleanup a deferred lightweight migration left to do (see
    /// `NSPersistentStoreDeferredLightweightMigrationOptionKey`), as the store type writes it.
    package static let deferredMigrationTasks = "OCDDeferredMigrationTasks"

    /// The keys that describe one file's own state and never go to a copy of the store (a
    /// migration into a new file, `migratePersistentStore`): the cleanup a deferred migration
    /// left names tables and columns of this file only.
    package static let fileStateKeys: Set<String> = [NSPersistentStoreDeferredLightweightMigrationOptionKey, deferredMigrationTasks]

    /// The keys that describe the model a store was written with (a migration writes the new
    /// model's; the application's own keys are carried over).
    package static let modelKeys: Set<String> = [
        NSStoreModelVersionHashesKey, NSStoreModelVersionIdentifiersKey, NSStoreModelVersionChecksumKey,
        versionHashesDigest, versionHashesVersion, frameworkVersion, modelFileVersions, modelFileVersion,
    ]
}

extension NSManagedObjectModel {
    /// The metadata entries that describe this model, for a store holding `entities`:
    /// `NSStoreModelVersionHashes` (with its version, digest and checksum) and
    /// `NSStoreModelVersionIdentifiers`; for a model loaded from a versioned model file, the
    /// file's version names and this model's among them (`StoreMetadataKey.modelFileVersions`).
    ///
    /// A model in use (frozen) computes them once per set of entities: every store created or
    /// migrated writes them.
    package func versionMetadata(for entities: [NSEntityDescription]) -> [String: Any] {
        guard isFrozen else { return computeVersionMetadata(for: entities) }
        return versionMetadataCache.value(for: Set(entities.map(ObjectIdentifier.init))) { computeVersionMetadata(for: entities) }
    }

    private func computeVersionMetadata(for entities: [NSEntityDescription]) -> [String: Any] {
        var hashes: [String: Data] = [:]
        for entity in entities {
            guard let name = entity.name else { continue }
            hashes[name] = entity.versionHash
        }
        var metadata: [String: Any] = [
            NSStoreModelVersionHashesKey: hashes,
            StoreMetadataKey.versionHashesVersion: 3,
            StoreMetadataKey.versionHashesDigest: VersionHashing.digest(of: hashes),
            NSStoreModelVersionChecksumKey: VersionHashing.checksum(of: hashes),
            NSStoreModelVersionIdentifiersKey: versionIdentifiers.compactMap { $0 as? String }.sorted(),
        ]
        if let (files, loaded) = bundleVersions {
            metadata[StoreMetadataKey.modelFileVersions] = files.map(Self.versionName(of:))
            metadata[StoreMetadataKey.modelFileVersion] = Self.versionName(of: loaded)
        }
        return metadata
    }

    /// `metadata` recording the version hashes of `entities` in place of its own, for a store
    /// opened without comparing them (`NSIgnorePersistentStoreVersioningOption`); nil when it
    /// records them already. Only hashes OpenCoreData computes as Apple's are taken (a store
    /// keeps its own for the other entities, which Apple's Core Data would otherwise refuse),
    /// entity by entity, so that the entities of other configurations keep theirs; the digest
    /// and checksum follow, and every other key is left as it was.
    package func metadata(_ metadata: [String: Any], adoptingVersionHashesOf entities: [NSEntityDescription]) -> [String: Any]? {
        var hashes = VersionHashing.hashes(inMetadata: metadata) ?? [:]
        let before = hashes
        for entity in entities where entity.hasExactVersionHash {
            guard let name = entity.name else { continue }
            hashes[name] = entity.versionHash
        }
        guard hashes != before else { return nil }
        var updated = metadata
        updated[NSStoreModelVersionHashesKey] = hashes
        updated[StoreMetadataKey.versionHashesVersion] = 3
        updated[StoreMetadataKey.versionHashesDigest] = VersionHashing.digest(of: hashes)
        updated[NSStoreModelVersionChecksumKey] = VersionHashing.checksum(of: hashes)
        return updated
    }

    /// A version's name in its model file: the file name without extension (`"Journal 2"`).
    package static func versionName(of file: URL) -> String { FileNameStem.of(file) }
}
