import Foundation

/// A fetch answered in memory over rows a store already has: the predicate evaluated and the
/// order applied by the same code as for objects in a context, then the offset and limit, in
/// any of a fetch's result types.
///
/// The stores that keep their graph in memory answer every fetch so (`MemoryRows`); a SQL
/// store answers so what its SQL cannot compute exactly as memory does, over the rows of a
/// wider fetch (the PostgreSQL store: comparisons with `[c]`, the string operators, …).
package enum InMemoryFetch {
    /// The answer to `fetch` among `candidates` (the rows of its entity, and of its
    /// sub-entities when it includes them), whose relationships `rows` follows.
    package static func answer(_ fetch: StoreFetch, candidates: [RowSnapshot], rows: any StoredRowSource) throws -> StoreFetchResult {
        let predicate = try fetch.predicate?.resolved(for: fetch.entity)
        try PredicateCheck.validate(fetch.sortDescriptors, for: fetch.entity)
        var matches = candidates
        if let predicate {
            matches = matches.filter { predicate.evaluate(with: StoredRow(rows: rows, snapshot: $0)) }
        }
        if fetch.sortDescriptors.isEmpty {
            matches.sort { $0.primaryKey < $1.primaryKey }
        } else {
            matches = matches.map { StoredRow(rows: rows, snapshot: $0) }.sorted(by: fetch.sortDescriptors).map(\.snapshot)
        }
        let sliced = slice(matches, offset: fetch.fetchOffset, limit: fetch.fetchLimit)
        switch fetch.result {
        case .snapshots: return .snapshots(sliced)
        case .objectIDs: return .objectIDs(sliced.map(\.objectID))
        case .keys:
            let family = fetch.entity.selfAndDescendants
            let keys = sliced.map(\.primaryKey)
            guard fetch.includesSubentities && family.count > 1 else { return .keys(keys, []) }
            return .keys(keys, sliced.map { row in UInt16(family.firstIndex { $0 === row.entity } ?? 0) })
        case .count: return .count(sliced.count)
        case .dictionaries(let columns, let groupBy):
            let grouped = !groupBy.isEmpty || columns.contains { if case .aggregate = $0.kind { true } else { false } }
            // Grouped results are limited by group, not by row, and distinct ones by distinct
            // dictionary (as SQL's DISTINCT comes before its LIMIT).
            let limitsLater = grouped || fetch.returnsDistinctResults
            var dictionaries = InMemoryDictionaries(entity: fetch.entity, columns: columns, groupBy: groupBy)
                .dictionaries(of: (limitsLater ? matches : sliced).map { StoredRow(rows: rows, snapshot: $0) })
            if fetch.returnsDistinctResults { dictionaries = DictionaryResults.distinct(dictionaries) }
            if limitsLater { dictionaries = slice(dictionaries, offset: fetch.fetchOffset, limit: fetch.fetchLimit) }
            return .dictionaries(dictionaries)
        }
    }

    /// The part of `elements` a fetch's offset and limit (0: none) select.
    private static func slice<T>(_ elements: [T], offset: Int, limit: Int) -> [T] {
        guard offset > 0 || (limit > 0 && limit < elements.count) else { return elements }
        return Array(elements.dropFirst(offset).prefix(limit > 0 ? limit : Int.max))
    }
}

/// Where rows seen by in-memory evaluation find the rows they refer to: the destination of a
/// to-one, the members of a to-many (in order for an ordered one). A row that cannot be read
/// is nil; a source that reads from a server keeps the error for its fetch to throw.
package protocol StoredRowSource: AnyObject {
    func row(for objectID: NSManagedObjectID) -> RowSnapshot?
    func members(of source: NSManagedObjectID, through relationship: NSRelationshipDescription) -> [RowSnapshot]
}

/// A stored row seen by predicates and sort descriptors: attributes as values, to-ones as rows.
struct StoredRow: KeyValueReadable {
    let rows: any StoredRowSource
    let snapshot: RowSnapshot

    func value(forKey key: String) -> Any? {
        snapshot.entity.layout.propertiesByName[key].flatMap(value(of:))
    }

    /// The value of `property` (one of the row's entity's).
    func value(of property: NSPropertyDescription) -> Any? {
        switch property {
        case let attribute as NSAttributeDescription:
            return snapshot.values[attribute.attributeSlot].objectValue(for: attribute.attributeType)
        case let relationship as NSRelationshipDescription:
            if relationship.isToMany {
                return rows.members(of: snapshot.objectID, through: relationship).map { StoredRow(rows: rows, snapshot: $0) }
            }
            guard let id = snapshot.toOne[relationship.relationshipSlot], let row = rows.row(for: id) else { return nil }
            return StoredRow(rows: rows, snapshot: row)
        default:
            return nil
        }
    }

    var rowObjectID: NSManagedObjectID? { snapshot.objectID }
}
