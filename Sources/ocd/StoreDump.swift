import Foundation
import OpenCoreData

/// One object as `ocd store dump` prints it. Its JSON form is documented in Docs/ocd-json.md.
struct DumpedObject: Encodable {
    /// A relationship's value: one object's URI (or null), or a list of URIs.
    enum Reference: Encodable {
        case one(String?)
        case many([String])

        func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .one(let uri): try container.encode(uri)
            case .many(let uris): try container.encode(uris)
            }
        }
    }

    let entity: String
    let uri: String
    let attributes: [String: JSONValue]
    let relationships: [String: Reference]

    init(_ object: NSManagedObject) throws {
        let entity = object.entity
        self.entity = entity.name ?? ""
        uri = object.objectID.uriRepresentation().absoluteString
        var attributes: [String: JSONValue] = [:]
        for (name, attribute) in entity.attributesByName where !attribute.isTransient {
            attributes[name] = JSONValue(object.value(forKey: name), type: attribute.attributeType)
        }
        self.attributes = attributes
        var relationships: [String: Reference] = [:]
        for (name, relationship) in entity.relationshipsByName where !relationship.isTransient {
            let value = object.value(forKey: name)
            // A to-many the store could not give stays a fault: say so rather than print it empty.
            if relationship.isToMany { try Self.checkLoaded(name, of: object, uri: uri) }
            if !relationship.isToMany {
                relationships[name] = .one((value as? NSManagedObject).map(Self.uri))
            } else if let ordered = value as? NSOrderedSet {
                relationships[name] = .many(ordered.array.compactMap { ($0 as? NSManagedObject).map(Self.uri) })
            } else {
                // Unordered to-manys are listed in URI order, so that dumps compare as text.
                let members = (value as? Set<NSManagedObject>) ?? []
                relationships[name] = .many(members.map(Self.uri).sorted(by: Self.uriOrder))
            }
        }
        self.relationships = relationships
    }

    /// Fails when the to-many `key` of `object` (already asked for) stayed a fault: the store
    /// could not give it. Rather than print it empty, say so, with the reason.
    static func checkLoaded(_ key: String, of object: NSManagedObject, uri: String) throws {
        guard object.hasFault(forRelationshipNamed: key) else { return }
        throw CommandFailure("\(uri): the relationship \(object.entity.name ?? "?").\(key) could not be read from the store: "
                             + validationReason(of: object, key: key))
    }

    /// What validation says of `key` of `object`: the reason its value could not be read.
    private static func validationReason(of object: NSManagedObject, key: String) -> String {
        do {
            try object.validateForUpdate()
            return "no reason given"
        } catch {
            let nsError = error as NSError
            let errors = (nsError.userInfo[NSDetailedErrorsKey] as? [Error]) ?? [error]
            guard let about = errors.first(where: { ($0 as NSError).userInfo[NSValidationKeyErrorKey] as? String == key }) else {
                return "no reason given"
            }
            return (about as NSError).localizedDescription
        }
    }

    private static func uri(_ object: NSManagedObject) -> String { object.objectID.uriRepresentation().absoluteString }

    /// `…/p2` before `…/p10`.
    static func uriOrder(_ left: String, _ right: String) -> Bool {
        left.compare(right, options: .numeric) == .orderedAscending
    }

    var text: String {
        var lines = ["\(entity) \(uri)"]
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(name) = \(value.text)")
        }
        for (name, reference) in relationships.sorted(by: { $0.key < $1.key }) {
            switch reference {
            case .one(let uri): lines.append("  \(name) -> \(uri ?? "nil")")
            case .many(let uris): lines.append("  \(name) -> [\(uris.joined(separator: ", "))]")
            }
        }
        return lines.joined(separator: "\n")
    }
}
