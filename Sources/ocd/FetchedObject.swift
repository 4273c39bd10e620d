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
            try DumpedObject.checkLoaded(relationship.name, of: object, uri: uri)
            relationships[relationship.name] = .count((value as? NSOrderedSet)?.count ?? (value as? Set<NSManagedObject>)?.count ?? 0)
        }
        self.relationships = relationships
    }

    /// The cells of this object's row: entity, URI, then one per column; `text` renders
    /// attribute values, and `noObject` stands for an empty to-one.
    func cells(_ columns: Columns, noObject: String, text: (JSONValue) -> String) -> [String] {
        [entity, uri] + columns.attributes.map { text(attributes[$0.name] ?? .null) }
            + columns.relationships.map { column in
                switch relationships[column.name] {
                case .one(let uri?): uri
                case .one(nil), nil: noObject
                case .count(let count): "\(count)"
                }
            }
    }

    // MARK: Table

    /// The objects as an aligned text table with a header, and a last line counting them.
    static func table(_ objects: [FetchedObject], columns: Columns) -> String {
        let header = ["entity", "uri"] + columns.names
        let rows = objects.map { $0.cells(columns, noObject: "nil", text: tableText) }
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            // Padded by characters, as the widths are counted (`padding(toLength:)` counts UTF-16
            // units and would cut a cell with emoji or combining marks).
            let padded = zip(cells, widths).map { $0 + String(repeating: " ", count: max(0, $1 - $0.count)) }
            var text = padded.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        var text = line(header) + "\n" + line(widths.map { String(repeating: "-", count: $0) }) + "\n"
        for row in rows { text += line(row) + "\n" }
        return text + "(\(objects.count) object\(objects.count == 1 ? "" : "s"))\n"
    }

    /// A value in a table cell: strings as they are, on one line (control characters escaped)
    /// and cut at 60 characters.
    private static func tableText(_ value: JSONValue) -> String {
        guard case .string(let string) = value else { return value.text }
        var oneLine = ""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\n": oneLine += "\\n"
            case "\r": oneLine += "\\r"
            case "\t": oneLine += "\\t"
            case _ where scalar.properties.generalCategory == .control:
                oneLine += "\\u{\(String(scalar.value, radix: 16))}"
            default: oneLine.unicodeScalars.append(scalar)
            }
        }
        return oneLine.count > 60 ? String(oneLine.prefix(59)) + "…" : oneLine
    }

    // MARK: CSV

    /// The objects as CSV (RFC 4180): a header row, then one row per object; no value is an
    /// empty field.
    static func csv(_ objects: [FetchedObject], columns: Columns) -> String {
        let header = ["entity", "uri"] + columns.names
        let rows = [header] + objects.map { object in
            object.cells(columns, noObject: "") { value in value == .null ? "" : value.csvText }
        }
        return rows.map { $0.map(csvField).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    private static func csvField(_ text: String) -> String {
        // By bytes: "\r\n" is one Character, equal to neither "\r" nor "\n".
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else {
            return text
        }
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
