import Foundation

/// An atomic store's saved rows as its nodes' property caches: attributes as values, a to-one as
/// the destination's node, a to-many as an `NSSet` (`NSOrderedSet`) of nodes. One instance
/// serves one save (or one listing of nodes), so that the members of one-to-many relationships,
/// kept in their destinations' to-ones, are indexed once rather than once per node.
final class AtomicNodeValues {
    let graph: StoredGraph
    /// The members of one-to-many relationships by source, per relationship, made on first use.
    private var inverseIndexes: [ObjectIdentifier: [NSManagedObjectID: [NSManagedObjectID]]] = [:]

    init(graph: StoredGraph) { self.graph = graph }

    /// Sets every stored property of `node` from its object's row; a node whose object has no
    /// row is left as it is. `nodeFor` gives the node of a destination.
    func fill(_ node: NSAtomicStoreCacheNode, nodeFor: (NSManagedObjectID) -> NSAtomicStoreCacheNode?) {
        guard let row = graph.row(for: node.objectID) else { return }
        let layout = row.entity.layout
        for attribute in layout.attributes where !attribute.isTransient {
            node.setValue(row.values[attribute.attributeSlot].objectValue(for: attribute.attributeType), forKey: attribute.name)
        }
        for relationship in layout.relationships where !relationship.isTransient {
            if relationship.isToMany {
                let members = self.members(of: node.objectID, through: relationship).compactMap(nodeFor)
                node.setValue(relationship.isOrdered ? NSOrderedSet(array: members) : NSSet(array: members), forKey: relationship.name)
            } else {
                node.setValue(row.toOne[relationship.relationshipSlot].flatMap(nodeFor), forKey: relationship.name)
            }
        }
    }

    /// A node for every row, filled.
    func allNodes() -> [NSManagedObjectID: NSAtomicStoreCacheNode] {
        var nodes: [NSManagedObjectID: NSAtomicStoreCacheNode] = [:]
        for row in graph.allRows {
            let id = row.objectID
            nodes[id] = NSAtomicStoreCacheNode(objectID: id)
        }
        for node in nodes.values { fill(node) { nodes[$0] } }
        return nodes
    }

    private func members(of source: NSManagedObjectID, through relationship: NSRelationshipDescription) -> [NSManagedObjectID] {
        if relationship.needsOwnStorage {
            return graph.toManyMembers[ObjectIdentifier(relationship)]?[source.primaryKey ?? 0] ?? []
        }
        if let index = inverseIndexes[ObjectIdentifier(relationship)] { return index[source] ?? [] }
        let index = graph.membersByInverse(of: relationship).mapValues { $0.map(\.objectID) }
        inverseIndexes[ObjectIdentifier(relationship)] = index
        return index[source] ?? []
    }
}
