import Foundation
import OCDPostgres
import OpenCoreDataCore
import OpenCoreDataSQLite

/// Turns rows selected with `SQLiteSchema.selectList` (`Z_PK, Z_ENT, Z_OPT`, then the table's
/// columns, from column `offset` on) into snapshots. Made once per result, with one clock
/// reading for all its rows.
struct PostgresRowDecoder {
    let schema: SQLiteSchema
    unowned let store: NSPersistentStore
    /// The column where the select list starts.
    var offset = 0
    private let readAt = SnapshotClock.now()

    init(store: NSPersistentStore, schema: SQLiteSchema, offset: Int = 0) {
        self.store = store
        self.schema = schema
        self.offset = offset
    }

    /// The snapshot of row `row` of `result`.
    func snapshot(_ result: PostgresResult, _ row: Int) -> RowSnapshot {
        let mapping = schema.mapping(number: result.int64(row, offset + 1)) ?? schema.tables[0].entities[0]
        let attributes = mapping.layout.attributes
        var values: [PrimitiveValue] = []
        values.reserveCapacity(mapping.attributeReadPlan.count)
        for (slot, plan) in mapping.attributeReadPlan.enumerated() {
            values.append(plan.index < 0 ? .null
                          : PostgresValueCoding.read(result, row, offset + plan.index, type: plan.type, attribute: attributes[slot]))
        }
        return RowSnapshot(primaryKey: result.int64(row, offset), entity: mapping.entity, store: store,
                           rootIdentity: ObjectIdentifier(mapping.entity.rootEntity), version: result.int64(row, offset + 2),
                           values: values, toOne: toOneDestinations(result, row, mapping: mapping), readAt: readAt)
    }

    private func toOneDestinations(_ result: PostgresResult, _ row: Int, mapping: SQLiteSchema.EntityMapping) -> [NSManagedObjectID?] {
        guard !mapping.toOneDestinations.isEmpty else { return [] }
        return mapping.toOneDestinations.indices.map { slot -> NSManagedObjectID? in
            guard let index = mapping.toOneReadIndexes[slot], let destination = mapping.toOneDestinations[slot],
                  !result.isNull(row, offset + index) else { return nil }
            var entity = destination.entity
            if let entityIndex = mapping.toOneEntityReadIndexes[slot], !result.isNull(row, offset + entityIndex),
               let concrete = schema.mapping(number: result.int64(row, offset + entityIndex)) {
                entity = concrete.entity
            }
            return NSManagedObjectID(entity: entity, store: store, primaryKey: result.int64(row, offset + index))
        }
    }
}
