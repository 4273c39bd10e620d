import Foundation
import OCDPostgres
import OpenCoreDataCore
import OpenCoreDataSQLite

/// Turns rows selected with `SQLiteSchema.selectList` (`Z_PK, Z_ENT, Z_OPT`, then the table's
/// columns, from column `offset` on) into snapshots. Made once per result, with one clock
/// reading for all its rows; what decoding a row of one entity needs is looked up when the
/// entity changes from the row before, not per row.
final class PostgresRowDecoder {
    let schema: SQLiteSchema
    unowned let store: NSPersistentStore
    /// The column where the select list starts.
    let offset: Int
    private let readAt = SnapshotClock.now()
    private var shape: Shape?

    /// What rows of one entity need.
    private struct Shape {
        let number: Int64
        let mapping: SQLiteSchema.EntityMapping
        let entity: NSEntityDescription
        let rootIdentity: ObjectIdentifier
        let plan: [(index: Int, type: NSAttributeType)]
        let attributes: [NSAttributeDescription]
        let hasToOnes: Bool
    }

    init(store: NSPersistentStore, schema: SQLiteSchema, offset: Int = 0) {
        self.store = store
        self.schema = schema
        self.offset = offset
    }

    /// The snapshot of row `row` of `result`.
    func snapshot(_ result: PostgresResult, _ row: Int) -> RowSnapshot {
        let number = result.int64(row, offset + 1)
        let shape = self.shape.flatMap { $0.number == number ? $0 : nil } ?? makeShape(number)
        var values: [PrimitiveValue] = []
        values.reserveCapacity(shape.plan.count)
        for slot in shape.plan.indices {
            let (index, type) = shape.plan[slot]
            values.append(index < 0 ? .null : PostgresValueCoding.read(result, row, offset + index, type: type, attribute: shape.attributes[slot]))
        }
        return RowSnapshot(primaryKey: result.int64(row, offset), entity: shape.entity, store: store, rootIdentity: shape.rootIdentity,
                           version: result.int64(row, offset + 2), values: values,
                           toOne: shape.hasToOnes ? toOneDestinations(result, row, mapping: shape.mapping) : [], readAt: readAt)
    }

    private func makeShape(_ number: Int64) -> Shape {
        let mapping = schema.mapping(number: number) ?? schema.tables[0].entities[0]
        let made = Shape(number: number, mapping: mapping, entity: mapping.entity, rootIdentity: ObjectIdentifier(mapping.entity.rootEntity),
                         plan: mapping.attributeReadPlan, attributes: mapping.layout.attributes,
                         hasToOnes: !mapping.toOneDestinations.isEmpty)
        shape = made
        return made
    }

    private func toOneDestinations(_ result: PostgresResult, _ row: Int, mapping: SQLiteSchema.EntityMapping) -> [NSManagedObjectID?] {
        mapping.toOneDestinations.indices.map { slot -> NSManagedObjectID? in
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
