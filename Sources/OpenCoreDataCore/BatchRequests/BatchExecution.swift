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
    /// Who runs the request, for persistent history.
    var authorship = HistoryAuthorship()

    // MARK: Delete

    /// Deletes the rows `targets` names, and what their cascade rules reach; clears the
    /// inverses that nullify rules name; refuses deny rules that still have objects.
    ///
    /// The rows are walked level by level, reading each relationship's destinations for a whole
    /// level in one store call, not one per row. A deny rule is judged once everything the
    /// cascades reach is known: a destination that goes too does not hold its source back.
    func delete(_ targets: [RowSnapshot]) throws -> BatchOutcome {
        var doomed: [NSManagedObjectID: RowSnapshot] = [:]
        var order: [NSManagedObjectID] = []
        var denials: [(source: RowSnapshot, relationship: NSRelationshipDescription, destinations: [RowSnapshot])] = []
        var nullifications: [(row: RowSnapshot, relationship: NSRelationshipDescription)] = []
        var level = targets
        while !level.isEmpty {
            var fresh: [RowSnapshot] = []
            for row in level {
                let id = row.objectID
                guard doomed[id] == nil else { continue }
                doomed[id] = row
                order.append(id)
                fresh.append(row)
            }
            var next: [RowSnapshot] = []
            for rows in Self.groupedByEntity(fresh) {
                for relationship in rows[0].entity.layout.relationships where !relationship.isTransient {
                    let related = try relatedRows(of: rows, through: relationship)
                    switch relationship.deleteRule {
                    case .cascadeDeleteRule:
                        for row in rows { next += related[row.objectID] ?? [] }
                    case .denyDeleteRule:
                        for row in rows {
                            if let destinations = related[row.objectID], !destinations.isEmpty {
                                denials.append((row, relationship, destinations))
                            }
                        }
                    case .nullifyDeleteRule:
                        guard let inverse = relationship.inverseRelationship, !inverse.isToMany, !inverse.isTransient else { break }
                        for row in rows { nullifications += (related[row.objectID] ?? []).map { ($0, inverse) } }
                    case .noActionDeleteRule:
                        break
                    }
                }
            }
            level = next
        }
        try refuseDenials(denials, doomed: doomed)
        var changes = SaveChanges()
        changes.authorship = authorship
        changes.deleted = order.map { id in
            SaveChanges.Row(objectID: id, values: [], toOne: [], changedAttributeSlots: [], changedRelationshipSlots: [],
                            expectedVersion: doomed[id]!.version)
        }
        var outcome = BatchOutcome(deleted: order)
        changes.updated = nullifiedRows(nullifications.filter { doomed[$0.row.objectID] == nil }, doomed: doomed)
        outcome.nullified = changes.updated.map(\.objectID)
        _ = try store.save(changes)
        return outcome
    }

    private static func groupedByEntity(_ rows: [RowSnapshot]) -> [[RowSnapshot]] {
        var groups: [[RowSnapshot]] = []
        for row in rows {
            if let index = groups.firstIndex(where: { $0[0].entity === row.entity }) {
                groups[index].append(row)
            } else {
                groups.append([row])
            }
        }
        return groups
    }

    /// The rows each of `rows` reaches through `relationship`, by source ID: one store call.
    private func relatedRows(of rows: [RowSnapshot], through relationship: NSRelationshipDescription) throws
        -> [NSManagedObjectID: [RowSnapshot]] {
        if relationship.isToMany {
            return try store.seam.relatedSnapshots(of: rows.map(\.objectID), through: relationship)
        }
        let slot = relationship.relationshipSlot
        let destinationIDs = Array(Set(rows.compactMap { $0.toOne[slot] }))
        guard !destinationIDs.isEmpty else { return [:] }
        var byID: [NSManagedObjectID: RowSnapshot] = [:]
        for row in try store.seam.snapshots(for: destinationIDs) { byID[row.objectID] = row }
        var related: [NSManagedObjectID: [RowSnapshot]] = [:]
        for row in rows {
            if let id = row.toOne[slot], let destination = byID[id] { related[row.objectID] = [destination] }
        }
        return related
    }

    private func refuseDenials(_ denials: [(source: RowSnapshot, relationship: NSRelationshipDescription, destinations: [RowSnapshot])],
                               doomed: [NSManagedObjectID: RowSnapshot]) throws {
        for (source, relationship, destinations) in denials {
            guard let kept = destinations.first(where: { doomed[$0.objectID] == nil }) else { continue }
            let entity = source.entity
            throw CoreDataError.make(.validationRelationshipDeniedDelete,
                                     "The batch delete would delete \(source.objectID.uriRepresentation().absoluteString), but its relationship \(entity.name ?? "?").\(relationship.name) has the deny rule and still holds \(kept.objectID.uriRepresentation().absoluteString)",
                                     ["NSEntityNameKey": entity.name ?? "", NSValidationKeyErrorKey: relationship.name])
        }
    }

    /// Updates of the surviving rows whose to-ones point at deleted rows: those to-ones cleared,
    /// from the rows as read while walking (their versions guard against writers in between).
    private func nullifiedRows(_ nullifications: [(row: RowSnapshot, relationship: NSRelationshipDescription)],
                               doomed: [NSManagedObjectID: RowSnapshot]) -> [SaveChanges.Row] {
        var order: [NSManagedObjectID] = []
        var byID: [NSManagedObjectID: (row: RowSnapshot, slots: Set<Int>)] = [:]
        for (row, relationship) in nullifications {
            let id = row.objectID
            if byID[id] == nil {
                order.append(id)
                byID[id] = (row, [])
            }
            byID[id]!.slots.insert(relationship.relationshipSlot)
        }
        return order.map { id in
            let (row, slots) = byID[id]!
            var toOne = row.toOne
            let sorted = slots.sorted()
            for slot in sorted where toOne[slot].map({ doomed[$0] != nil }) ?? false { toOne[slot] = nil }
            return SaveChanges.Row(objectID: id, values: row.values, toOne: toOne, changedAttributeSlots: [],
                                   changedRelationshipSlots: sorted, expectedVersion: row.version)
        }
    }

    // MARK: Update

    /// Sets `values` (attribute → new value, a key path to copy from, or an expression to
    /// compute) in every row.
    func update(_ rows: [RowSnapshot], values: [(attribute: NSAttributeDescription, value: BatchValue)]) throws -> BatchOutcome {
        var changes = SaveChanges()
        changes.authorship = authorship
        changes.updated.reserveCapacity(rows.count)
        for row in rows {
            var newValues = row.values
            var slots: [Int] = []
            for (attribute, value) in values {
                // An attribute of another entity of the tree (when sub-entities are included)
                // only applies to rows that have it.
                guard let slot = row.entity.layout.attributeSlot(of: attribute) else { continue }
                switch value {
                case .constant(let primitive): newValues[slot] = primitive
                case .copy(let source):
                    guard let sourceSlot = row.entity.layout.attributeSlot(of: source) else { continue }
                    // A value kept in a file is read: one that can't be read stops the update.
                    newValues[slot] = try PrimitiveValue(row.values[sourceSlot].readingExternalData().objectValue(for: source.attributeType),
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
        changes.authorship = authorship
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
