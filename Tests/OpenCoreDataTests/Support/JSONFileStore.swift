import Foundation
@testable import OpenCoreData

/// A test-only store of its own: an `NSIncrementalStore` over one JSON file, written the way a
/// user of the public API would write one. Rows are kept by entity and reference (a UUID
/// string); attributes as JSON values (dates as seconds since 2001), to-ones as the
/// destination's `Entity/reference`. To-manys are found through their inverse to-one, or kept
/// as lists of references when they have none. Every save rewrites the file atomically.
final class JSONFileStore: NSIncrementalStore, @unchecked Sendable {
    // @unchecked Sendable: `rows` is used only from the store's methods, which the coordinator
    // calls one at a time.
    static let type = "JSONFile"

    /// What the tests can make the store do wrong.
    nonisolated(unsafe) static var failure: Failure?
    enum Failure { case loadMetadata, save, fetchAnswer, nodeValue, wrongEntity, lazyToOne, rowsGone, badPermanentIDs }

    /// Calls the store heard, for the tests to check.
    nonisolated(unsafe) static var calls: [String] = []
    /// Per object URI: registrations minus unregistrations the store was told of.
    nonisolated(unsafe) static var registrations: [String: Int] = [:]
    /// The result type of the last fetch request the store was handed.
    nonisolated(unsafe) static var lastResultType: NSFetchRequestResultType?

    private var rows: [String: [String: [String: Any]]] = [:]   // entity → reference → values
    private var versions: [String: UInt64] = [:]                 // "Entity/reference" → version

    static func register() { NSPersistentStoreCoordinator.registerStoreClass(JSONFileStore.self, forStoreType: type) }

    override func loadMetadata() throws {
        if Self.failure == .loadMetadata { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "bad file"]) }
        var uuid = JSONFileStore.identifierForNewStore(at: url!) as! String
        if let data = FileManager.default.contents(atPath: url!.path),
           let file = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
            uuid = file["uuid"] as? String ?? uuid
            rows = file["rows"] as? [String: [String: [String: Any]]] ?? [:]
            versions = (file["versions"] as? [String: NSNumber] ?? [:]).mapValues { $0.uint64Value }
        }
        metadata = [NSStoreTypeKey: Self.type, NSStoreUUIDKey: uuid]
    }

    override func didAdd(to coordinator: NSPersistentStoreCoordinator) { Self.calls.append("didAdd") }
    override func willRemove(from coordinator: NSPersistentStoreCoordinator?) { Self.calls.append("willRemove") }
    override func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {
        Self.calls.append("register")
        for id in objectIDs { Self.registrations[id.uriRepresentation().absoluteString, default: 0] += 1 }
    }
    override func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {
        Self.calls.append("unregister")
        for id in objectIDs { Self.registrations[id.uriRepresentation().absoluteString, default: 0] -= 1 }
    }

    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        guard Self.failure == .badPermanentIDs, let first = array.first else { return try super.obtainPermanentIDs(for: array) }
        let shared = newObjectID(for: first.entity, referenceObject: "same")
        return array.map { _ in shared }
    }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: url)
        let file = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return [NSStoreTypeKey: type, NSStoreUUIDKey: file["uuid"] as? String ?? ""]
    }

    // MARK: Fetching

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        switch request.requestType {
        case .fetchRequestType:
            let fetch = request as! NSFetchRequest<NSFetchRequestResult>
            if Self.failure == .fetchAnswer { return "not an array" }
            Self.lastResultType = fetch.resultType
            if Self.failure == .wrongEntity, let tag = fetch.entity?.managedObjectModel?.entitiesByName["Tag"] {
                return [context!.object(with: newObjectID(for: tag, referenceObject: "stray"))]
            }
            return try answer(fetch, context: context!)
        case .saveRequestType:
            try save(request as! NSSaveChangesRequest)
            return [Any]()
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
        case .countResultType: return [NSNumber(value: objects.count)]
        case .managedObjectIDResultType: return objects.map(\.objectID)
        default: return objects
        }
    }

    override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws
        -> NSIncrementalStoreNode {
        let entity = objectID.entity
        let reference = referenceObject(for: objectID) as! String
        guard Self.failure != .rowsGone, let stored = rows[entity.name!]?[reference] else {
            throw CocoaError(.managedObjectReferentialIntegrity)
        }
        var values: [String: Any] = [:]
        for (name, property) in entity.propertiesByName {
            guard let value = stored[name] else { continue }
            if let attribute = property as? NSAttributeDescription {
                values[name] = attribute.attributeType == .dateAttributeType
                    ? Date(timeIntervalSinceReferenceDate: (value as! NSNumber).doubleValue) : value
            } else if let relationship = property as? NSRelationshipDescription, !relationship.isToMany, Self.failure != .lazyToOne {
                values[name] = try self.objectID(named: value as! String, in: entity.managedObjectModel!)
            }
        }
        if Self.failure == .nodeValue { values[entity.attributesByName.keys.sorted().first!] = [1, 2, 3] }
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
        guard let inverse = relationship.inverseRelationship, !inverse.isToMany else {
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

    private func save(_ request: NSSaveChangesRequest) throws {
        if Self.failure == .save { throw CocoaError(.fileWriteOutOfSpace) }
        var rows = self.rows, versions = self.versions
        for object in (request.insertedObjects ?? []).union(request.updatedObjects ?? []) {
            var values: [String: Any] = [:]
            for (name, property) in object.entity.propertiesByName where !property.isTransient {
                let value = object.value(forKey: name)
                switch (property, value) {
                case (_, nil): continue
                case (let attribute as NSAttributeDescription, let value?):
                    values[name] = attribute.attributeType == .dateAttributeType ? (value as! Date).timeIntervalSinceReferenceDate : value
                case (let relationship as NSRelationshipDescription, let value?):
                    if !relationship.isToMany {
                        values[name] = key((value as! NSManagedObject).objectID)
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
        let file: [String: Any] = ["uuid": identifier, "rows": rows, "versions": versions.mapValues { NSNumber(value: $0) }]
        try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]).write(to: url!, options: .atomic)
        self.rows = rows
        self.versions = versions
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
