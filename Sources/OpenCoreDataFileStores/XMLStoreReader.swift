import Foundation
import OpenCoreDataCore

/// Reads an XML store file (`Docs/XMLStoreFormat.md`): the metadata from `<databaseInfo>`, the
/// objects from their `<object>` elements. Names are matched without regard to case, as Apple's
/// store writes entities in upper case and properties in lower case. Anything that does not hold
/// together is an error naming the file, the line and what is wrong.
struct XMLStoreReader {
    let url: URL

    private func read() throws -> XMLTreeElement {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CoreDataError.store(.persistentStoreOpen, "Can't read the XML store \(url.path): \(error.localizedDescription)",
                                      url: url, underlying: error)
        }
        switch XMLTreeElement.parse(data) {
        case .failure(let error):
            // A file that does not even begin like XML is not an XML store; one that does is damaged.
            let start = String(decoding: data.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard start.hasPrefix("<") else { throw notAStore() }
            throw corrupt("it is not well-formed XML (line \(error.line): \(error.reason))")
        case .success(let root):
            guard root.name == "database" else { throw notAStore() }
            return root
        }
    }

    func metadata() throws -> [String: Any] {
        try metadata(in: try read())
    }

    private func metadata(in root: XMLTreeElement) throws -> [String: Any] {
        guard let info = root.child(named: "databaseInfo") else { throw corrupt("it has no <databaseInfo>") }
        var metadata: [String: Any] = [:]
        if let plist = info.child(named: "metadata")?.child(named: "plist") {
            guard let read = try? PropertyListSerialization.propertyList(from: Data(plist.xmlString.utf8), format: nil) as? [String: Any] else {
                throw corrupt("its <metadata> (line \(plist.line)) is not a property list")
            }
            metadata = read
        }
        if let uuid = info.child(named: "UUID")?.text.trimmingCharacters(in: .whitespacesAndNewlines), !uuid.isEmpty {
            metadata[NSStoreUUIDKey] = uuid
        }
        metadata[NSStoreTypeKey] = NSXMLStoreType
        return metadata
    }

