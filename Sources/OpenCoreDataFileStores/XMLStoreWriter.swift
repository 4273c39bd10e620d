import Foundation
import OpenCoreDataCore

/// Writes a stored graph as an XML store file (`Docs/XMLStoreFormat.md`), in the layout Apple's
/// XML store writes: a `<databaseInfo>` with the version, the UUID, the next object id and the
/// metadata property list, then one `<object>` per row with its attributes and relationships.
struct XMLStoreWriter {
    let graph: StoredGraph
    let metadata: [String: Any]
    let url: URL
    private var text = ""
    /// The members of one-to-many relationships (kept in the destinations' to-ones), by
    /// relationship, then by source.
    private var inverseMembers: [ObjectIdentifier: [NSManagedObjectID: [Int64]]] = [:]

    init(graph: StoredGraph, metadata: [String: Any], url: URL) {
        self.graph = graph
        self.metadata = metadata
        self.url = url
    }

    mutating func file() throws -> Data {
        let rows = graph.allRows.sorted {
            ($0.entity.name ?? "", $0.primaryKey) < ($1.entity.name ?? "", $1.primaryKey)
        }
        let lastKey = max(graph.lastKeys.values.max() ?? 0, rows.map(\.primaryKey).max() ?? 0)
        text.reserveCapacity(rows.count * 256)
        text += "<?xml version=\"1.0\" standalone=\"yes\"?>\n\(XMLStoreFormat.doctype)\n\n<database>\n"
        text += "    <databaseInfo>\n"
        text += "        <version>\(XMLStoreFormat.version)</version>\n"
        text += "        <UUID>\(XMLText.escaped(metadata[NSStoreUUIDKey] as? String ?? ""))</UUID>\n"
        text += "        <nextObjectID>\(lastKey + 1)</nextObjectID>\n"
        text += "        <metadata>\(try metadataPlist())</metadata>\n"
        text += "    </databaseInfo>\n"
        var checked = Set<ObjectIdentifier>()
        for row in rows {
            if checked.insert(ObjectIdentifier(row.entity)).inserted { try checkNames(of: row.entity) }
            try write(row)
        }
        text += "</database>\n"
        return Data(text.utf8)
    }

    /// The metadata as an XML property list's `<plist>` element.
    private func metadataPlist() throws -> String {
        let data = try PropertyListSerialization.data(fromPropertyList: metadata, format: .xml, options: 0)
        let plist = String(decoding: data, as: UTF8.self)
        guard let start = plist.range(of: "<plist") else { return "" }
        return plist[start.lowerBound...].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Names are written in one case, as Apple's store writes them: two properties whose names
    /// differ only in case cannot be told apart in the file.
    private func checkNames(of entity: NSEntityDescription) throws {
        var seen: [String: String] = [:]
        for property in entity.layout.attributes as [NSPropertyDescription] + entity.layout.relationships {
            let name = XMLStoreFormat.fileName(of: property)
            if let other = seen.updateValue(property.name, forKey: name) {
                throw CoreDataError.store(.persistentStoreSave, "The XML store \(url.path) can't hold \(entity.name ?? "?"): its properties "
                                          + "\(other) and \(property.name) differ only in case, and the XML store writes names in lower case",
                                          url: url)
            }
        }
    }

    private mutating func write(_ row: RowSnapshot) throws {
        let layout = row.entity.layout
        text += "    <object type=\"\(XMLText.escaped(XMLStoreFormat.fileName(of: row.entity)))\" id=\"\(XMLStoreFormat.id(key: row.primaryKey))\">\n"
        for attribute in layout.attributes where !attribute.isTransient {
            let value = row.values[attribute.attributeSlot]
            guard !value.isNull else { continue }
            let (content, base64) = try self.content(of: value, attribute: attribute)
            text += "        <attribute name=\"\(XMLText.escaped(XMLStoreFormat.fileName(of: attribute)))\" "
                + "type=\"\(XMLStoreFormat.typeName(of: attribute.attributeType))\"\(base64 ? " encoding=\"base64\"" : "")>"
            text += XMLText.escaped(content)
            text += "</attribute>\n"
        }
        for relationship in layout.relationships where !relationship.isTransient {
            let keys: [Int64]
            if relationship.isToMany {
                keys = members(of: row, through: relationship)
            } else {
                // A destination the graph does not hold (deleted through a relationship without
                // inverse) is written as none, as a SQLite foreign key then reads as no object.
                keys = row.toOne[relationship.relationshipSlot].flatMap { graph.holds($0) ? $0.primaryKey : nil }.map { [$0] } ?? []
            }
            text += "        <relationship name=\"\(XMLText.escaped(XMLStoreFormat.fileName(of: relationship)))\" "
                + "type=\"\(XMLStoreFormat.typeName(of: relationship))\" "
                + "destination=\"\(XMLText.escaped(relationship.destinationEntity.map(XMLStoreFormat.fileName(of:)) ?? ""))\""
            if !keys.isEmpty { text += " idrefs=\"\(keys.map(XMLStoreFormat.id(key:)).joined(separator: " "))\"" }
            text += "></relationship>\n"
        }
        text += "    </object>\n"
    }

    /// An attribute's value as text, and whether it is base64.
    private func content(of value: PrimitiveValue, attribute: NSAttributeDescription) throws -> (String, Bool) {
        switch value {
        case .null: return ("", false)
        case .integer(let number): return (String(number), false)
        case .double(let number): return ("\(number)", false)
        case .bool(let flag): return (flag ? "1" : "0", false)
        case .string(let string):
            return XMLStoreFormat.needsBase64(string) ? (Data(string.utf8).base64EncodedString(), true) : (string, false)
        case .date(let date):
            // Seconds since 2001 with 20 decimals, as Apple's store writes them: more than enough
            // digits for the same double to be read back.
            return (String(format: "%.20f", date.timeIntervalSinceReferenceDate), false)
        case .data(let data): return (data.base64EncodedString(), false)
        case .externalData(let external): return (try external.data().base64EncodedString(), false)
        case .uuid(let uuid): return (uuid.uuidString, false)
        case .url(let url): return (url.absoluteString, false)
        case .decimal(let decimal): return (NSDecimalNumber(decimal: decimal).description(withLocale: Locale(identifier: "en_US_POSIX")), false)
        case .transformable(let box): return (try TransformableCoding.encode(box.value, for: attribute).base64EncodedString(), false)
        }
    }

    /// A to-many's members' keys, in order.
    private mutating func members(of row: RowSnapshot, through relationship: NSRelationshipDescription) -> [Int64] {
        if relationship.needsOwnStorage {
            return (graph.toManyMembers[ObjectIdentifier(relationship)]?[row.primaryKey] ?? []).filter(graph.holds).compactMap(\.primaryKey)
        }
        let identity = ObjectIdentifier(relationship)
        if inverseMembers[identity] == nil {
            inverseMembers[identity] = graph.membersByInverse(of: relationship).mapValues { $0.map(\.primaryKey) }
        }
        return inverseMembers[identity]?[row.objectID] ?? []
    }
}
