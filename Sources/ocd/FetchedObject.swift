import Foundation
import OpenCoreData

/// One object as `ocd fetch` prints it: its entity, URI, saved attributes, to-one relationships
/// as URIs and to-many relationships as counts. Its JSON form is documented in Docs/ocd-json.md.
struct FetchedObject: Encodable {
    /// The properties printed for objects of one fetched entity, in the entity's order
    /// (inherited ones first); a sub-entity's own properties are not columns.
    struct Columns {
        let attributes: [NSAttributeDescription]
        let relationships: [NSRelationshipDescription]
        var names: [String] { attributes.map(\.name) + relationships.map(\.name) }
    }

    /// A relationship's value: a to-one's URI (or null), or a to-many's number of objects.
    enum Relationship: Encodable {
        case one(String?)
        case count(Int)

        func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .one(let uri): try container.encode(uri)
            case .count(let count): try container.encode(count)
            }
        }

        var text: String {
            switch self {
            case .one(let uri): uri ?? "nil"
            case .count(let count): "\(count)"
            }
        }
    }

    let entity: String
    let uri: String
    let attributes: [String: JSONValue]
    let relationships: [String: Relationship]

    static func columns(of entity: NSEntityDescription) -> Columns {
        // An entity's `properties` are its own: the inherited ones come from its ancestors, root first.
        let lineage = sequence(first: entity, next: \.superentity).reversed()
        let properties = lineage.flatMap(\.properties).filter { !$0.isTransient }
        return Columns(attributes: properties.compactMap { $0 as? NSAttributeDescription },
                       relationships: properties.compactMap { $0 as? NSRelationshipDescription })
    }

    init(_ object: NSManagedObject, columns: Columns) throws {
        entity = object.entity.name ?? ""
        uri = object.objectID.uriRepresentation().absoluteString
        var attributes: [String: JSONValue] = [:]
        for attribute in columns.attributes {
            attributes[attribute.name] = JSONValue(object.value(forKey: attribute.name), type: attribute.attributeType)
        }
        self.attributes = attributes
        var relationships: [String: Relationship] = [:]
        for relationship in columns.relationships {
            let value = object.value(forKey: relationship.name)
            if !relationship.isToMany {
                relationships[relationship.name] = .one((value as? NSManagedObject)?.objectID.uriRepresentation().absoluteString)
                continue
            }
            if object.hasFault(forRelationshipNamed: relationship.name) {
                throw CommandFailure("\(uri): the relationship \(entity).\(relationship.name) could not be read from the store")
            }
            relationships[relationship.name] = .count((value as? NSOrderedSet)?.count ?? (value as? Set<NSManagedObject>)?.count ?? 0)
        }
        self.relationships = relationships
    }

    /// The cells of this object's row: entity, URI, then one per column.
    func cells(_ columns: Columns, text: (JSONValue) -> String) -> [String] {
        [entity, uri] + columns.attributes.map { text(attributes[$0.name] ?? .null) }
            + columns.relationships.map { relationships[$0.name]?.text ?? "" }
    }

    // MARK: Table

    /// The objects as an aligned text table with a header, and a last line counting them.
    static func table(_ objects: [FetchedObject], columns: Columns) -> String {
        let header = ["entity", "uri"] + columns.names
        let rows = objects.map { $0.cells(columns, text: tableText) }
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var text = line(header) + "\n" + line(widths.map { String(repeating: "-", count: $0) }) + "\n"
        for row in rows { text += line(row) + "\n" }
        return text + "(\(objects.count) object\(objects.count == 1 ? "" : "s"))\n"
    }

    /// A value in a table cell: strings as they are, on one line and cut at 60 characters.
    private static func tableText(_ value: JSONValue) -> String {
        guard case .string(let string) = value else { return value.text }
        let oneLine = string.replacingOccurrences(of: "\n", with: "\\n")
        return oneLine.count > 60 ? String(oneLine.prefix(59)) + "…" : oneLine
    }

    // MARK: CSV

    /// The objects as CSV (RFC 4180): a header row, then one row per object; no value is an
    /// empty field.
    static func csv(_ objects: [FetchedObject], columns: Columns) -> String {
        let header = ["entity", "uri"] + columns.names
        let rows = [header] + objects.map { object in
            object.cells(columns) { value in value == .null ? "" : value.csvText }
        }
        return rows.map { $0.map(csvField).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    private static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

private extension JSONValue {
    /// The value in a CSV field: strings unquoted (the field quotes them when it must).
    var csvText: String {
        if case .string(let string) = self { return string }
        return text
    }
}
