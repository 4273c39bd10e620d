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
}
