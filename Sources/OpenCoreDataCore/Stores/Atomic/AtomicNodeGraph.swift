import Foundation

/// The nodes an atomic store of your own registered in `load()`, as the rows contexts read:
/// every value checked against the model, every relationship against the registered nodes.
struct AtomicNodeGraph {
    let store: NSAtomicStore
    let nodes: [NSManagedObjectID: NSAtomicStoreCacheNode]

    func graph() throws -> StoredGraph {
        var graph = StoredGraph()
        let readAt = SnapshotClock.now()
        var rows: [NSManagedObjectID: (values: [PrimitiveValue], toOne: [NSManagedObjectID?])] = [:]
        // To-many values, checked against (and completing) their inverses once every node is read.
        var toManys: [(source: NSManagedObjectID, relationship: NSRelationshipDescription, members: [NSManagedObjectID])] = []
        for node in nodes.values {
            let id = node.objectID
            guard id.persistentStore === store, id.primaryKey != nil else {
                throw wrongNode("a node of \(id), which is not an object ID of this store")
            }
            let layout = id.entity.layout
            var values = [PrimitiveValue](repeating: .null, count: layout.attributes.count)
            for attribute in layout.attributes where !attribute.isTransient {
                let value = node.value(forKey: attribute.name)
                do {
                    values[attribute.attributeSlot] = try PrimitiveValue(value, for: attribute)
                } catch {
                    throw wrongNode("\(value.map { "\(type(of: $0))" } ?? "nil") for \(name(of: attribute, in: node)) (\(error.reason))")
                }
            }
            var toOne = [NSManagedObjectID?](repeating: nil, count: layout.relationships.count)
            for relationship in layout.relationships where !relationship.isTransient {
                let destinations = try destinations(in: node.value(forKey: relationship.name), of: relationship, node: node)
                if relationship.isToMany {
                    toManys.append((id, relationship, destinations))
                } else {
                    guard destinations.count <= 1 else {
                        throw wrongNode("\(destinations.count) destinations for the to-one \(name(of: relationship, in: node))")
                    }
                    toOne[relationship.relationshipSlot] = destinations.first
                }
            }
            rows[id] = (values, toOne)
        }
        try completeInverses(of: toManys, rows: &rows, members: &graph.toManyMembers)
        for (id, row) in rows {
            graph.rows[id.rootIdentity, default: [:]][id.primaryKey!] = RowSnapshot(objectID: id, version: 1, values: row.values,
                                                                                     toOne: row.toOne, readAt: readAt)
        }
        return graph
    }

    /// Keeps both sides of relationships with an inverse together, as Core Data's contexts do,
    /// when a store of your own set only one side in `load()`: a one-to-many's members are the
    /// objects whose to-one names the owner, so a member listed only on the to-many side gets
    /// its to-one; a many-to-many member listed on one side only is added to the other. A
    /// member whose to-one names another owner contradicts the to-many and is refused.
    private func completeInverses(of toManys: [(source: NSManagedObjectID, relationship: NSRelationshipDescription, members: [NSManagedObjectID])],
                                  rows: inout [NSManagedObjectID: (values: [PrimitiveValue], toOne: [NSManagedObjectID?])],
                                  members: inout [ObjectIdentifier: [Int64: [NSManagedObjectID]]]) throws {
        for (source, relationship, listed) in toManys where relationship.needsOwnStorage {
            members[ObjectIdentifier(relationship), default: [:]][source.primaryKey!] = listed
        }
        for (source, relationship, listed) in toManys {
            guard let inverse = relationship.inverseRelationship, !inverse.isTransient else { continue }
            for member in listed {
                if inverse.isToMany {
                    guard inverse.needsOwnStorage else { continue }
                    var others = members[ObjectIdentifier(inverse), default: [:]][member.primaryKey!] ?? []
                    if !others.contains(source) {
                        others.append(source)
                        members[ObjectIdentifier(inverse), default: [:]][member.primaryKey!] = others
                    }
                } else {
                    let slot = inverse.relationshipSlot
                    switch rows[member]?.toOne[slot] {
                    case nil: rows[member]?.toOne[slot] = source
                    case source?: break
                    case let other?:
                        throw wrongNode("\(name(of: relationship, in: source)) lists \(member.uriRepresentation().absoluteString), whose \(inverse.name) is \(other.uriRepresentation().absoluteString)")
                    }
                }
            }
        }
    }

    /// The IDs a relationship's value names: nodes or IDs, alone or in a set, an ordered set or
    /// an array; each must be a registered node's, of the relationship's destination entity.
    private func destinations(in value: Any?, of relationship: NSRelationshipDescription, node: NSAtomicStoreCacheNode) throws
        -> [NSManagedObjectID] {
        let elements: [Any]
        switch value {
        case nil, is NSNull: elements = []
        case let single as NSAtomicStoreCacheNode: elements = [single]
        case let single as NSManagedObjectID: elements = [single]
        case let ordered as NSOrderedSet: elements = ordered.array
        case let set as NSSet: elements = set.allObjects
        case let set as Set<NSAtomicStoreCacheNode>: elements = Array(set)
        case let set as Set<NSManagedObjectID>: elements = Array(set)
        case let array as [Any]: elements = array
        case let other?: throw wrongNode("\(type(of: other)) for \(name(of: relationship, in: node)), not nodes or object IDs")
        }
        return try elements.map { element in
            let id: NSManagedObjectID
            switch element {
            case let destination as NSAtomicStoreCacheNode: id = destination.objectID
            case let destination as NSManagedObjectID: id = destination
            default: throw wrongNode("\(type(of: element)) in \(name(of: relationship, in: node)), not a node or an object ID")
            }
            guard nodes[id] != nil else {
                throw wrongNode("\(name(of: relationship, in: node)) refers to \(id.uriRepresentation().absoluteString), which no registered node holds")
            }
            if let destination = relationship.destinationEntity, !id.entity.isKindOf(entity: destination) {
                throw wrongNode("an object of \(id.entity.name ?? "?") for \(name(of: relationship, in: node)), whose destination is \(destination.name ?? "?")")
            }
            return id
        }
    }

    private func name(of property: NSPropertyDescription, in node: NSAtomicStoreCacheNode) -> String {
        name(of: property, in: node.objectID)
    }

    private func name(of property: NSPropertyDescription, in id: NSManagedObjectID) -> String {
        "\(id.entity.name ?? "?").\(property.name) of \(id.uriRepresentation().absoluteString)"
    }

    private func wrongNode(_ what: String) -> CocoaError {
        CoreDataError.store(.persistentStoreOpen, "The atomic store of type '\(store.type)' at \(store.url?.path ?? "?") loaded \(what)",
                            url: store.url)
    }
}
