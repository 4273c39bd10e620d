import Foundation

extension NSManagedObjectModel {
    /// Every entity's `versionHash`, by entity name.
    ///
    /// ```swift
    /// let hashes = model.entityVersionHashesByName   // ["Person": <32 bytes>, …]
    /// ```
    public var entityVersionHashesByName: [String: Data] {
        var hashes: [String: Data] = [:]
        for entity in entities {
            guard let name = entity.name, hashes[name] == nil else { continue }
            hashes[name] = entity.versionHash
        }
        return hashes
    }

    /// A checksum of the whole model, as Xcode's model compiler and Core Data compute it:
    /// base64 of the SHA-256 of every entity's version hash, in entity-name byte order.
    ///
    /// ```swift
    /// model.versionChecksum      // "OcE8L8XxVX/G+zRQ2cbYPP91smjL3tynDfRzfdDAPnU=" (44 characters)
    /// ```
    /// Stores keep it as `NSStoreModelVersionChecksumKey`. Configurations and fetch indexes do
    /// not enter it. Whether version identifiers or fetch request templates do in Core Data is
    /// not known; here they do not.
    public var versionChecksum: String { VersionHashing.checksum(of: entityVersionHashesByName) }

    /// Whether the store whose metadata is `metadata` was written for this model's configuration
    /// `configuration` (`nil` for every entity): the store's `NSStoreModelVersionHashes` name the
    /// same entities as the configuration (sub-entities included), with the same hashes.
    ///
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    /// if !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { /* migrate */ }
    /// ```
    /// False when the metadata has no hashes, or the model has no such configuration.
    public func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        guard let stored = VersionHashing.hashes(inMetadata: metadata),
              let entities = versionHashedEntities(forConfigurationName: configuration) else { return false }
        var expected: [String: Data] = [:]
        for entity in entities {
            guard let name = entity.name else { continue }
            expected[name] = entity.versionHash
        }
        return expected == stored
    }

    /// The entities a store of configuration `name` holds: the configuration's entities and all
    /// their sub-entities, each once; nil when the model has no such configuration.
    func versionHashedEntities(forConfigurationName name: String?) -> [NSEntityDescription]? {
        entities(forConfigurationName: name).map(Self.withSubentities)
    }

    /// `entities` followed, each, by its sub-entities (depth first), every entity once.
    package static func withSubentities(_ entities: [NSEntityDescription]) -> [NSEntityDescription] {
        var seen: Set<ObjectIdentifier> = []
        var result: [NSEntityDescription] = []
        func visit(_ entity: NSEntityDescription) {
            guard seen.insert(ObjectIdentifier(entity)).inserted else { return }
            result.append(entity)
            entity.subentities.forEach(visit)
        }
        entities.forEach(visit)
        return result
    }
}
