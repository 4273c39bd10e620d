import Foundation
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// A test-only store of its own: an `NSIncrementalStore` over one JSON file, written the way a
/// user of the public API would write one. Rows are kept by entity and reference (a UUID
/// string); attributes as JSON values (dates as seconds since 2001), to-ones as the
/// destination's `Entity/reference`. To-manys are found through their inverse to-one, or kept
/// as lists of references when they have none or are ordered. Every save rewrites the file atomically.
class JSONFileStore: NSIncrementalStore, @unchecked Sendable {
    // @unchecked Sendable: `rows` is used only from the store's methods, which the coordinator
    // calls one at a time.
    static let type = "JSONFile"
    /// The same store without the hooks below, for suites that run beside `IncrementalStoreTests`.
    static let plainType = "JSONFilePlain"
    /// The same store recording the model's version hashes in its file, as a store of one's own
    /// does to be migrated when the model changes (`StoreOpeningTests`).
    static let versionedType = "JSONFileVersioned"

    /// Whether the store records the version hashes of the model it was written with.
    private var recordsVersionHashes: Bool { type == Self.versionedType || type == Self.auditedType }
    /// A versioned store whose class is a subclass of this one (`StoreOpeningTests`).
    static let auditedType = "JSONFileAudited"
    /// The version hashes the file records (empty when the store does not record them).
    private var hashes: [String: Data] = [:]

    /// Whether the store heeds the hooks below: only when added as `type`.
    private var isInstrumented: Bool { type == Self.type }
    private var failure: Failure? { isInstrumented ? Self.failure : nil }
    private func record(_ call: String) { if isInstrumented { Self.calls.append(call) } }

    /// What the tests can make the store do wrong.
    nonisolated(unsafe) static var failure: Failure?
    enum Failure { case loadMetadata, save, fetchAnswer, nodeValue, wrongEntity, lazyToOne, rowsGone, badPermanentIDs, batchAnswer }

    /// Calls the store heard, for the tests to check.
    nonisolated(unsafe) static var calls: [String] = []
    /// Per object URI: registrations minus unregistrations the store was told of.
    nonisolated(unsafe) static var registrations: [String: Int] = [:]
    /// The result type of the last fetch request the store was handed.
    nonisolated(unsafe) static var lastResultType: NSFetchRequestResultType?

    private var rows: [String: [String: [String: Any]]] = [:]   // entity → reference → values
    private var versions: [String: UInt64] = [:]                 // "Entity/reference" → version

    static func register() {
        NSPersistentStoreCoordinator.registerStoreClass(JSONFileStore.self, forStoreType: type)
        NSPersistentStoreCoordinator.registerStoreClass(JSONFileStore.self, forStoreType: plainType)
        NSPersistentStoreCoordinator.registerStoreClass(JSONFileStore.self, forStoreType: versionedType)
    }

