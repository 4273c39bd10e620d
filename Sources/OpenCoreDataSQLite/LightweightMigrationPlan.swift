import Foundation
import OCDSQLite
import OpenCoreDataCore

/// What opening a SQLite store with a model would migrate, found without changing the store:
/// whether it must migrate, from which model (and how that model was found), and the mapping.
/// `ocd migrate` prints it.
package struct LightweightMigrationPlan {
    /// The source model and where it came from; nil when the store already fits the model.
    package let source: SourceModelSearch.Found?
    /// The inferred mapping; nil when the store already fits the model.
    package let mapping: NSMappingModel?

    package var isNeeded: Bool { mapping != nil }

    /// The plan for the store at `url` and `model` (the default configuration unless named).
    /// Throws what opening would throw: 134100 for a store whose hashes are the model's but whose
    /// tables differ, 134130 without a source model, 134140 when the mapping cannot be inferred.
    package init(forStoreAt url: URL, model: NSManagedObjectModel, configurationName: String = "PF_DEFAULT_CONFIGURATION_NAME") throws {
        model.freeze()
        let connection = try SQLiteStoreFile.open(url, readOnly: true)
        let metadata = try SQLiteMetadataTable.read(from: connection, url: url)
        let entities = SQLiteStore.entities(of: model, configuration: configurationName)
        let (_, comparison) = try SQLiteStore.fittedSchema(for: entities, of: model, metadata: metadata, on: connection, url: url)
        if comparison.isCompatible {
            source = nil
            mapping = nil
            return
        }
        if model.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: metadata),
           let error = comparison.incompatibilityError(url: url) {
            throw error
        }
        let found = try SQLiteStore.sourceModel(for: model, configuration: configurationName, metadata: metadata, on: connection, url: url)
        source = found
        mapping = try StoreMigrationPlanner(destination: model, configuration: configurationName, options: nil, url: url).inferredMapping(from: found)
    }
}
