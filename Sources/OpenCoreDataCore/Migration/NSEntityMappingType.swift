import Foundation

/// How an entity mapping makes destination instances, with Core Data's raw values.
///
/// ```swift
/// mapping.entityMappings.filter { $0.mappingType == .addEntityMappingType }   // entities new in the model
/// ```
public enum NSEntityMappingType: UInt, Sendable {
    /// Made by a custom migration policy.
    case undefinedEntityMappingType = 0x00
    /// Made by a custom migration policy (`entityMigrationPolicyClassName`).
    case customEntityMappingType = 0x01
    /// The entity is new in the destination model: there is nothing to copy.
    case addEntityMappingType = 0x02
    /// The entity is gone from the destination model: its instances are dropped.
    case removeEntityMappingType = 0x03
    /// The entity is the same in both models: its instances are copied as they are.
    case copyEntityMappingType = 0x04
    /// The entity changed: its instances are copied through the property mappings.
    case transformEntityMappingType = 0x05
}
