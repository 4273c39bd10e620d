import Foundation

/// A store's whole graph in memory, as saved: what the in-memory and atomic stores keep, and
/// what an atomic store reads from and writes to its file.
package struct StoredGraph {
    /// Rows by root entity, then by primary key.
    package var rows: [ObjectIdentifier: [Int64: RowSnapshot]] = [:]
    /// Memberships of to-many relationships stored on their own (ordered, many-to-many, or
    /// without inverse), by relationship, then by the source's key, in order.
    package var toManyMembers: [ObjectIdentifier: [Int64: [NSManagedObjectID]]] = [:]
    /// The last primary key handed out, per root entity.
    package var lastKeys: [ObjectIdentifier: Int64] = [:]

    package init() {}

    /// Every row, of every entity.
    package var allRows: some Sequence<RowSnapshot> { rows.values.lazy.flatMap(\.values) }

    /// The row of `id`, if the graph holds one.
    package func row(for id: NSManagedObjectID) -> RowSnapshot? {
        guard let key = id.primaryKey else { return nil }
        return rows[id.rootIdentity]?[key]
    }

    /// Whether the graph holds a row for `id`.
    package func holds(_ id: NSManagedObjectID) -> Bool { row(for: id) != nil }

    /// The members of a one-to-many relationship, kept in its destinations' to-ones: by source,
    /// each source's in key order. One pass over the destinations for every source.
    package func membersByInverse(of relationship: NSRelationshipDescription) -> [NSManagedObjectID: [RowSnapshot]] {
        guard let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity else { return [:] }
        var members: [NSManagedObjectID: [RowSnapshot]] = [:]
        for row in (rows[ObjectIdentifier(destination.rootEntity)] ?? [:]).values where row.entity.isKindOf(entity: destination) {
            if let source = row.toOne[inverse.relationshipSlot] { members[source, default: []].append(row) }
        }
        for (source, rows) in members { members[source] = rows.sorted { $0.primaryKey < $1.primaryKey } }
        return members
    }
}