    func graph(model: NSManagedObjectModel, store: NSPersistentStore) throws -> StoredGraph {
        let root = try read()
        let info = root.child(named: "databaseInfo")
        let objects = root.children(named: "object")
        var entitiesByFileName: [String: NSEntityDescription] = [:]
        for entity in model.entities { entitiesByFileName[XMLStoreFormat.fileName(of: entity)] = entity }

        // First every object's entity and key: ids of the form zN keep N; any other id (a file
        // written by hand) gets a key after the largest.
        var nextKey = Int64(info?.child(named: "nextObjectID")?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 1
        var identities: [String: NSManagedObjectID] = [:]
        var unnumbered: [(String, NSEntityDescription)] = []
        var usedKeys = Set<Int64>()
        for object in objects {
            guard let id = object.attributes["id"], let type = object.attributes["type"] else {
                throw corrupt("the <object> on line \(object.line) has no id or no type")
            }
            guard let entity = entitiesByFileName[type.uppercased()] else {
                throw corrupt("the object \(id) (line \(object.line)) is of the entity \(type), which the model does not have")
            }
            guard identities[id] == nil else { throw corrupt("two objects have the id \(id) (line \(object.line))") }
            if let key = XMLStoreFormat.key(ofID: id), usedKeys.insert(key).inserted {
                identities[id] = NSManagedObjectID(entity: entity, store: store, primaryKey: key)
                nextKey = max(nextKey, key + 1)
            } else {
                unnumbered.append((id, entity))
                identities[id] = NSManagedObjectID(entity: entity, store: store, primaryKey: -1)
            }
        }
        for (id, entity) in unnumbered {
            identities[id] = NSManagedObjectID(entity: entity, store: store, primaryKey: nextKey)
            nextKey += 1
        }

        var graph = StoredGraph()
        let readAt = SnapshotClock.now()
        for object in objects {
            let objectID = identities[object.attributes["id"]!]!
            let entity = objectID.entity
            let layout = entity.layout
            var propertiesByFileName: [String: NSPropertyDescription] = [:]
            for property in layout.attributes as [NSPropertyDescription] + layout.relationships {
                propertiesByFileName[XMLStoreFormat.fileName(of: property)] = property
            }
            var values = [PrimitiveValue](repeating: .null, count: layout.attributes.count)
            var toOne = [NSManagedObjectID?](repeating: nil, count: layout.relationships.count)
            for element in object.children(named: "attribute") {
                guard let name = element.attributes["name"],
                      let attribute = propertiesByFileName[name.lowercased()] as? NSAttributeDescription, !attribute.isTransient else { continue }
                values[attribute.attributeSlot] = try value(of: element, for: attribute, in: object)
            }
            for element in object.children(named: "relationship") {
                guard let name = element.attributes["name"],
                      let relationship = propertiesByFileName[name.lowercased()] as? NSRelationshipDescription, !relationship.isTransient else { continue }
                let references = (element.attributes["idrefs"] ?? "").split(separator: " ").map(String.init)
                let destinations = try references.map { reference in
                    guard let destination = identities[reference] else {
                        throw corrupt("\(entity.name ?? "?").\(relationship.name) of \(object.attributes["id"]!) (line \(element.line)) "
                                      + "refers to \(reference), which the file does not hold")
                    }
                    if let expected = relationship.destinationEntity, !destination.entity.isKindOf(entity: expected) {
                        throw corrupt("\(entity.name ?? "?").\(relationship.name) of \(object.attributes["id"]!) (line \(element.line)) "
                                      + "refers to \(reference), an object of \(destination.entity.name ?? "?"), not of \(expected.name ?? "?")")
                    }
                    return destination
                }
                if relationship.isToMany {
                    // A one-to-many's members are the objects whose inverse to-one names this one.
                    if relationship.needsOwnStorage, !destinations.isEmpty {
                        graph.toManyMembers[ObjectIdentifier(relationship), default: [:]][objectID.primaryKey!] = destinations
                    }
                } else {
                    guard destinations.count <= 1 else {
                        throw corrupt("the to-one \(entity.name ?? "?").\(relationship.name) of \(object.attributes["id"]!) (line \(element.line)) "
                                      + "refers to \(destinations.count) objects")
                    }
                    toOne[relationship.relationshipSlot] = destinations.first
                }
            }
            graph.rows[objectID.rootIdentity, default: [:]][objectID.primaryKey!] =
                RowSnapshot(objectID: objectID, version: 1, values: values, toOne: toOne, readAt: readAt)
        }
        // Keys are handed out across the whole file (an id is unique in it, whatever the entity).
        for entity in model.entities where entity.superentity == nil { graph.lastKeys[ObjectIdentifier(entity)] = nextKey - 1 }
        return graph
    }

    /// An attribute element's value, converted to its attribute's type.
    private func value(of element: XMLTreeElement, for attribute: NSAttributeDescription, in object: XMLTreeElement) throws -> PrimitiveValue {
        var text = element.text
        if element.attributes["encoding"] == "base64" {
            guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw wrongValue(element, attribute, object, "is not base64")
            }
            text = String(decoding: data, as: UTF8.self)
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        func number<T>(_ parsed: T?) throws -> T {
            guard let parsed else { throw wrongValue(element, attribute, object, "is not a \(XMLStoreFormat.typeName(of: attribute.attributeType)) value") }
            return parsed
        }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return .integer(try number(Int64(trimmed)))
        case .doubleAttributeType, .floatAttributeType: return .double(try number(Double(trimmed)))
        case .booleanAttributeType:
            switch trimmed.lowercased() {
            case "1", "yes", "true": return .bool(true)
            case "0", "no", "false": return .bool(false)
            default: throw wrongValue(element, attribute, object, "is not a Boolean")
            }
        case .stringAttributeType: return .string(text)
        case .dateAttributeType: return .date(Date(timeIntervalSinceReferenceDate: try number(Double(trimmed))))
        case .decimalAttributeType:
            return .decimal(trimmed == "NaN" ? .nan : try number(Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))))
        case .binaryDataAttributeType: return .data(try number(Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters)))
        case .UUIDAttributeType: return .uuid(try number(UUID(uuidString: trimmed)))
        case .URIAttributeType: return .url(try number(URL(string: trimmed)))
        default:
            let data = try number(Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters))
            return TransformableCoding.decode(data, for: attribute).map { .transformable(TransformableValue(value: $0)) } ?? .null
        }
    }

    private func wrongValue(_ element: XMLTreeElement, _ attribute: NSAttributeDescription, _ object: XMLTreeElement, _ what: String) -> CocoaError {
        corrupt("the value of \(attribute.entity?.name ?? "?").\(attribute.name) of \(object.attributes["id"] ?? "?") (line \(element.line)) \(what)")
    }

    func notAStore() -> CocoaError {
        CoreDataError.store(.persistentStoreInvalidType, "The file \(url.path) is not an XML store (its root element is not <database>)", url: url)
    }

    func corrupt(_ reason: String) -> CocoaError {
        CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path,
                                                    NSLocalizedDescriptionKey: "The XML store \(url.path) can't be read: \(reason)"])
    }
}
