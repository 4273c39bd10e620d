import Foundation
import OCDSQLite
import OpenCoreDataCore

/// What opening a SQLite store with a model would migrate, found without changing the store:
/// whether it must migrate, from which model (and how that model was found), and through which
/// mapping — a mapping model of the application's own for the two versions when there is one,
/// as the coordinator's add chooses (`StoreMigrationPlanner`), else the inferred one.
/// `ocd migrate` prints it.
package struct SQLiteMigrationPreview {
    /// The source model and where it came from; nil when the store already fits the model.
    package let source: SourceModelSearch.Found?
    /// The mapping the migration would follow; nil when the store already fits the model.
    package let mapping: NSMappingModel?
    /// Whether `mapping` is a mapping model of the application's own (a `.cdm` or an
    /// `.xcmappingmodel` found for the two versions) rather than inferred.
    package let usesMappingModel: Bool

    package var isNeeded: Bool { mapping != nil }

    /// The preview for the store at `url` and `model` (the default configuration unless named).
    /// Throws what opening would throw: 134100 for a store whose hashes are the model's but whose
    /// tables differ, 134130 without a source model, 134140 when there is no mapping model and
    /// none can be inferred.
    package init(forStoreAt url: URL, model: NSManagedObjectModel, configurationName: String = "PF_DEFAULT_CONFIGURATION_NAME") throws {
        model.freeze()
        let connection = try SQLiteStoreFile.open(url, readOnly: true)
        let metadata = try SQLiteMetadataTable.read(from: connection, url: url)
        let entities = SQLiteStore.entities(of: model, configuration: configurationName)
        let (_, comparison) = try SQLiteStore.fittedSchema(for: entities, of: model, metadata: metadata, on: connection, url: url)
        if comparison.isCompatible {
            source = nil
            mapping = nil
            usesMappingModel = false
            return
        }
        if model.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: metadata),
           let error = comparison.incompatibilityError(url: url) {
            throw error
        }
        let found = try SQLiteStore.sourceModel(for: model, configuration: configurationName, metadata: metadata, on: connection, url: url)
        source = found
        if let own = NSMappingModel.mappingModel(in: nil, from: found.model, to: model) {
            mapping = own
            usesMappingModel = true
        } else {
            mapping = try StoreMigrationPlanner(destination: model, configuration: configurationName, options: nil, url: url).inferredMapping(from: found)
            usesMappingModel = false
        }
    }
}
