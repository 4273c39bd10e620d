import Foundation
import OpenCoreData
import OpenCoreDataCore
import OpenCoreDataSQLite

/// What `ocd migrate` reports: the plan (source version and how it was found, the change to each
/// entity and property) and, once run, how long the migration took. Encoded as `--json`.
struct MigrationReport: Encodable {
    struct EntityChange: Encodable {
        let mapping: String
        let type: String
        let source: String?
        let destination: String?
        let added: [String]
        let removed: [String]
        let renamed: [String: String]
    }

    let store: String
    let model: String
    let version: String?
    let needed: Bool
    let source: String?
    /// "inferred", or "mapping model" when the application's own mapping model is followed.
    let mappingKind: String?
    let entities: [EntityChange]
    var migratedSeconds: Double?

    init(store: String, model: String, version: String?, plan: SQLiteMigrationPreview) {
        self.store = store
        self.model = model
        self.version = version
        needed = plan.isNeeded
        source = plan.source.map { "\($0.origin)" }
        mappingKind = plan.isNeeded ? (plan.usesMappingModel ? "mapping model" : "inferred") : nil
        let sourceModel = plan.source?.model
        entities = (plan.mapping?.entityMappings ?? []).compactMap { mapping in
            Self.change(mapping, sourceModel: sourceModel)
        }
    }

    func with(migratedSeconds seconds: Double?) -> MigrationReport {
        var copy = self
        copy.migratedSeconds = seconds
        return copy
    }

    /// An entity mapping's changes; nil for an entity copied as it is.
    private static func change(_ mapping: NSEntityMapping, sourceModel: NSManagedObjectModel?) -> EntityChange? {
        let properties = (mapping.attributeMappings ?? []) + (mapping.relationshipMappings ?? [])
        var added: [String] = [], renamed: [String: String] = [:]
        var used = Set<String>()
        for property in properties {
            guard let name = property.name else { continue }
            if let old = property.sourcePropertyName {
                used.insert(old)
                if old != name { renamed[old] = name }
            } else {
                added.append(name)
            }
        }
        let oldProperties = mapping.sourceEntityName.flatMap { sourceModel?.entitiesByName[$0] }
            .map { entity in entity.propertiesByName.values.filter { !$0.isTransient }.map(\.name) } ?? []
        let removed = mapping.mappingType == .addEntityMappingType ? [] : oldProperties.filter { !used.contains($0) }.sorted()
        if mapping.mappingType == .copyEntityMappingType { return nil }
        return EntityChange(mapping: mapping.name ?? "", type: Self.name(of: mapping.mappingType), source: mapping.sourceEntityName,
                            destination: mapping.destinationEntityName, added: mapping.mappingType == .addEntityMappingType ? [] : added.sorted(),
                            removed: mapping.mappingType == .removeEntityMappingType ? [] : removed, renamed: renamed)
    }

    private static func name(of type: NSEntityMappingType) -> String {
        switch type {
        case .addEntityMappingType: "add"
        case .removeEntityMappingType: "remove"
        case .copyEntityMappingType: "copy"
        case .transformEntityMappingType: "transform"
        case .customEntityMappingType: "custom"
        case .undefinedEntityMappingType: "undefined"
        }
    }

    /// The human-readable plan.
    var text: String {
        var lines = ["Store: \(store)", "Model: \(model)\(version.map { " (version \($0))" } ?? "")"]
        guard needed else { return (lines + ["The store fits the model."]).joined(separator: "\n") }
        lines.append("Source: \(source ?? "?")")
        lines.append(mappingKind == "mapping model" ? "Mapping: the application's mapping model for the two versions" : "Mapping: inferred")
        for entity in entities {
            switch entity.type {
            case "add": lines.append("  + entity \(entity.destination ?? "")")
            case "remove": lines.append("  - entity \(entity.source ?? "")")
            default:
                let title = entity.source == entity.destination ? "\(entity.destination ?? "")" : "\(entity.source ?? "") → \(entity.destination ?? "")"
                lines.append("  ~ entity \(title)")
                for name in entity.added { lines.append("      + \(name)") }
                for name in entity.removed { lines.append("      - \(name)") }
                for (old, new) in entity.renamed.sorted(by: { $0.key < $1.key }) { lines.append("      ~ \(old) → \(new)") }
            }
        }
        if entities.isEmpty { lines.append("  (only version hashes change)") }
        return lines.joined(separator: "\n")
    }
}
