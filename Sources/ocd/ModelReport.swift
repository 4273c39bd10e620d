import Foundation
import OpenCoreData

/// What `ocd model show` prints: a model's entities, properties, relationships and versions.
/// Its JSON form is documented in Docs/ocd-json.md; keep the two in step.
struct ModelReport: Encodable {
    struct Attribute: Encodable {
        let name: String
        let type: String
        let optional: Bool
        let transient: Bool
        let defaultValue: JSONValue?
        let valueTransformerName: String?
        let derivation: String?
    }

    struct Relationship: Encodable {
        let name: String
        let destination: String?
        let inverse: String?
        let toMany: Bool
        let ordered: Bool
        let optional: Bool
        let transient: Bool
        let deleteRule: String
        let minCount: Int
        let maxCount: Int
    }

    struct FetchedProperty: Encodable {
        let name: String
        let entity: String?
        let predicate: String?
    }

    struct Index: Encodable {
        let name: String
        let properties: [String]
    }

    struct Entity: Encodable {
        let name: String
        /// Apple's entity version hash, base64 (what store metadata records).
        let versionHash: String
        let className: String
        let abstract: Bool
        let parent: String?
        let subentities: [String]
        let attributes: [Attribute]
        let relationships: [Relationship]
        let fetchedProperties: [FetchedProperty]
        let uniquenessConstraints: [[String]]
        let indexes: [Index]
    }

    struct FetchRequestTemplate: Encodable {
        let name: String
        let entity: String?
        let predicate: String?
    }

    let path: String
    /// The versions of a model file; absent for a store's model.
    let versions: [String]?
    let currentVersion: String?
    /// For a store: how it carries its model ("modelCache" or "inferredFromTables").
    let storedModel: String?
    let versionIdentifiers: [String]
    let entities: [Entity]
    let configurations: [String: [String]]
    let fetchRequestTemplates: [FetchRequestTemplate]

