import Foundation

/// A compiled mapping model (`.cdm`), the form Xcode's mapping model compiler puts in an app's
/// bundle and the only form Core Data reads: a keyed archive (`NSKeyedArchiver`, a binary
/// property list) whose root is the `NSMappingModel`.
///
/// ```swift
/// let mapping = try CompiledMappingModel.read(contentsOf: bundle.url(forResource: "People1to2", withExtension: "cdm")!)
/// let data = try CompiledMappingModel.archive(mapping)     // what `read` reads back
/// ```
///
/// The keys are those Core Data's classes encode, as public descriptions of their `NSCoding`
/// give them (nothing Apple documents):
/// - `NSMappingModel`: `NSEntityMappings` (the entity mappings, in order) and
///   `NSEntityMappingsByName`.
/// - `NSEntityMapping`: `NSMappingName`, `NSMappingType` (the `NSEntityMappingType` raw value),
///   `NSSourceEntityName`, `NSSourceEntityVersionHash`, `NSDestinationEntityName`,
///   `NSDestinationEntityVersionHash`, `NSSourceExpression`, `NSUserInfo`,
///   `NSEntityMigrationPolicyClassName`, `NSAttributeMappings`, `NSRelationshipMappings`.
/// - `NSPropertyMapping`: `NSDestinationPropertyName`, `NSValueExpression`, `NSUserInfo`, and
///   `NSPropertyTransforms` — transforms of Core Data's own that only its inferred mappings
///   use, which this reader refuses rather than drops.
///
/// A `.cdm` is chosen for two models as Core Data chooses one: the source version hashes its
/// entity mappings record are a non-empty subset of the source model's entity hashes, and the
/// destination hashes of the destination model's (`maps(_:from:to:)`).
package enum CompiledMappingModel {
    package static let fileExtension = "cdm"

    /// The mapping model of the `.cdm` file at `url`; errors name the file and the mapping.
    package static func read(contentsOf url: URL) throws -> NSMappingModel {
        let data = try ModelFileReader.data(of: url)
        do {
            let root = try KeyedArchive(data: data).rootObject().asObject("the archive's root")
            guard root.isKind(of: "NSMappingModel") else {
                throw KeyedArchiveError(reason: "its root object is \(root.className), not an NSMappingModel")
            }
            let mapping = NSMappingModel()
            mapping.entityMappings = try objects(of: root, forKey: "NSEntityMappings").map(entityMapping)
            return mapping
        } catch let error as KeyedArchiveError {
            throw ModelFileError(file: url, reason: "it is not a compiled mapping model Core Data wrote: \(error.reason)")
        }
    }

    /// Whether `mapping` maps `source` to `destination`: the entity hashes it records on each
    /// side are a non-empty subset of the model's. A recorded hash of an entity whose hash
    /// OpenCoreData does not know to be Apple's (`hasExactVersionHash`) counts when the model has
    /// an entity of that name, as `NSMigrationManager` checks them.
    package static func maps(_ mapping: NSMappingModel, from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> Bool {
        let entityMappings = mapping.entityMappings ?? []
        return fits(entityMappings.map { ($0.sourceEntityName, $0.sourceEntityVersionHash) }, source)
            && fits(entityMappings.map { ($0.destinationEntityName, $0.destinationEntityVersionHash) }, destination)
    }

    /// Whether the recorded (entity name, hash) pairs that have a hash are some, and each is one
    /// of `model`'s entities.
    private static func fits(_ recorded: [(name: String?, hash: Data?)], _ model: NSManagedObjectModel) -> Bool {
        let hashes = Set(model.entityVersionHashesByName.values)
        let withHashes = recorded.filter { $0.hash != nil }
        return !withHashes.isEmpty && withHashes.allSatisfy { name, hash in
            hashes.contains(hash!) || name.flatMap { model.entitiesByName[$0] }.map { !$0.hasExactVersionHash } == true
        }
    }

    // MARK: Reading

    private static func entityMapping(_ object: ArchivedObject) throws -> NSEntityMapping {
        guard object.isKind(of: "NSEntityMapping") else {
            throw KeyedArchiveError(reason: "NSEntityMappings holds \(object.className), not an NSEntityMapping")
        }
        let mapping = NSEntityMapping()
        mapping.name = try object.string(forKey: "NSMappingName")
        let name = mapping.name ?? "an entity mapping without a name"
        return try within(name) {
            let rawType = try object.integer(forKey: "NSMappingType")
            guard rawType >= 0, let type = NSEntityMappingType(rawValue: UInt(rawType)) else {
                throw KeyedArchiveError(reason: "NSMappingType is \(rawType), not a mapping type")
            }
            mapping.mappingType = type
            mapping.sourceEntityName = try object.string(forKey: "NSSourceEntityName")
            mapping.sourceEntityVersionHash = try data(of: object, forKey: "NSSourceEntityVersionHash")
            mapping.destinationEntityName = try object.string(forKey: "NSDestinationEntityName")
            mapping.destinationEntityVersionHash = try data(of: object, forKey: "NSDestinationEntityVersionHash")
            mapping.sourceExpression = try expression(of: object, forKey: "NSSourceExpression")
            mapping.userInfo = try object.userInfo()
            mapping.entityMigrationPolicyClassName = try object.string(forKey: "NSEntityMigrationPolicyClassName")
            mapping.attributeMappings = try objects(of: object, forKey: "NSAttributeMappings").map(propertyMapping)
            mapping.relationshipMappings = try objects(of: object, forKey: "NSRelationshipMappings").map(propertyMapping)
            return mapping
        }
    }

    private static func propertyMapping(_ object: ArchivedObject) throws -> NSPropertyMapping {
        guard object.isKind(of: "NSPropertyMapping") else {
            throw KeyedArchiveError(reason: "a property mapping is \(object.className), not an NSPropertyMapping")
        }
        let mapping = NSPropertyMapping()
        mapping.name = try object.string(forKey: "NSDestinationPropertyName")
        return try within("property mapping \(mapping.name ?? "without a name")") {
            if let transforms = try object.object(forKey: "NSPropertyTransforms"), try !transforms.collectionElements().isEmpty {
                throw KeyedArchiveError(reason: "it has property transforms (NSPropertyTransforms), Core Data's own, which OpenCoreData does not perform")
            }
            mapping.valueExpression = try expression(of: object, forKey: "NSValueExpression")
            mapping.userInfo = try object.userInfo()
            return mapping
        }
    }

    /// The objects of the archived array under `key`; none when it is absent.
    private static func objects(of object: ArchivedObject, forKey key: String) throws -> [ArchivedObject] {
        guard let list = try object.object(forKey: key) else { return [] }
        return try list.collectionElements().enumerated().map { index, element in
            try element.asObject("\(key)[\(index)]")
        }
    }

    /// An `NSData` field (inline data, or an `NSData`/`NSMutableData` object); nil when absent.
    private static func data(of object: ArchivedObject, forKey key: String) throws -> Data? {
        let value = try object.value(forKey: key)
        var values = FoundationValueDecoder()
        switch try values.decode(value) {
        case nil: return nil
        case let bytes as Data: return bytes
        default: throw object.wrongType(key, "data", found: value)
        }
    }

    private static func expression(of object: ArchivedObject, forKey key: String) throws -> NSExpression? {
        guard let archived = try object.object(forKey: key) else { return nil }
        var decoder = KeyedArchivePredicateDecoder()
        return try decoder.expression(archived)
    }

    /// Runs `body`, naming `element` in the error it throws.
    private static func within<T>(_ element: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as KeyedArchiveError {
            throw KeyedArchiveError(reason: "\(element): \(error.reason)")
        }
    }

    // MARK: Writing

    /// `mapping` archived as a `.cdm`, with the keys `read` reads. Throws when an expression
    /// cannot be archived (see `KeyedArchivePredicateEncoder`).
    package static func archive(_ mapping: NSMappingModel) throws -> Data {
        var writer = KeyedArchiveWriter()
        let root = writer.reserve()
        let entityMappings = try (mapping.entityMappings ?? []).map { try archive($0, into: &writer) }
        let named = zip(mapping.entityMappings ?? [], entityMappings).filter { $0.0.name != nil }
        writer.fill(root, classes: ["NSMappingModel", "NSObject"], fields: [
            "NSEntityMappings": writer.array(entityMappings, mutable: true),
            "NSEntityMappingsByName": writer.dictionary(keys: named.map { writer.string($0.0.name) }, values: named.map(\.1), mutable: true),
        ])
        return writer.archive(root: root)
    }

    private static func archive(_ mapping: NSEntityMapping, into writer: inout KeyedArchiveWriter) throws -> PropertyListValue {
        var fields: [String: PropertyListValue] = ["NSMappingType": .integer(Int64(mapping.mappingType.rawValue))]
        if let name = mapping.name { fields["NSMappingName"] = writer.string(name) }
        if let name = mapping.sourceEntityName { fields["NSSourceEntityName"] = writer.string(name) }
        if let hash = mapping.sourceEntityVersionHash { fields["NSSourceEntityVersionHash"] = writer.scalar(.data(hash)) }
        if let name = mapping.destinationEntityName { fields["NSDestinationEntityName"] = writer.string(name) }
        if let hash = mapping.destinationEntityVersionHash { fields["NSDestinationEntityVersionHash"] = writer.scalar(.data(hash)) }
        if let expression = mapping.sourceExpression {
            fields["NSSourceExpression"] = try KeyedArchivePredicateEncoder.expression(expression, into: &writer)
        }
        if let info = mapping.userInfo, !info.isEmpty { fields["NSUserInfo"] = try writer.foundationValue(info) }
        if let name = mapping.entityMigrationPolicyClassName { fields["NSEntityMigrationPolicyClassName"] = writer.string(name) }
        fields["NSAttributeMappings"] = writer.array(try (mapping.attributeMappings ?? []).map { try archive($0, into: &writer) }, mutable: true)
        fields["NSRelationshipMappings"] = writer.array(try (mapping.relationshipMappings ?? []).map { try archive($0, into: &writer) }, mutable: true)
        return writer.object(["NSEntityMapping", "NSObject"], fields)
    }

    private static func archive(_ mapping: NSPropertyMapping, into writer: inout KeyedArchiveWriter) throws -> PropertyListValue {
        var fields: [String: PropertyListValue] = [:]
        if let name = mapping.name { fields["NSDestinationPropertyName"] = writer.string(name) }
        if let expression = mapping.valueExpression {
            fields["NSValueExpression"] = try KeyedArchivePredicateEncoder.expression(expression, into: &writer)
        }
        if let info = mapping.userInfo, !info.isEmpty { fields["NSUserInfo"] = try writer.foundationValue(info) }
        return writer.object(["NSPropertyMapping", "NSObject"], fields)
    }
}
