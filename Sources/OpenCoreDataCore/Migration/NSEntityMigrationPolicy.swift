import Foundation

/// The variables a property mapping's value expression is evaluated with.
public let NSMigrationManagerKey = "manager"
public let NSMigrationSourceObjectKey = "source"
public let NSMigrationDestinationObjectKey = "destination"
public let NSMigrationEntityMappingKey = "entityMapping"
public let NSMigrationPropertyMappingKey = "propertyMapping"
public let NSMigrationEntityPolicyKey = "entityPolicy"

/// How the instances of one entity mapping are migrated: the default creates one destination
/// instance per source instance with the mapping's attribute values, then sets its
/// relationships; subclasses change any step.
///
/// ```swift
/// final class SplitNamePolicy: NSEntityMigrationPolicy {
///     override func createDestinationInstances(forSource source: NSManagedObject, in mapping: NSEntityMapping,
///                                              manager: NSMigrationManager) throws {
///         try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
///         let person = manager.destinationInstances(forEntityMappingName: mapping.name!, sourceInstances: [source])[0]
///         let parts = (source.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1)
///         person.setValue(parts.first.map(String.init), forKey: "firstName")
///         person.setValue(parts.dropFirst().first.map(String.init), forKey: "lastName")
///     }
/// }
/// mapping.entityMigrationPolicyClassName = NSStringFromClass(SplitNamePolicy.self)
/// ```
/// The manager calls, for each entity mapping in order: `begin(_:with:)`, then
/// `createDestinationInstances(forSource:in:manager:)` per source instance and
/// `endInstanceCreation(forMapping:manager:)`; once every mapping has its instances,
/// `createRelationships(forDestination:in:manager:)` per destination instance and
/// `endRelationshipCreation(forMapping:manager:)`; last, `performCustomValidation(forMapping:manager:)`
/// and `end(_:manager:)`. A method that throws stops the migration with its error, and the
/// source store is left as it was.
///
/// Differences from Apple: Linux has no Objective-C runtime, so `FUNCTION($entityPolicy,
/// "selector:", …)` in a mapping's expressions calls `value(ofFunction:arguments:)`, which a
/// subclass overrides to answer its selectors; and a policy class named in a mapping is found
/// by `NSClassFromString` with the module-qualified name (`"MyApp.SplitNamePolicy"`, what
/// `NSStringFromClass` gives) or registered with `NSEntityMigrationPolicy.register(_:)`.
open class NSEntityMigrationPolicy: NSObject {
    /// The manager running the migration, while it runs: where a function's failure is
    /// recorded. Weak: the manager owns the policies.
    weak var runningManager: NSMigrationManager?

    public required override init() {}

    /// Called before any instance of `mapping` is created.
    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Creates the destination instances of one source instance: by default one instance of
    /// the mapping's destination entity, with each attribute mapping's value, associated with
    /// `sInstance` (`NSMigrationManager.associate(sourceInstance:withDestinationInstance:for:)`).
    /// A required attribute with a default value keeps its default where the value is nil, as
    /// a lightweight migration fills it.
    open func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping,
                                         manager: NSMigrationManager) throws {
        guard let entity = manager.destinationEntity(for: mapping) else {
            throw CoreDataError.make(.entityMigrationPolicy,
                                     "The entity mapping \(mapping.name ?? "?") names a destination entity \(mapping.destinationEntityName ?? "nil") the destination model does not have")
        }
        let destination = NSManagedObject(entity: entity, insertInto: manager.destinationContext)
        for propertyMapping in mapping.attributeMappings ?? [] {
            guard let name = propertyMapping.name, let expression = propertyMapping.valueExpression else { continue }
            // A plain read of the source's property (most mappings' expressions) needs no evaluation.
            let value = try propertyMapping.sourceKey.map { try Self.copiedValue(of: sInstance, forKey: $0) }
                ?? manager.evaluate(expression, source: sInstance, destination: destination, mapping: mapping,
                                    propertyMapping: propertyMapping, policy: self)
            // A required attribute with a default keeps it for a source without a value, as a
            // lightweight migration fills it.
            if isNilOrNull(value), let attribute = entity.attributesByName[name], !attribute.isOptional,
               attribute.defaultValue != nil { continue }
            destination.setValue(value, forKey: name)
        }
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// The source's value of `key` for its copy: a value kept in a file is read now, so that one
    /// that can't be read stops the migration, naming the file, instead of arriving as nil.
    private static func copiedValue(of source: NSManagedObject, forKey key: String) throws -> Any? {
        if let attribute = source.entity.layout.propertiesByName[key] as? NSAttributeDescription,
           case .externalData(let external) = source.primitive(at: attribute.attributeSlot) {
            return try external.data()
        }
        return source.value(forKey: key)
    }

    /// Called once every instance of `mapping` is created.
    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Sets the relationships of one destination instance: by default each relationship
    /// mapping's value, evaluated with `$source` the instance it was created from.
    open func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping,
                                  manager: NSMigrationManager) throws {
        guard let name = mapping.name,
              let source = manager.sourceInstances(forEntityMappingName: name, destinationInstances: [dInstance]).first else { return }
        for propertyMapping in mapping.relationshipMappings ?? [] {
            guard let key = propertyMapping.name, let expression = propertyMapping.valueExpression else { continue }
            let value = try manager.evaluate(expression, source: source, destination: dInstance, mapping: mapping,
                                             propertyMapping: propertyMapping, policy: self)
            dInstance.setValue(manager.relationshipValue(value, for: key, of: dInstance), forKey: key)
        }
    }

    /// Called once every destination instance of `mapping` has its relationships.
    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called after relationships are created, to check the destination instances of
    /// `mapping` in ways the model's validation cannot.
    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called last for `mapping`.
    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// The value of `FUNCTION($entityPolicy, "selector", arguments…)` in one of the mapping's
    /// expressions. Override it to answer the selectors your mapping model names (as the
    /// Objective-C methods of an Apple policy would), and call `super` for the others: the
    /// default throws `NSEntityMigrationPolicyError` (134170) naming the selector. An
    /// OpenCoreData extension (see the class's differences).
    open func value(ofFunction selector: String, arguments: [Any?]) throws -> Any? {
        throw CoreDataError.make(.entityMigrationPolicy,
                                 "\(type(of: self)) does not answer the function \"\(selector)\" an expression of the mapping calls: override value(ofFunction:arguments:) to answer it")
    }

    // MARK: Finding policy classes

    /// Makes `policyClass` the class an entity mapping's `entityMigrationPolicyClassName`
    /// names by its plain or module-qualified name. An OpenCoreData extension: classes are
    /// found by `NSClassFromString` too, but only by their module-qualified names.
    public static func register(_ policyClass: NSEntityMigrationPolicy.Type) {
        PolicyClassRegistry.register(policyClass)
    }
}

extension NSEntityMigrationPolicy: ExpressionFunctionReceiver {
    package func answerFunction(_ selector: String, arguments: [Any?]) -> Any? {
        do {
            return try value(ofFunction: selector, arguments: arguments)
        } catch {
            runningManager?.recordEvaluationFailure(error)
            return nil
        }
    }
}
