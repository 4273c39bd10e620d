import Foundation
import OpenCoreData
@testable import OpenCoreDataCore

/// A test-only atomic store of its own: an `NSAtomicStore` over one JSON file, written the way a
/// user of the public API writes one. `load()` registers a node per object; `save()` writes every
/// node. Objects are named `Entity/reference` (references are `o1`, `o2`, … from
/// `newReferenceObject(for:)`); the metadata is a property list, base64 in the JSON. Nodes are
/// made and filled by `NSAtomicStore`'s defaults, but for one override that counts the calls.
final class JSONAtomicStore: NSAtomicStore, @unchecked Sendable {
    // @unchecked Sendable: the store's own fields are used only from its methods, which the
    // coordinator calls one at a time.
    static let type = "JSONAtomic"
    /// The same store heeding the hooks below (`AtomicStoreTests`, which runs serialized).
    static let instrumentedType = "JSONAtomicInstrumented"

    /// What the tests can make the store do wrong.
    nonisolated(unsafe) static var failure: Failure?
    enum Failure { case save, danglingReference }
    /// Calls the store heard, for the tests to check.
    nonisolated(unsafe) static var calls: [String] = []
    private var failure: Failure? { type == Self.instrumentedType ? Self.failure : nil }
    private func record(_ call: String) { if type == Self.instrumentedType { Self.calls.append(call) } }

    private var lastReference = 0

