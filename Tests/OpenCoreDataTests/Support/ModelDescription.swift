import Foundation
import OpenCoreData

/// Everything a model says, as sorted lines, so that two models (one read back from an archive
/// of the other) can be compared field by field and a difference names the field.
///
/// Left out: `attributeValueClassName` (an archive always names the class, a model built in
/// code may not), and the optionality and transience of fetched properties (Core Data's are
/// always optional and transient).
struct ModelDescription: Equatable, CustomStringConvertible {
    let lines: [String]

    init(_ model: NSManagedObjectModel) {
        var lines: [String] = []
        lines.append("versionIdentifiers \(model.versionIdentifiers.map { "\(type(of: $0.base)) \($0)" }.sorted())")
        for name in model.configurations {
            lines.append("configuration \(name): \((model.entities(forConfigurationName: name) ?? []).compactMap(\.name).sorted())")
        }
        for (name, request) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            lines.append("template \(name): \(Self.describe(request))")
        }
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let name = entity.name ?? "?"
            lines.append("\(name): class \(entity.managedObjectClassName!) abstract \(entity.isAbstract) super \(entity.superentity?.name ?? "-") renaming \(entity.renamingIdentifier ?? "-") modifier \(entity.versionHashModifier ?? "-") userInfo \(Self.describe(entity.userInfo))")
            lines.append("\(name) unique \(entity.uniquenessConstraints.map { $0.map(Self.propertyName) })")
            lines.append("\(name) compound \(entity.compoundIndexes.map { $0.map(Self.propertyName) })")
            for index in entity.indexes {
                let elements = index.elements.map { "\($0.propertyName ?? $0.property?.name ?? "?") \($0.collationType) \($0.isAscending)" }
                lines.append("\(name) index \(index.name) \(elements) where \(index.partialIndexPredicate?.predicateFormat ?? "-")")
            }
            for property in entity.properties.sorted(by: { $0.name < $1.name }) {
                lines.append("\(name).\(property.name): \(Self.describe(property))")
            }
        }
        self.lines = lines
    }

    var description: String { lines.joined(separator: "\n") }

    /// The lines that differ: `other`'s lines `self` lacks (−) and `self`'s lines `other` lacks (+).
    func differences(from other: ModelDescription) -> String {
        let mine = Set(lines), theirs = Set(other.lines)
        return (other.lines.filter { !mine.contains($0) }.map { "- " + $0 } + lines.filter { !theirs.contains($0) }.map { "+ " + $0 })
            .joined(separator: "\n")
    }

    private static func describe(_ property: NSPropertyDescription) -> String {
        var text = "\(type(of: property)) indexed \(property.isIndexed) renaming \(property.renamingIdentifier ?? "-") modifier \(property.versionHashModifier ?? "-") userInfo \(describe(property.userInfo))"
        if !(property is NSFetchedPropertyDescription) {
            text += " optional \(property.isOptional) transient \(property.isTransient)"
        }
        switch property {
        case let derived as NSDerivedAttributeDescription:
            text += " type \(derived.attributeType.rawValue) derived \(derived.derivationExpression?.description ?? "-")"
        case let attribute as NSAttributeDescription:
            text += " type \(attribute.attributeType.rawValue) default \(describe(attribute.defaultValue)) transformer \(attribute.valueTransformerName ?? "-")"
            text += " external \(attribute.allowsExternalBinaryDataStorage) preserves \(attribute.preservesValueInHistoryOnDeletion)"
            text += " min \(describe(attribute.minValue)) max \(describe(attribute.maxValue)) pattern \(attribute.regularExpression ?? "-")"
        case let relationship as NSRelationshipDescription:
            text += " to \(relationship.destinationEntity?.name ?? "-") inverse \(relationship.inverseRelationship?.name ?? "-")"
            text += " count \(relationship.minCount)...\(relationship.maxCount) rule \(relationship.deleteRule) ordered \(relationship.isOrdered)"
        case let fetched as NSFetchedPropertyDescription:
            text += " request \(fetched.fetchRequest.map(describe) ?? "-")"
        default:
            break
        }
        return text
    }

    private static func describe(_ request: NSFetchRequest<NSFetchRequestResult>) -> String {
        let sorts = (request.sortDescriptors ?? []).map { "\($0.key ?? "-") \($0.ascending) \($0.selectorName)" }
        return "\(request.entityName ?? request.entity?.name ?? "-") where \(request.predicate?.predicateFormat ?? "-") sorted \(sorts) limit \(request.fetchLimit) offset \(request.fetchOffset) batch \(request.fetchBatchSize) result \(request.resultType.rawValue)"
    }

    private static func describe(_ value: Any?) -> String {
        guard let value else { return "-" }
        if let dictionary = value as? [AnyHashable: Any] {
            return "[" + dictionary.map { "\($0.key): \(describe($0.value))" }.sorted().joined(separator: ", ") + "]"
        }
        // Numbers by kind and value: a model file gives NSNumber, an archive Int, Bool or Double.
        if type(of: value) == Bool.self { return "bool \(value)" }
        if type(of: value) == Int.self || type(of: value) == Int64.self { return "int \(value)" }
        if type(of: value) == Double.self { return "real \(value)" }
        if let number = value as? NSNumber, type(of: value) is NSNumber.Type, !(number is NSDecimalNumber) {
            switch String(cString: number.objCType) {
            case "c", "B": return "bool \(number.boolValue)"
            case "f", "d": return "real \(number.doubleValue)"
            default: return "int \(number.int64Value)"
            }
        }
        return "\(type(of: value)) \(value)"
    }

    private static func propertyName(_ element: Any) -> String {
        (element as? NSPropertyDescription)?.name ?? "\(element)"
    }
}
