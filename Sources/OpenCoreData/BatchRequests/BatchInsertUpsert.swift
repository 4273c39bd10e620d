import Foundation

/// Finds, for a batch insert into an entity with uniqueness constraints, the stored objects that
/// rows would collide with, so that those rows update them instead (Core Data's upsert).
struct BatchInsertUpsert {
    let entity: NSEntityDescription
    let store: NSPersistentStore

    /// Row index → the stored row it matches on some uniqueness constraint (the first found).
    func existingRows(for rows: [[PrimitiveValue]]) throws -> [Int: RowSnapshot] {
        var constraints: [[NSAttributeDescription]] = []
        var ancestor: NSEntityDescription? = entity
        while let current = ancestor {
            for names in current.layout.uniquenessConstraintNames {
                let attributes = names.compactMap { current.layout.propertiesByName[$0] as? NSAttributeDescription }
                // Constraints on relationships cannot collide: batch inserts set no relationships.
                if attributes.count == names.count { constraints.append(attributes) }
            }
            ancestor = current.superentity
        }
        guard !constraints.isEmpty else { return [:] }
        let root = entity.rootEntity
        let result = try store.execute(StoreFetch(entity: root, includesSubentities: true, predicate: nil, sortDescriptors: [],
                                                  fetchLimit: 0, fetchOffset: 0, returnsDistinctResults: false, result: .snapshots))
        guard case .snapshots(let stored) = result else { return [:] }
        var matches: [Int: RowSnapshot] = [:]
        for constraint in constraints {
            var index: [[String]: RowSnapshot] = [:]
            for row in stored {
                let owner = constraint[0].entity!
                guard row.objectID.entity.isKindOf(entity: owner) else { continue }
                let values = constraint.map { row.values[$0.attributeSlot] }
                // As with unique indexes, a missing value never collides.
                if !values.contains(where: { if case .null = $0 { true } else { false } }) { index[values.map(\.displayText)] = row }
            }
            for (position, values) in rows.enumerated() where matches[position] == nil {
                if let match = index[constraint.map { values[$0.attributeSlot].displayText }] { matches[position] = match }
            }
        }
        return matches
    }
}
