import Foundation
import OCDSQLite

/// Turns rows selected with `SQLiteSchema.selectList` into snapshots.
///
/// Made once per statement, so that the work per row reads only the statement and the
/// entity mappings: no store state, no dynamic exclusivity checks, no generic array code.
/// Consecutive rows that point to the same destination (rows sorted by a foreign key, as when
/// prefetching a to-many) share one destination ID.
final class SQLiteRowDecoder {
    let schema: SQLiteSchema
    // unowned(unsafe): the store runs the statement this decoder serves, so it outlives it.
    unowned(unsafe) let store: SQLiteStore
    /// The column where the select list starts.
    let offset: Int
    /// The destination ID last made, per relationship slot.
    @exclusivity(unchecked) private var lastDestinations: [NSManagedObjectID?] = []

    init(store: SQLiteStore, schema: SQLiteSchema, offset: Int = 0) {
        self.store = store
        self.schema = schema
        self.offset = offset
    }

    /// The snapshot of the statement's current row.
    func snapshot(_ statement: SQLiteStatement) -> RowSnapshot {
        let entityNumber = statement.int64(at: offset + 1)
        let mapping = schema.mapping(number: entityNumber) ?? schema.tables[0].entities[0]
        let layout = mapping.entity.layout
        let id = NSManagedObjectID(entity: mapping.entity, store: store, primaryKey: statement.int64(at: offset))
        return RowSnapshot(objectID: id, version: statement.int64(at: offset + 2),
                           values: attributeValues(statement, mapping: mapping, attributes: layout.attributes),
                           toOne: layout.relationships.isEmpty ? [] : toOneDestinations(statement, mapping: mapping))
    }

    private func attributeValues(_ statement: SQLiteStatement, mapping: SQLiteSchema.EntityMapping,
                                 attributes: [NSAttributeDescription]) -> [PrimitiveValue] {
        let plan = mapping.attributeReadPlan
        // reserveCapacity + append is specialized for PrimitiveValue; the array initializers that
        // take a count go through the standard library's unspecialized allocation.
        var values: [PrimitiveValue] = []
        values.reserveCapacity(plan.count)
        for slot in plan.indices {
            let (index, type) = plan[slot]
            values.append(index < 0 ? .null
                          : SQLiteValueCoding.read(statement, at: offset + index, type: type, attribute: attributes[slot]))
        }
        return values
    }

    private func toOneDestinations(_ statement: SQLiteStatement, mapping: SQLiteSchema.EntityMapping) -> [NSManagedObjectID?] {
        var toOne: [NSManagedObjectID?] = []
        toOne.reserveCapacity(mapping.toOneDestinations.count)
        for slot in mapping.toOneDestinations.indices {
            guard let index = mapping.toOneReadIndexes[slot], let destination = mapping.toOneDestinations[slot] else {
                toOne.append(nil)
                continue
            }
            // Keys start at 1, so only a 0 can be a NULL: one call into SQLite per column.
            let key = statement.int64(at: offset + index)
            if key == 0 && statement.isNull(at: offset + index) {
                toOne.append(nil)
                continue
            }
            var entity = destination.entity
            if let entityIndex = mapping.toOneEntityReadIndexes[slot], !statement.isNull(at: offset + entityIndex),
               let concrete = schema.mapping(number: statement.int64(at: offset + entityIndex)) {
                entity = concrete.entity
            }
            if slot < lastDestinations.count, let last = lastDestinations[slot], last.primaryKey == key, last.entity === entity {
                toOne.append(last)
                continue
            }
            let id = NSManagedObjectID(entity: entity, store: store, primaryKey: key)
            while lastDestinations.count <= slot { lastDestinations.append(nil) }
            lastDestinations[slot] = id
            toOne.append(id)
        }
        return toOne
    }
}
