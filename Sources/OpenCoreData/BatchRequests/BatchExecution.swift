import Foundation

/// What a batch request changed in one store, for its result and for merging into contexts.
struct BatchOutcome {
    var inserted: [NSManagedObjectID] = []
    var updated: [NSManagedObjectID] = []
    var deleted: [NSManagedObjectID] = []
    /// Objects whose relationships changed because others were deleted (nullify rules).
    var nullified: [NSManagedObjectID] = []
}

/// Runs batch requests against one store through the store seam: the rows are read as
/// snapshots and written with one store save, so that every store type supports batch requests,
/// a failure writes nothing, and optimistic locking guards against writers in between.
///
/// No managed object is created (but for `managedObjectHandler`), no context is involved, no
/// life-cycle method runs.
struct BatchExecution {
    let store: NSPersistentStore

    // MARK: Delete

    /// Deletes the rows `targets` names, and what their cascade rules reach; clears the
    /// inverses that nullify rules name; refuses deny rules that still have objects.
    func delete(_ targets: [RowSnapshot]) throws -> BatchOutcome {
        var doomed: [NSManagedObjectID: RowSnapshot] = [:]
        var order: [NSManagedObjectID] = []
        var queue = targets
        var nullifications: [(object: NSManagedObjectID, relationship: NSRelationshipDescription)] = []
        while let row = queue.popLast() {
            guard doomed[row.objectID] == nil else { continue }
            doomed[row.objectID] = row
            order.append(row.objectID)
            let entity = row.objectID.entity
            for relationship in entity.layout.relationships where !relationship.isTransient {
                let related = try relatedRows(of: row, through: relationship)
                switch relationship.deleteRule {
                case .cascadeDeleteRule:
                    queue += related
                case .denyDeleteRule:
                    if let first = related.first(where: { doomed[$0.objectID] == nil }) {
                        throw CoreDataError.make(.validationRelationshipDeniedDelete,
                                                 "The batch delete would delete \(row.objectID.uriRepresentation().absoluteString), but its relationship \(entity.name ?? "?").\(relationship.name) has the deny rule and still holds \(first.objectID.uriRepresentation().absoluteString)",
                                                 ["NSEntityNameKey": entity.name ?? "", NSValidationKeyErrorKey: relationship.name])
                    }
                case .nullifyDeleteRule:
                    if let inverse = relationship.inverseRelationship, !inverse.isToMany, !inverse.isTransient {
                        nullifications += related.map { ($0.objectID, inverse) }
                    }
                case .noActionDeleteRule:
                    break
                }
            }
        }
        var changes = SaveChanges()
        changes.deleted = order.map { id in
            SaveChanges.Row(objectID: id, values: [], toOne: [], changedAttributeSlots: [], changedRelationshipSlots: [],
                            expectedVersion: doomed[id]!.version)
        }
        var outcome = BatchOutcome(deleted: order)
        for (id, relationships) in Dictionary(grouping: nullifications.filter { doomed[$0.object] == nil }, by: \.object) {
            guard let row = try store.snapshot(for: id) else { continue }
            var toOne = row.toOne
            let slots = Set(relationships.map(\.relationship.relationshipSlot)).sorted()
            for slot in slots where doomed[toOne[slot] ?? id] != nil { toOne[slot] = nil }
            changes.updated.append(SaveChanges.Row(objectID: id, values: row.values, toOne: toOne, changedAttributeSlots: [],
                                                   changedRelationshipSlots: slots, expectedVersion: row.version))
            outcome.nullified.append(id)
        }
        _ = try store.save(changes)
        return outcome
    }

    /// The rows `row` reaches through `relationship`.
    private func relatedRows(of row: RowSnapshot, through relationship: NSRelationshipDescription) throws -> [RowSnapshot] {
        if relationship.isToMany {
            return try store.relatedSnapshots(of: [row.objectID], through: relationship)[row.objectID] ?? []
        }
        guard let id = row.toOne[relationship.relationshipSlot], let related = try store.snapshot(for: id) else { return [] }
        return [related]
    }

