import Foundation

/// How the instances of one source entity become instances of one destination entity.
///
/// ```swift
/// let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
/// for entityMapping in mapping.entityMappings {
///     print(entityMapping.name ?? "", entityMapping.mappingType)   // "NoteToNote" copyEntityMappingType …
/// }
/// ```
open class NSEntityMapping: NSObject {

    /// The mapping's name; an inferred one is `<Source>To<Destination>` (`Add<Destination>`,
    /// `Remove<Source>` for an added or removed entity).
    open var name: String!
    open var mappingType: NSEntityMappingType = .undefinedEntityMappingType
    open var sourceEntityName: String?
    open var sourceEntityVersionHash: Data?
    open var destinationEntityName: String?
    open var destinationEntityVersionHash: Data?
    /// One mapping per attribute of the destination entity.
    open var attributeMappings: [NSPropertyMapping]?
    /// One mapping per relationship of the destination entity.
    open var relationshipMappings: [NSPropertyMapping]?
    /// The source instances to migrate; nil for all of the source entity's.
    open var sourceExpression: NSExpression?
    /// The `NSEntityMigrationPolicy` subclass that makes the destination instances: its
    /// module-qualified name (`String(reflecting:)`), or a name it was registered under with
    /// `NSEntityMigrationPolicy.register(_:)`.
    open var entityMigrationPolicyClassName: String?
    open var userInfo: [AnyHashable: Any]?

    public override init() {}

    /// The attribute mapping of the destination property `name`.
    package func attributeMapping(named name: String) -> NSPropertyMapping? {
        attributeMappings?.first { $0.name == name }
    }

    /// The relationship mapping of the destination property `name`.
    package func relationshipMapping(named name: String) -> NSPropertyMapping? {
        relationshipMappings?.first { $0.name == name }
    }
}