    override func loadMetadata() throws {
        if failure == .loadMetadata { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "bad file"]) }
        // A zero-length file is a new store, as Core Data asks of file-based stores of one's own.
        let data = FileManager.default.contents(atPath: url!.path) ?? Data()
        let file = data.isEmpty ? [:] : try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let uuid = file["uuid"] as? String ?? JSONFileStore.identifierForNewStore(at: url!) as! String
        rows = file["rows"] as? [String: [String: [String: Any]]] ?? [:]
        versions = (file["versions"] as? [String: NSNumber] ?? [:]).mapValues { $0.uint64Value }
        if file["hashes"] != nil {
            hashes = Self.hashes(in: file)
        } else if recordsVersionHashes, let model = persistentStoreCoordinator?.managedObjectModel {
            // A new store (or one without a save yet) is written with the coordinator's model.
            hashes = model.entityVersionHashesByName
        }
        metadata = [NSStoreTypeKey: type, NSStoreUUIDKey: uuid]
        if recordsVersionHashes { metadata[NSStoreModelVersionHashesKey] = hashes }
    }

    override func didAdd(to coordinator: NSPersistentStoreCoordinator) { record("didAdd") }
    override func willRemove(from coordinator: NSPersistentStoreCoordinator?) { record("willRemove") }
    override func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {
        record("register")
        guard isInstrumented else { return }
        for id in objectIDs { Self.registrations[id.uriRepresentation().absoluteString, default: 0] += 1 }
    }
    override func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {
        record("unregister")
        guard isInstrumented else { return }
        for id in objectIDs { Self.registrations[id.uriRepresentation().absoluteString, default: 0] -= 1 }
    }

    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        guard failure == .badPermanentIDs, let first = array.first else { return try super.obtainPermanentIDs(for: array) }
        let shared = newObjectID(for: first.entity, referenceObject: "same")
        return array.map { _ in shared }
    }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: url)
        let file = data.isEmpty ? [:] : try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        var metadata: [String: Any] = [NSStoreTypeKey: type, NSStoreUUIDKey: file["uuid"] as? String ?? ""]
        if file["hashes"] != nil { metadata[NSStoreModelVersionHashesKey] = hashes(in: file) }
        return metadata
    }

    /// Writes the UUID of `metadata` into the file (the rest of it this store does not keep).
    override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        let data = try Data(contentsOf: url)
        var file = data.isEmpty ? [:] : try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        if let uuid = metadata?[NSStoreUUIDKey] as? String { file["uuid"] = uuid }
        try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]).write(to: url, options: .atomic)
    }

    private static func hashes(in file: [String: Any]) -> [String: Data] {
        (file["hashes"] as? [String: String] ?? [:]).compactMapValues { Data(base64Encoded: $0) }
    }

    /// The file's contents for `rows` and `versions`.
    private func file(rows: [String: [String: [String: Any]]], versions: [String: UInt64]) -> [String: Any] {
        var file: [String: Any] = ["uuid": identifier, "rows": rows, "versions": versions.mapValues { NSNumber(value: $0) }]
        if recordsVersionHashes { file["hashes"] = hashes.mapValues { $0.base64EncodedString() } }
        return file
    }

    // MARK: Fetching

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        switch request.requestType {
        case .fetchRequestType:
            let fetch = request as! NSFetchRequest<NSFetchRequestResult>
            if failure == .fetchAnswer { return "not an array" }
            if isInstrumented { Self.lastResultType = fetch.resultType }
            if failure == .wrongEntity, let tag = fetch.entity?.managedObjectModel?.entitiesByName["Tag"] {
                return [context!.object(with: newObjectID(for: tag, referenceObject: "stray"))]
            }
            return try answer(fetch, context: context!)
        case .saveRequestType:
            try save(request as! NSSaveChangesRequest)
            return [Any]()
        case .batchDeleteRequestType:
            if failure == .batchAnswer { return "deleted" }
            return try batchDelete(request as! NSBatchDeleteRequest)
        default:
            throw CocoaError(.featureUnsupported)
        }
    }

    private func answer(_ fetch: NSFetchRequest<NSFetchRequestResult>, context: NSManagedObjectContext) throws -> Any {
        let entity = fetch.entity!
        let entities = fetch.includesSubentities ? entity.selfAndDescendants : [entity]
        var objects: [NSManagedObject] = []
        for candidate in entities where !candidate.isAbstract {
            for reference in (rows[candidate.name!] ?? [:]).keys.sorted() {
                objects.append(context.object(with: newObjectID(for: candidate, referenceObject: reference)))
            }
        }
        if let predicate = fetch.predicate { objects = objects.filter { predicate.evaluate(with: $0) } }
        if let sorts = fetch.sortDescriptors, !sorts.isEmpty { objects = objects.sorted(by: sorts) }
        objects = Array(objects.dropFirst(fetch.fetchOffset).prefix(fetch.fetchLimit > 0 ? fetch.fetchLimit : .max))
        switch fetch.resultType {
        case .dictionaryResultType: return try dictionaries(of: objects, for: fetch)
        case .countResultType: return [NSNumber(value: objects.count)]
        case .managedObjectIDResultType: return objects.map(\.objectID)
        default: return objects
        }
    }

    /// The values of `propertiesToFetch` (names or descriptions) of each object, to-ones as IDs;
    /// grouping and expressions are more than this store does.
    private func dictionaries(of objects: [NSManagedObject], for fetch: NSFetchRequest<NSFetchRequestResult>) throws -> [NSDictionary] {
        guard fetch.propertiesToGroupBy?.isEmpty ?? true else { throw CocoaError(.featureUnsupported) }
        let names: [String] = try (fetch.propertiesToFetch ?? []).map { property in
            switch property {
            case let name as String: return name
            case let description as NSPropertyDescription where !(description is NSExpressionDescription): return description.name
            default: throw CocoaError(.featureUnsupported)
            }
        }
        var rows: [NSDictionary] = []
        for object in objects {
            let row = NSMutableDictionary()
            for name in names {
                var value = object.value(forKeyPath: name)
                if let destination = value as? NSManagedObject { value = destination.objectID }
                if let value { row[name] = value }
            }
            if fetch.returnsDistinctResults, rows.contains(where: { $0.isEqual(row) }) { continue }
            rows.append(row)
        }
        return rows
    }

    override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws
        -> NSIncrementalStoreNode {
        let entity = objectID.entity
        let reference = referenceObject(for: objectID) as! String
        guard failure != .rowsGone, let stored = rows[entity.name!]?[reference] else {
            throw CocoaError(.managedObjectReferentialIntegrity)
        }
        var values: [String: Any] = [:]
        for (name, property) in entity.propertiesByName {
            guard let value = stored[name] else { continue }
            if let attribute = property as? NSAttributeDescription {
                values[name] = Self.decode(value, as: attribute.attributeType)
            } else if let relationship = property as? NSRelationshipDescription, !relationship.isToMany, failure != .lazyToOne {
                values[name] = try self.objectID(named: value as! String, in: entity.managedObjectModel!)
            }
        }
        if failure == .nodeValue { values[entity.attributesByName.keys.sorted().first!] = [1, 2, 3] }
        return NSIncrementalStoreNode(objectID: objectID, withValues: values, version: versions[key(objectID)] ?? 1)
    }

    override func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
                           with context: NSManagedObjectContext?) throws -> Any {
        let model = objectID.entity.managedObjectModel!
        let source = key(objectID)
        if !relationship.isToMany {
            guard let name = rows[objectID.entity.name!]?[referenceObject(for: objectID) as! String]?[relationship.name] as? String
            else { return NSNull() }
            return try self.objectID(named: name, in: model)
        }
        // Ordered members and those without a to-one inverse are kept as a list of their own.
        guard let inverse = relationship.inverseRelationship, !inverse.isToMany, !relationship.isOrdered else {
            let names = rows[objectID.entity.name!]?[referenceObject(for: objectID) as! String]?[relationship.name] as? [String] ?? []
            return try names.map { try self.objectID(named: $0, in: model) }
        }
        var members: [NSManagedObjectID] = []
        for destination in relationship.destinationEntity!.selfAndDescendants {
            for (reference, values) in rows[destination.name!] ?? [:] where values[inverse.name] as? String == source {
                members.append(newObjectID(for: destination, referenceObject: reference))
            }
        }
        return members
    }

    // MARK: Saving

    /// Deletes every row of the request's entity (no predicate: this store does not evaluate
    /// them), and answers the deleted objects' IDs.
    private func batchDelete(_ request: NSBatchDeleteRequest) throws -> [NSManagedObjectID] {
        guard request.fetchRequest.predicate == nil, let entity = request.fetchRequest.entity
                ?? request.fetchRequest.entityName.flatMap({ persistentStoreCoordinator?.managedObjectModel.entitiesByName[$0] }) else {
            throw CocoaError(.featureUnsupported)
        }
        var rows = self.rows
        let references = (rows[entity.name!] ?? [:]).keys.sorted()
        rows[entity.name!] = [:]
        let contents = self.file(rows: rows, versions: versions)
        try JSONSerialization.data(withJSONObject: contents, options: [.sortedKeys]).write(to: url!, options: .atomic)
        self.rows = rows
        return references.map { newObjectID(for: entity, referenceObject: $0) }
    }

    /// The objects the last save request locked (`NSSaveChangesRequest.lockedObjects`), by ID.
    private(set) var lastLockedObjectIDs: Set<NSManagedObjectID>?

    private func save(_ request: NSSaveChangesRequest) throws {
        if failure == .save { throw CocoaError(.fileWriteOutOfSpace) }
        lastLockedObjectIDs = request.lockedObjects.map { Set($0.map(\.objectID)) }
        var rows = self.rows, versions = self.versions
        for object in (request.insertedObjects ?? []).union(request.updatedObjects ?? []) {
            var values: [String: Any] = [:]
            for (name, property) in object.entity.propertiesByName where !property.isTransient {
                let value = object.value(forKey: name)
                switch (property, value) {
                case (_, nil): continue
                case (let attribute as NSAttributeDescription, let value?):
                    values[name] = try Self.encode(value, as: attribute.attributeType)
                case (let relationship as NSRelationshipDescription, let value?):
                    if !relationship.isToMany {
                        values[name] = key((value as! NSManagedObject).objectID)
                    } else if relationship.isOrdered {
                        values[name] = (value as! NSOrderedSet).array.map { key(($0 as! NSManagedObject).objectID) }
                    } else if relationship.inverseRelationship == nil || relationship.inverseRelationship!.isToMany {
                        values[name] = (value as! Set<NSManagedObject>).map { key($0.objectID) }.sorted()
                    }
                default: continue
                }
            }
            rows[object.entity.name!, default: [:]][referenceObject(for: object.objectID) as! String] = values
            versions[key(object.objectID), default: 0] += 1
        }
        for object in request.deletedObjects ?? [] {
            rows[object.entity.name!]?[referenceObject(for: object.objectID) as! String] = nil
            versions[key(object.objectID)] = nil
        }
        let changed = Array((request.insertedObjects ?? []).union(request.updatedObjects ?? []))
        if let conflicts = uniquenessConflicts(of: changed, in: rows), !conflicts.isEmpty {
            throw CocoaError(.managedObjectConstraintMerge, userInfo: [NSPersistentStoreSaveConflictsErrorKey: conflicts])
        }
        let contents = self.file(rows: rows, versions: versions)
        try JSONSerialization.data(withJSONObject: contents, options: [.sortedKeys]).write(to: url!, options: .atomic)
        self.rows = rows
        self.versions = versions
    }

    /// The uniqueness constraints the rows would break, as a store of one's own must report
    /// them: the save's objects sharing the values, and the saved object that has them.
    private func uniquenessConflicts(of changed: [NSManagedObject], in rows: [String: [String: [String: Any]]]) -> [NSConstraintConflict]? {
        var conflicts: [NSConstraintConflict] = []
        var reported: Set<String> = []
        let changedKeys = Set(changed.map { key($0.objectID) })
        for object in changed {
            var entity: NSEntityDescription? = object.entity
            while let constrained = entity {
                for constraint in constrained.uniquenessConstraints {
                    let names = constraint.compactMap { $0 as? String }
                    let mine = rows[object.entity.name!]?[referenceObject(for: object.objectID) as! String] ?? [:]
                    guard names.allSatisfy({ mine[$0] != nil }) else { continue }
                    let values = NSArray(array: names.map { mine[$0]! })
                    var holders: [String] = []
                    for family in constrained.selfAndDescendants {
                        for (reference, row) in rows[family.name!] ?? [:]
                        where names.allSatisfy({ row[$0] != nil }) && NSArray(array: names.map { row[$0]! }).isEqual(values) {
                            holders.append("\(family.name!)/\(reference)")
                        }
                    }
                    guard holders.count > 1, reported.insert("\(names)|\(holders.sorted())").inserted,
                          let context = object.managedObjectContext else { continue }
                    let model = object.entity.managedObjectModel!
                    let objects = holders.filter(changedKeys.contains).compactMap { try? context.existingObject(with: objectID(named: $0, in: model)) }
                    let saved = holders.first { !changedKeys.contains($0) }.flatMap { try? objectID(named: $0, in: model) }
                    conflicts.append(NSConstraintConflict(constraint: names, databaseObject: saved.map(context.object(with:)), databaseSnapshot: nil,
                                                          conflictingObjects: objects, conflictingSnapshots: objects.map { _ in [String: Any]() }))
                }
                entity = constrained.superentity
            }
        }
        return conflicts
    }

    // MARK: Values

    /// A value as JSON holds it: numbers and strings as they are, dates as seconds since 2001,
    /// data as base64, UUIDs, URLs and decimals as their text; transformable values must be JSON
    /// already (the tests' are arrays of strings).
    private static func encode(_ value: Any, as type: NSAttributeType) throws -> Any {
        switch (type, value) {
        case (.dateAttributeType, let date as Date): return date.timeIntervalSinceReferenceDate
        case (.binaryDataAttributeType, let data as Data): return ["data": data.base64EncodedString()]
        case (.UUIDAttributeType, let uuid as UUID): return ["uuid": uuid.uuidString]
        case (.URIAttributeType, let url as URL): return ["url": url.absoluteString]
        case (.decimalAttributeType, let decimal as Decimal): return ["decimal": "\(decimal)"]
        case (.decimalAttributeType, let number as NSDecimalNumber): return ["decimal": number.stringValue]
        case (.transformableAttributeType, _):
            guard JSONSerialization.isValidJSONObject([value]) else { throw CocoaError(.propertyListWriteInvalid) }
            return ["json": value]
        default: return value
        }
    }

    private static func decode(_ value: Any, as type: NSAttributeType) -> Any {
        let wrapped = value as? [String: Any]
        switch type {
        case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: (value as! NSNumber).doubleValue)
        case .binaryDataAttributeType: return Data(base64Encoded: wrapped?["data"] as? String ?? "") as Any
        case .UUIDAttributeType: return UUID(uuidString: wrapped?["uuid"] as? String ?? "") as Any
        case .URIAttributeType: return URL(string: wrapped?["url"] as? String ?? "") as Any
        case .decimalAttributeType: return Decimal(string: wrapped?["decimal"] as? String ?? "") as Any
        case .transformableAttributeType: return wrapped?["json"] as Any
        default: return value
        }
    }

    // MARK: References

    private func key(_ objectID: NSManagedObjectID) -> String {
        "\(objectID.entity.name!)/\(referenceObject(for: objectID))"
    }

    private func objectID(named name: String, in model: NSManagedObjectModel) throws -> NSManagedObjectID {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let entity = model.entitiesByName[parts[0]] else { throw CocoaError(.fileReadCorruptFile) }
        return newObjectID(for: entity, referenceObject: parts[1])
    }
}
