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

    /// The stored objects of `owner` (and its subentities) whose first constrained attribute a
    /// fetch can compare has a value some row has: only those can collide, so a batch reads what
    /// it may update, not the whole store (all of it when no attribute can be compared).
    private func candidates(of owner: NSEntityDescription, for constraint: [NSAttributeDescription],
                            rows: [[PrimitiveValue]]) throws -> [RowSnapshot] {
        // Transformed values are compared after transforming, which a fetch cannot ask for; a
        // value a store may keep in a file is compared by content, which SQL cannot.
        guard let key = constraint.first(where: { attribute in
            attribute.attributeType != .transformableAttributeType && attribute.valueTransformerName == nil
                && !(attribute.attributeType == .binaryDataAttributeType && attribute.allowsExternalBinaryDataStorage)
        }) else { return try fetch(owner, nil) }
        var seen = Set<PrimitiveValue>()
        var values: [Any] = []
        for row in rows {
            let value = row[key.attributeSlot]
            if !value.isNull, seen.insert(value).inserted, let object = value.objectValue(for: key.attributeType) {
                values.append(object)
            }
        }
        var found: [RowSnapshot] = []
        for start in stride(from: 0, to: values.count, by: Self.valuesPerFetch) {
            let chunk = Array(values[start..<min(start + Self.valuesPerFetch, values.count)])
            found += try fetch(owner, NSPredicate(format: "%K IN %@", key.name, chunk))
        }
        return found
    }

    /// The snapshots of `owner`'s objects (its subentities' too) that `predicate` accepts.
    private func fetch(_ owner: NSEntityDescription, _ predicate: NSPredicate?) throws -> [RowSnapshot] {
        let fetch = StoreFetch(entity: owner, includesSubentities: true, predicate: predicate, sortDescriptors: [],
                               fetchLimit: 0, fetchOffset: 0, returnsDistinctResults: false, result: .snapshots)
        if case .snapshots(let rows) = try store.seam.execute(fetch) { return rows }
        return []
    }
}