    init(model: NSManagedObjectModel, path: String, versions: ModelFileVersions?, storedModel: String?) {
        self.path = path
        self.versions = versions?.names
        self.currentVersion = versions?.current
        self.storedModel = storedModel
        versionIdentifiers = model.versionIdentifiers.compactMap { $0 as? String }.sorted()
        entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }.map(Self.entity)
        configurations = Dictionary(uniqueKeysWithValues: model.configurations.map { name in
            (name, (model.entities(forConfigurationName: name) ?? []).compactMap(\.name))
        })
        fetchRequestTemplates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }.map { name, request in
            FetchRequestTemplate(name: name, entity: request.entityName, predicate: request.predicate?.predicateFormat)
        }
    }

    private static func entity(_ entity: NSEntityDescription) -> Entity {
        Entity(
            name: entity.name ?? "",
            versionHash: entity.versionHash.base64EncodedString(),
            className: entity.managedObjectClassName,
            abstract: entity.isAbstract,
            parent: entity.superentity?.name,
            subentities: entity.subentities.compactMap(\.name),
            attributes: entity.properties.compactMap { $0 as? NSAttributeDescription }.map { attribute in
                Attribute(name: attribute.name, type: attribute.attributeType.modelName, optional: attribute.isOptional,
                          transient: attribute.isTransient, defaultValue: attribute.defaultValue.map { JSONValue($0, type: attribute.attributeType) },
                          valueTransformerName: attribute.valueTransformerName,
                          derivation: (attribute as? NSDerivedAttributeDescription).flatMap {
                              $0.derivationExpression.map { "\($0)" } ?? $0.derivationExpressionFormat
                          })
            },
            relationships: entity.properties.compactMap { $0 as? NSRelationshipDescription }.map { relationship in
                Relationship(name: relationship.name, destination: relationship.destinationEntity?.name,
                             inverse: relationship.inverseRelationship?.name, toMany: relationship.isToMany,
                             ordered: relationship.isOrdered, optional: relationship.isOptional,
                             transient: relationship.isTransient, deleteRule: deleteRuleName(relationship.deleteRule),
                             minCount: relationship.minCount,
                             // Code-built models say "no maximum" with Int.max (or -1); the report says 0, as Xcode does.
                             maxCount: relationship.maxCount >= Int(Int32.max) || relationship.maxCount < 0 ? 0 : relationship.maxCount)
            },
            fetchedProperties: entity.properties.compactMap { $0 as? NSFetchedPropertyDescription }.map { property in
                FetchedProperty(name: property.name, entity: property.fetchRequest?.entityName,
                                predicate: property.fetchRequest?.predicate?.predicateFormat)
            },
            uniquenessConstraints: entity.uniquenessConstraints.map { constraint in
                constraint.map { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name ?? "\($0)" }
            },
            indexes: entity.indexes.map { index in
                Index(name: index.name, properties: index.elements.map { element in
                    (element.property?.name ?? element.propertyName ?? "?") + (element.isAscending ? "" : " descending")
                })
            })
    }

    static func deleteRuleName(_ rule: NSDeleteRule) -> String {
        switch rule {
        case .noActionDeleteRule: "noAction"
        case .nullifyDeleteRule: "nullify"
        case .cascadeDeleteRule: "cascade"
        case .denyDeleteRule: "deny"
        }
    }

    /// The human-readable form.
    var text: String {
        var lines = ["Model \(path)"]
        if let versions, let currentVersion {
            lines.append(versions.count > 1 ? "Versions: \(versions.joined(separator: ", ")) (current: \(currentVersion))"
                                            : "Version: \(currentVersion)")
        }
        switch storedModel {
        case "modelCache": lines.append("The model the store carries (Z_MODELCACHE)")
        case "inferredFromTables": lines.append("Inferred from the store's tables: names in lower case, no to-many relationships")
        default: break
        }
        if !versionIdentifiers.isEmpty, versionIdentifiers != [""] {
            lines.append("Version identifiers: \(versionIdentifiers.joined(separator: ", "))")
        }
        for entity in entities {
            var header = "\nEntity \(entity.name)"
            if entity.className != "NSManagedObject" { header += " (class \(entity.className))" }
            if let parent = entity.parent { header += " : \(parent)" }
            if entity.abstract { header += ", abstract" }
            lines.append(header)
            lines.append("  version hash \(entity.versionHash)")
            for attribute in entity.attributes {
                var line = "  \(attribute.name): \(attribute.type)"
                if attribute.optional { line += ", optional" }
                if attribute.transient { line += ", transient" }
                if let value = attribute.defaultValue { line += ", default \(value.text)" }
                if let transformer = attribute.valueTransformerName { line += ", transformer \(transformer)" }
                if let derivation = attribute.derivation { line += ", derived from \(derivation)" }
                lines.append(line)
            }
            for relationship in entity.relationships {
                var line = "  \(relationship.name) -> \(relationship.toMany ? "many " : "")\(relationship.destination ?? "?")"
                if relationship.ordered { line += ", ordered" }
                if relationship.optional { line += ", optional" }
                if relationship.transient { line += ", transient" }
                line += relationship.inverse.map { ", inverse \($0)" } ?? ", no inverse"
                line += ", delete rule \(relationship.deleteRule)"
                if relationship.minCount > 0 { line += ", at least \(relationship.minCount)" }
                if relationship.toMany && relationship.maxCount > 0 { line += ", at most \(relationship.maxCount)" }
                lines.append(line)
            }
            for property in entity.fetchedProperties {
                lines.append("  \(property.name) => fetch \(property.entity ?? "?")\(property.predicate.map { " where \($0)" } ?? "")")
            }
            for constraint in entity.uniquenessConstraints {
                lines.append("  unique (\(constraint.joined(separator: ", ")))")
            }
            for index in entity.indexes {
                lines.append("  index \(index.name) (\(index.properties.joined(separator: ", ")))")
            }
        }
        if !configurations.isEmpty {
            lines.append("\nConfigurations:")
            for (name, members) in configurations.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(name): \(members.joined(separator: ", "))")
            }
        }
        if !fetchRequestTemplates.isEmpty {
            lines.append("\nFetch request templates:")
            for template in fetchRequestTemplates {
                lines.append("  \(template.name): \(template.entity ?? "?")\(template.predicate.map { " where \($0)" } ?? "")")
            }
        }
        return lines.joined(separator: "\n")
    }
}
