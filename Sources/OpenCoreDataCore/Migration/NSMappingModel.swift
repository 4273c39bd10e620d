import Foundation

/// How a store written with one model becomes a store of another: one `NSEntityMapping` per
/// entity.
///
/// ```swift
/// let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
/// ```
/// OpenCoreData performs an inferred (lightweight) mapping in place, in SQL, when a store is
/// added with `NSMigratePersistentStoresAutomaticallyOption` and
/// `NSInferMappingModelAutomaticallyOption` (both on by default in `NSPersistentStoreDescription`);
/// a mapping model of the application's own (a compiled `.cdm` or an `.xcmappingmodel` found for
/// the store's two versions, see `init(from:forSourceModel:destinationModel:)`) is performed
/// instead, through `NSMigrationManager`. Difference from Apple: the editor's `.xcmappingmodel`
/// is read too (see `Docs/Differences.md`).
open class NSMappingModel: NSObject {

    /// The entity mappings, in the order a migration performs them.
    open var entityMappings: [NSEntityMapping]! = []

    /// The entity mappings by name.
    open var entityMappingsByName: [String: NSEntityMapping] {
        var byName: [String: NSEntityMapping] = [:]
        for mapping in entityMappings ?? [] {
            if let name = mapping.name, byName[name] == nil { byName[name] = mapping }
        }
        return byName
    }

    public override init() {}

    /// A mapping inferred from the two models, as Core Data's lightweight migration infers it:
    /// entities and properties are matched by name or by `renamingIdentifier` (Xcode's
    /// "Renaming ID"); added and removed entities, attributes and relationships, renames,
    /// optionality changes and numeric type changes are mapped.
    ///
    /// Throws `NSInferredMappingModelError` (134190) listing every change inference cannot map
    /// (each with its entity and property), with the first in `userInfo` under `reason`,
    /// `entity` and `property`, as Core Data's.
    open class func inferredMappingModel(forSourceModel sourceModel: NSManagedObjectModel,
                                         destinationModel: NSManagedObjectModel) throws -> NSMappingModel {
        try MappingInference(source: sourceModel, destination: destinationModel).mappingModel()
    }

    /// The entity mapping whose destination is the entity named `name`.
    package func entityMapping(forDestination name: String) -> NSEntityMapping? {
        entityMappings?.first { $0.destinationEntityName == name && $0.mappingType != .removeEntityMappingType }
    }
}
