import Foundation

/// One way a store differs from the model it is opened with: what a migration has to change, or
/// why the store cannot be opened. Found by the coordinator from a store's version hashes, and
/// by a store that knows its own layout (the SQLite store's tables and columns).
package struct StoreDifference: Equatable, Sendable {
    package enum Kind: Equatable, Sendable {
        /// The entity's version hash in the store's metadata is not the model's.
        case versionHash
        case entityOnlyInModel
        case entityOnlyInStore
        /// The entity has another number (`Z_ENT`) in the store.
        case entityNumber
        case missingTable
        case missingJoinTable
        /// A column an attribute, a to-one, an order key or a join table needs.
        case missingColumn
        /// An attribute's column holds another type.
        case columnType
        /// An attribute's column is written another way (with or without the marker byte of
        /// external binary storage).
        case columnEncoding
    }

    package let kind: Kind
    package let entity: String
    package let property: String?
    /// The difference in a sentence, naming the entity and property.
    package let description: String

    package init(_ kind: Kind, entity: String, property: String? = nil, _ description: String) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.description = description
    }

    /// The entities of `entities` (a store's, sub-entities included) whose version hash in
    /// `metadata` differs from the model's, or that are on one side only; none when the
    /// metadata records no hashes. `exactHashesOnly` leaves out entities whose hash OpenCoreData
    /// does not know to be Apple's (`NSEntityDescription.hasExactVersionHash`), for a store that
    /// compares its structure too. An entity of another configuration of the same model is no
    /// difference: Core Data may record the whole model's hashes in a configuration's store.
    package static func versionHashDifferences(in metadata: [String: Any], entities: [NSEntityDescription],
                                               exactHashesOnly: Bool) -> [StoreDifference] {
        guard let stored = VersionHashing.hashes(inMetadata: metadata) else { return [] }
        let byName = Dictionary(entities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { first, _ in first })
        let model = entities.first?.managedObjectModel
        var differences: [StoreDifference] = []
        for name in VersionHashing.sortedByBytes(Set(byName.keys).union(stored.keys)) {
            switch (byName[name], stored[name]) {
            case (let entity?, let hash?):
                if entity.versionHash != hash && (entity.hasExactVersionHash || !exactHashesOnly) {
                    differences.append(StoreDifference(.versionHash, entity: name,
                                                       "entity '\(name)' is not the one the store was written with (its version hash differs)"))
                }
            case (_?, nil):
                differences.append(StoreDifference(.entityOnlyInModel, entity: name, "the model has entity '\(name)', which the store does not have"))
            case (nil, _?):
                if model?.entitiesByName[name] != nil { continue }
                differences.append(StoreDifference(.entityOnlyInStore, entity: name, "the store has entity '\(name)', which the model does not have"))
            case (nil, nil):
                break
            }
        }
        return differences
    }

    /// Core Data's 134100 for an incompatible store, listing what differs (the first five, and
    /// how many more), with the first difference's entity and property in `userInfo`; nil when
    /// nothing differs.
    package static func incompatibilityError(_ differences: [StoreDifference], url: URL?) -> CocoaError? {
        guard let first = differences.first else { return nil }
        var info: [String: Any] = ["NSEntityNameKey": first.entity]
        if let property = first.property { info[NSValidationKeyErrorKey] = property }
        if let url { info[NSURLErrorKey] = url }
        let listed = differences.prefix(5).map(\.description).joined(separator: "; ")
        let more = differences.count > 5 ? "; and \(differences.count - 5) more" : ""
        return CoreDataError.make(.persistentStoreIncompatibleVersionHash,
                                  "The model used to open the store is incompatible with the one used to create it (\(url?.path ?? "store")): \(listed)\(more)",
                                  info)
    }
}
