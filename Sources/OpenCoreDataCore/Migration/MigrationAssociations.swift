import Foundation

/// Which destination instances a migration made from which source instances, per entity
/// mapping: object IDs only, so that a migration of a large store holds no objects between
/// batches. Instances created since the last save are kept as objects until the batch is saved
/// and their IDs are permanent (`settle()`).
struct MigrationAssociations {
    private struct Pending {
        let mapping: String
        let source: NSManagedObjectID
        let destination: NSManagedObject
    }

    private var destinationsBySource: [String: [NSManagedObjectID: [NSManagedObjectID]]] = [:]
    private var sourceByDestination: [String: [NSManagedObjectID: NSManagedObjectID]] = [:]
    /// Every destination of a source instance, whatever the mapping.
    private var allDestinationsBySource: [NSManagedObjectID: [NSManagedObjectID]] = [:]
    /// Each mapping's destinations, in the order they were made.
    private(set) var destinationsInOrder: [String: [NSManagedObjectID]] = [:]
    private var pending: [Pending] = []

    mutating func associate(source: NSManagedObjectID, destination: NSManagedObject, mapping: String) {
        pending.append(Pending(mapping: mapping, source: source, destination: destination))
    }

    /// Records the instances made since the last call under their permanent IDs (the batch was
    /// saved).
    mutating func settle() {
        for entry in pending {
            let destination = entry.destination.objectID
            destinationsBySource[entry.mapping, default: [:]][entry.source, default: []].append(destination)
            sourceByDestination[entry.mapping, default: [:]][destination] = entry.source
            allDestinationsBySource[entry.source, default: []].append(destination)
            destinationsInOrder[entry.mapping, default: []].append(destination)
        }
        pending.removeAll()
    }

    /// The destinations `mapping` made of `source` (every mapping's when nil), in `context`.
    func destinations(of source: NSManagedObjectID, mapping: String?, in context: NSManagedObjectContext) -> [NSManagedObject] {
        let settled = mapping.map { destinationsBySource[$0]?[source] ?? [] } ?? allDestinationsBySource[source] ?? []
        let recent = pending.filter { $0.source == source && (mapping == nil || $0.mapping == mapping) }.map(\.destination)
        return settled.map { context.object(with: $0) } + recent
    }

    /// The source `mapping` made `destination` from, in `context`.
    func source(of destination: NSManagedObject, mapping: String, in context: NSManagedObjectContext) -> NSManagedObject? {
        if let entry = pending.last(where: { $0.destination === destination && $0.mapping == mapping }) {
            return context.object(with: entry.source)
        }
        return sourceByDestination[mapping]?[destination.objectID].map { context.object(with: $0) }
    }
}
