import Foundation
import OpenCoreData

/// What `ocd store info` prints: a store's metadata, its entities with their object counts, and,
/// given a model, whether that model can open the store. The JSON form is documented in
/// Docs/ocd-json.md.
struct StoreInfo: Encodable {
    struct EntityCount: Encodable {
        let name: String
        let parent: String?
        let count: Int
    }

    /// Whether a model given with `--model` fits the store.
    struct Compatibility: Encodable {
        let model: String
        /// Whether the store opens with the model (OpenCoreData's check: version hashes, and
        /// structure where a hash is not known to be Apple's).
        let compatible: Bool
        /// Why not, when it does not.
        let reason: String?
        /// Whether the entity version hashes equal the store's (Core Data's own test).
        let versionHashesMatch: Bool
        /// The entities whose hashes differ, or that only one side has.
        let differingEntities: [String]

        /// `opened` is the outcome of opening the store with `model`.
        init(of model: NSManagedObjectModel, path: String, with metadata: [String: Any], opened: Result<NSManagedObjectContext, any Error>) {
            self.model = path
            versionHashesMatch = model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
            let stored = (metadata["NSStoreModelVersionHashes"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
            let mine = model.entityVersionHashesByName
            differingEntities = Set(stored.keys).union(mine.keys).filter { stored[$0] != mine[$0] }.sorted()
            switch opened {
            case .success:
                compatible = true
                reason = nil
            case .failure(let error):
                compatible = false
                reason = StoreCommand.describe(error)
            }
        }
    }

    let path: String
    let storeType: String?
    let uuid: String?
    let frameworkVersion: Int?
    let modelVersionIdentifiers: [String]
    /// How the store carries its own model: "modelCache", "inferredFromTables", or absent.
    let storedModel: String?
    let compatibility: Compatibility?
    let entities: [EntityCount]
    /// The whole metadata, as JSON (data in base64, dates in ISO 8601).
    let metadata: [String: PropertyListJSON]

    init(path: String, metadata: [String: Any], storedModel: String?, compatibility: Compatibility?, entities: [EntityCount]) {
        self.path = path
        storeType = metadata["NSStoreType"] as? String
        uuid = metadata["NSStoreUUID"] as? String
        frameworkVersion = (metadata["NSPersistenceFrameworkVersion"] as? NSNumber)?.intValue
            ?? metadata["NSPersistenceFrameworkVersion"] as? Int
        modelVersionIdentifiers = (metadata["NSStoreModelVersionIdentifiers"] as? [Any] ?? []).compactMap { $0 as? String }
        self.storedModel = storedModel
        self.compatibility = compatibility
        self.entities = entities
        self.metadata = metadata.mapValues(PropertyListJSON.init)
    }

    var text: String {
        var lines = ["Store \(path)"]
        lines.append("  type \(storeType ?? "?"), UUID \(uuid ?? "?")" + (frameworkVersion.map { ", framework version \($0)" } ?? ""))
        if !modelVersionIdentifiers.isEmpty, modelVersionIdentifiers != [""] {
            lines.append("  model version identifiers: \(modelVersionIdentifiers.joined(separator: ", "))")
        }
        switch storedModel {
        case "modelCache": lines.append("  carries its model (Z_MODELCACHE)")
        case "inferredFromTables": lines.append("  carries no model: entities and columns inferred from its tables (read-only)")
        default: lines.append("  its model cannot be read from the store")
        }
        if !entities.isEmpty {
            lines.append("\nEntities (\(entities.reduce(0) { $0 + $1.count }) objects):")
            let width = entities.map { $0.name.count + ($0.parent.map { $0.count + 3 } ?? 0) }.max() ?? 0
            for entity in entities {
                let name = entity.name + (entity.parent.map { " : \($0)" } ?? "")
                lines.append("  \(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(entity.count)")
            }
        }
        if let compatibility {
            lines.append("\nModel \(compatibility.model): " + (compatibility.compatible ? "compatible" : "not compatible"))
            if let reason = compatibility.reason { lines.append("  \(reason)") }
            lines.append("  version hashes " + (compatibility.versionHashesMatch ? "match" :
                "differ" + (compatibility.differingEntities.isEmpty ? "" : " for \(compatibility.differingEntities.joined(separator: ", "))")))
        }
        lines.append("\nMetadata:")
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(key) = \(value.text)")
        }
        return lines.joined(separator: "\n")
    }
}

/// A property-list value as JSON: data in base64, dates in ISO 8601.
indirect enum PropertyListJSON: Encodable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case array([PropertyListJSON])
    case dictionary([String: PropertyListJSON])

    init(_ value: Any) {
        switch value {
        case let string as String: self = .string(string)
        // Exactly a Bool: on Linux an NSNumber 0 or 1 also casts to Bool.
        case let bool as Bool where type(of: value) == Bool.self: self = .bool(bool)
        case let number as NSNumber:
            let double = number.doubleValue
            self = double.rounded() == double && abs(double) < 9e15 ? .integer(number.int64Value) : .double(double)
        case let data as Data: self = .string(data.base64EncodedString())
        case let date as Date: self = .string(ISO8601DateFormatter().string(from: date))
        case let array as [Any]: self = .array(array.map(PropertyListJSON.init))
        case let dictionary as [String: Any]: self = .dictionary(dictionary.mapValues(PropertyListJSON.init))
        default: self = .string("\(value)")
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .dictionary(let value): try container.encode(value)
        }
    }

    var text: String {
        switch self {
        case .string(let value): value
        case .integer(let value): "\(value)"
        case .double(let value): "\(value)"
        case .bool(let value): value ? "true" : "false"
        case .array(let values): "[" + values.map(\.text).joined(separator: ", ") + "]"
        case .dictionary(let values):
            "{" + values.sorted(by: { $0.key < $1.key }).map { "\($0.key): \($0.value.text)" }.joined(separator: ", ") + "}"
        }
    }
}
