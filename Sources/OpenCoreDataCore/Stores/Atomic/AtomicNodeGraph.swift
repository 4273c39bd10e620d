import Foundation

/// The nodes an atomic store of your own registered in `load()`, as the rows contexts read:
/// every value checked against the model, every relationship against the registered nodes.
struct AtomicNodeGraph {
    let store: NSAtomicStore
    let nodes: [NSManagedObjectID: NSAtomicStoreCacheNode]

    func graph() throws -> StoredGraph {
        var graph = StoredGraph()
        let readAt = SnapshotClock.now()
        for node in nodes.values {
            let id = node.objectID
            guard id.persistentStore === store, let key = id.primaryKey else {
                throw wrongNode("a node of \(id), which is not an object ID of this store")
            }
            let layout = id.entity.layout
            var values = [PrimitiveValue](repeating: .null, count: layout.attributes.count)
            for attribute in layout.attributes where !attribute.isTransient {
                let value = node.value(forKey: attribute.name)
                do {
                    values[attribute.attributeSlot] = try PrimitiveValue(value, for: attribute.attributeType)
                } catch {
                    throw wrongNode("\(value.map { "\(type(of: $0))" } ?? "nil") for \(name(of: attribute, in: node)) (\(error.reason))")
                }
            }
            var toOne = [NSManagedObjectID?](repeating: nil, count: layout.relationships.count)
            for relationship in layout.relationships where !relationship.isTransient {
                let value = node.value(forKey: relationship.name)
                if relationship.isToMany {
                    // A one-to-many's members are the objects whose inverse to-one names this one.
                    guard relationship.needsOwnStorage else { continue }
                    graph.toManyMembers[ObjectIdentifier(relationship), default: [:]][key] = try destinations(in: value, of: relationship, node: node)
                } else {
                    let destinations = try destinations(in: value, of: relationship, node: node)
                    guard destinations.count <= 1 else {
                        throw wrongNode("\(destinations.count) destinations for the to-one \(name(of: relationship, in: node))")
                    }
                    toOne[relationship.relationshipSlot] = destinations.first
                }
            }
            graph.rows[id.rootIdentity, default: [:]][key] = RowSnapshot(objectID: id, version: 1, values: values, toOne: toOne, readAt: readAt)
        }
        return graph
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
        "\(node.objectID.entity.name ?? "?").\(property.name) of \(node.objectID.uriRepresentation().absoluteString)"
    }

    private func wrongNode(_ what: String) -> CocoaError {
        CoreDataError.store(.persistentStoreOpen, "The atomic store of type '\(store.type)' at \(store.url?.path ?? "?") loaded \(what)",
                            url: store.url)
    }
}
