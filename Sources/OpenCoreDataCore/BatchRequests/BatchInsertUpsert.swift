import Foundation

/// Finds, for a batch insert into an entity with uniqueness constraints, the stored objects that
/// rows would collide with, so that those rows update them instead (Core Data's upsert).
struct BatchInsertUpsert {
    let entity: NSEntityDescription
    let store: NSPersistentStore

    /// How many values one candidate fetch asks for, below SQLite's smallest default limit
    /// of bound parameters (999 before 3.32).
    private static let valuesPerFetch = 900

    /// Row index → the stored row it matches on some uniqueness constraint (the first found).
    func existingRows(for rows: [[PrimitiveValue]]) throws -> [Int: RowSnapshot] {
        var matches: [Int: RowSnapshot] = [:]
        for (owner, constraint) in attributeConstraints() {
            var index: [[PrimitiveValue]: RowSnapshot] = [:]
            for row in try candidates(of: owner, for: constraint, rows: rows) {
                let values = constraint.map { row.values[$0.attributeSlot] }
                // As with unique indexes, a missing value never collides.
                if !values.contains(where: \.isNull) { index[values] = row }
            }
            for (position, values) in rows.enumerated() where matches[position] == nil {
                if let match = index[constraint.map { values[$0.attributeSlot] }] { matches[position] = match }
            }
        }
        return matches
    }

    /// The constraints of the entity and its ancestors, each with the entity that declares it
    /// (whose objects, with its subentities', it keeps unique) and the attributes it names.
    private func attributeConstraints() -> [(owner: NSEntityDescription, attributes: [NSAttributeDescription])] {
        var constraints: [(owner: NSEntityDescription, attributes: [NSAttributeDescription])] = []
        var ancestor: NSEntityDescription? = entity
        while let current = ancestor {
            for names in current.layout.uniquenessConstraintNames {
                let attributes = names.compactMap { current.layout.propertiesByName[$0] as? NSAttributeDescription }
                // Constraints on relationships cannot collide: batch inserts set no relationships.
                if attributes.count == names.count, !attributes.isEmpty { constraints.append((current, attributes)) }
            }
            ancestor = current.superentity
        }
        return constraints
    }

    /// The stored objects of `owner` (and its subentities) whose first
    /// constrained attribute has a value some row has: only those can collide, so a batch
    /// reads what it may update, not the whole store.
    private func candidates(of owner: NSEntityDescription, for constraint: [NSAttributeDescription],
                            rows: [[PrimitiveValue]]) throws -> [RowSnapshot] {
        let key = constraint[0]
        var seen = Set<PrimitiveValue>()
        var values: [Any] = []
        for row in rows {
            let value = row[key.attributeSlot]
            if !value.isNull, seen.insert(value).inserted, let object = value.objectValue(for: key.attributeType) {
                values.append(object)
            }
        }
        // Transformed values are compared after transforming, which a fetch cannot ask for.
        let narrows = key.attributeType != .transformableAttributeType && key.valueTransformerName == nil
        let predicates: [NSPredicate?] = narrows
            ? stride(from: 0, to: values.count, by: Self.valuesPerFetch).map { start in
                NSPredicate(format: "%K IN %@", key.name, Array(values[start..<min(start + Self.valuesPerFetch, values.count)]))
            }
            : [nil]
        var found: [RowSnapshot] = []
        for predicate in predicates {
            let fetch = StoreFetch(entity: owner, includesSubentities: true, predicate: predicate, sortDescriptors: [],
                                   fetchLimit: 0, fetchOffset: 0, returnsDistinctResults: false, result: .snapshots)
            if case .snapshots(let rows) = try store.seam.execute(fetch) { found += rows }
        }
        return found
    }
}