    static func register() {
        NSPersistentStoreCoordinator.registerStoreClass(JSONAtomicStore.self, forStoreType: type)
        NSPersistentStoreCoordinator.registerStoreClass(JSONAtomicStore.self, forStoreType: instrumentedType)
    }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        try metadata(in: try file(at: url))
    }

    override func load() throws {
        guard let url, FileManager.default.fileExists(atPath: url.path) else { return }
        let file = try Self.file(at: url)
        let model = persistentStoreCoordinator!.managedObjectModel
        lastReference = file["lastReference"] as? Int ?? 0
        var nodes: [String: NSAtomicStoreCacheNode] = [:]
        let objects = file["objects"] as? [[String: Any]] ?? []
        for object in objects {
            let name = object["id"] as! String
            nodes[name] = NSAtomicStoreCacheNode(objectID: try objectID(named: name, in: model))
        }
        for object in objects {
            let node = nodes[object["id"] as! String]!
            let entity = node.objectID.entity
            for (key, value) in object["values"] as? [String: Any] ?? [:] {
                guard let attribute = entity.attributesByName[key] else { continue }
                node.setValue(Self.decode(value, as: attribute.attributeType), forKey: key)
            }
            for (key, value) in object["relationships"] as? [String: Any] ?? [:] {
                func destination(_ name: String) -> Any {
                    // A reference to an object that is not in the file is handed on as its ID,
                    // for the framework to refuse.
                    if let found = nodes[name] { return found }
                    return (try? objectID(named: name, in: model)) as Any
                }
                if let names = value as? [String] {
                    node.setValue(entity.relationshipsByName[key]?.isOrdered == true ? NSOrderedSet(array: names.map(destination))
                                  : NSSet(array: names.map(destination)), forKey: key)
                } else if let name = value as? String {
                    node.setValue(destination(name), forKey: key)
                }
            }
        }
        addCacheNodes(Set(nodes.values))
    }

    override func save() throws {
        record("save")
        if failure == .save { throw CocoaError(.fileWriteOutOfSpace) }
        var objects: [[String: Any]] = []
        for node in cacheNodes() {
            var values: [String: Any] = [:]
            var relationships: [String: Any] = [:]
            for (key, value) in node.propertyCache ?? [:] {
                let key = key as! String
                if let attribute = node.objectID.entity.attributesByName[key] {
                    values[key] = try Self.encode(value, as: attribute.attributeType)
                } else if let destination = value as? NSAtomicStoreCacheNode {
                    relationships[key] = name(of: destination.objectID)
                } else if let ordered = value as? NSOrderedSet {
                    relationships[key] = ordered.array.map { name(of: ($0 as! NSAtomicStoreCacheNode).objectID) }
                } else if let set = value as? NSSet {
                    relationships[key] = set.allObjects.map { name(of: ($0 as! NSAtomicStoreCacheNode).objectID) }.sorted()
                }
            }
            if failure == .danglingReference, relationships.isEmpty == false {
                relationships[relationships.keys.first!] = "\(node.objectID.entity.name!)/missing"
            }
            objects.append(["id": name(of: node.objectID), "values": values, "relationships": relationships])
        }
        let metadataData = try PropertyListSerialization.data(fromPropertyList: metadata ?? [:], format: .binary, options: 0)
        let file: [String: Any] = ["metadata": metadataData.base64EncodedString(), "lastReference": lastReference,
                                   "objects": objects.sorted { ($0["id"] as! String) < ($1["id"] as! String) }]
        try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]).write(to: url!, options: .atomic)
    }

    override func newReferenceObject(for managedObject: NSManagedObject) -> Any {
        lastReference += 1
        return "o\(lastReference)"
    }

    override func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
        record("update \(managedObject.entity.name!)")
        super.updateCacheNode(node, from: managedObject)
    }

    override func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {
        record("remove \(cacheNodes.count)")
    }

    // MARK: The file

    private static func file(at url: URL) throws -> [String: Any] {
        guard let file = try JSONSerialization.jsonObject(with: try Data(contentsOf: url)) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        return file
    }

    private static func metadata(in file: [String: Any]) throws -> [String: Any] {
        guard let text = file["metadata"] as? String, let data = Data(base64Encoded: text),
              let metadata = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return metadata
    }

    private func name(of objectID: NSManagedObjectID) -> String {
        "\(objectID.entity.name!)/\(referenceObject(for: objectID))"
    }

    private func objectID(named name: String, in model: NSManagedObjectModel) throws -> NSManagedObjectID {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let entity = model.entitiesByName[parts[0]] else { throw CocoaError(.fileReadCorruptFile) }
        return objectID(for: entity, withReferenceObject: parts[1])
    }

    // MARK: Values

    /// A value as JSON holds it: dates as seconds since 2001, data as base64, UUIDs, URLs and
    /// decimals as text, transformable values (JSON already in the tests) as they are.
    private static func encode(_ value: Any, as type: NSAttributeType) throws -> Any {
        switch (type, value) {
        case (.dateAttributeType, let date as Date): return date.timeIntervalSinceReferenceDate
        case (.binaryDataAttributeType, let data as Data): return ["data": data.base64EncodedString()]
        case (.UUIDAttributeType, let uuid as UUID): return ["uuid": uuid.uuidString]
        case (.URIAttributeType, let url as URL): return ["url": url.absoluteString]
        case (.decimalAttributeType, let decimal as Decimal): return ["decimal": "\(decimal)"]
        case (.transformableAttributeType, _):
            guard JSONSerialization.isValidJSONObject([value]) else { throw CocoaError(.propertyListWriteInvalid) }
            return ["json": value]
        default: return value
        }
    }

    private static func decode(_ value: Any, as type: NSAttributeType) -> Any? {
        let wrapped = value as? [String: Any]
        switch type {
        case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: (value as! NSNumber).doubleValue)
        case .binaryDataAttributeType: return Data(base64Encoded: wrapped?["data"] as? String ?? "")
        case .UUIDAttributeType: return UUID(uuidString: wrapped?["uuid"] as? String ?? "")
        case .URIAttributeType: return URL(string: wrapped?["url"] as? String ?? "")
        case .decimalAttributeType: return Decimal(string: wrapped?["decimal"] as? String ?? "")
        case .transformableAttributeType: return wrapped?["json"]
        default: return value
        }
    }
}