    // MARK: Update

    /// Sets `values` (attribute → new value, a key path to copy from, or an expression to
    /// compute) in every row.
    func update(_ rows: [RowSnapshot], values: [(attribute: NSAttributeDescription, value: BatchValue)]) throws -> BatchOutcome {
        var changes = SaveChanges()
        changes.updated.reserveCapacity(rows.count)
        for row in rows {
            var newValues = row.values
            var slots: [Int] = []
            for (attribute, value) in values {
                // An attribute of another entity of the tree (when sub-entities are included)
                // only applies to rows that have it.
                guard let slot = row.objectID.entity.layout.attributeSlot(of: attribute) else { continue }
                switch value {
                case .constant(let primitive): newValues[slot] = primitive
                case .copy(let source):
                    guard let sourceSlot = row.objectID.entity.layout.attributeSlot(of: source) else { continue }
                    newValues[slot] = try PrimitiveValue(row.values[sourceSlot].objectValue(for: source.attributeType),
                                                         for: attribute.attributeType)
                case .computed(let expression, let sources):
                    // Computed from the row as read, like every other value of the update.
                    newValues[slot] = try BatchComputedValue.value(of: expression, sources: sources, row: row, for: attribute)
                }
                if !attribute.isOptional, case .null = newValues[slot] {
                    throw CoreDataError.make(.validationMissingMandatoryProperty,
                                             "The batch update would leave \(attribute.entity?.name ?? "?").\(attribute.name) of \(row.objectID.uriRepresentation().absoluteString) without a value, but it is not optional",
                                             [NSValidationKeyErrorKey: attribute.name])
                }
                slots.append(slot)
            }
            guard !slots.isEmpty else { continue }
            changes.updated.append(SaveChanges.Row(objectID: row.objectID, values: newValues, toOne: row.toOne,
                                                   changedAttributeSlots: slots, changedRelationshipSlots: [],
                                                   expectedVersion: row.version))
        }
        _ = try store.save(changes)
        return BatchOutcome(updated: changes.updated.map(\.objectID))
    }

    // MARK: Insert

    /// Inserts `rows` (attribute values by slot) of `entity`; rows whose constrained values
    /// match an existing object update it instead (Core Data's upsert).
    func insert(_ rows: [[PrimitiveValue]], entity: NSEntityDescription, existing: [Int: RowSnapshot]) throws -> BatchOutcome {
        var changes = SaveChanges()
        var updatedIDs: [NSManagedObjectID] = []
        let relationshipCount = entity.layout.relationships.count
        for (index, values) in rows.enumerated() {
            if let match = existing[index] {
                changes.updated.append(SaveChanges.Row(objectID: match.objectID, values: values, toOne: match.toOne,
                                                       changedAttributeSlots: Array(values.indices), changedRelationshipSlots: [],
                                                       expectedVersion: match.version))
                updatedIDs.append(match.objectID)
            } else {
                changes.inserted.append(SaveChanges.Row(objectID: NSManagedObjectID(temporaryFor: entity), values: values,
                                                        toOne: Array(repeating: nil, count: relationshipCount),
                                                        changedAttributeSlots: [], changedRelationshipSlots: [], expectedVersion: 0))
            }
        }
        let saved = try store.save(changes)
        return BatchOutcome(inserted: saved.insertedIDs, updated: updatedIDs)
    }
}

/// A new value in a batch update.
enum BatchValue {
    case constant(PrimitiveValue)
    /// The value of another attribute of the same object.
    case copy(NSAttributeDescription)
    /// An expression over attributes of the same object (`sources`), such as `price * 1.1`.
    case computed(NSExpression, sources: [NSAttributeDescription])
}

extension EntityLayout {
    /// The slot of `attribute` in this entity's objects, when the entity has it.
    func attributeSlot(of attribute: NSAttributeDescription) -> Int? {
        attributes.indices.contains(attribute.attributeSlot) && attributes[attribute.attributeSlot] === attribute
            ? attribute.attributeSlot : nil
    }
}
