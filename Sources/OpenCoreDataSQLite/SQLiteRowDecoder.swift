import Foundation
import OCDSQLite
import OpenCoreDataCore

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
    /// What decoding the last row's entity needed; kept alive by `shapes`. Unmanaged, so that
    /// reading it per row touches no reference count.
    @exclusivity(unchecked) private var lastShape: Unmanaged<RowShape>?
    @exclusivity(unchecked) private var shapes: [RowShape] = []

    /// When the statement's rows were read: one clock reading for all of them.
    private let readAt = SnapshotClock.now()
    /// The first external data column in no known layout (`finish()` throws it): the values of
    /// a row are decoded without throwing, one call per column.
    private var failure: Error?

    init(store: SQLiteStore, schema: SQLiteSchema, offset: Int = 0) {
        self.store = store
        self.schema = schema
        self.offset = offset
    }

    /// The snapshot of the statement's current row.
    func snapshot(_ statement: SQLiteStatement) -> RowSnapshot {
        let entityNumber = statement.int64(at: offset + 1)
        let shape = lastShape.flatMap { $0._withUnsafeGuaranteedRef { $0.number } == entityNumber ? $0 : nil }
            ?? shapeOfRows(numbered: entityNumber)
        return shape._withUnsafeGuaranteedRef { shape in
            RowSnapshot(primaryKey: statement.int64(at: offset), entity: shape.entity, store: store,
                        rootIdentity: shape.rootIdentity, version: statement.int64(at: offset + 2),
                        values: !shape.hasExternalData ? attributeValues(statement, shape: shape)
                            : resolvingExternalData(attributeValues(statement, shape: shape), shape: shape, key: statement.int64(at: offset)),
                        toOne: shape.hasRelationships ? toOneDestinations(statement, mapping: shape.mapping) : [],
                        readAt: readAt)
        }
    }

    /// Throws what a row of the statement could not read (a missing external data file).
    func finish() throws {
        if let failure { throw failure }
    }

    private func shapeOfRows(numbered entityNumber: Int64) -> Unmanaged<RowShape> {
        let mapping = schema.mapping(number: entityNumber) ?? schema.tables[0].entities[0]
        let shape = shapes.first { $0.mapping === mapping } ?? {
            let made = RowShape(number: entityNumber, mapping: mapping)
            shapes.append(made)
            return made
        }()
        let unmanaged = Unmanaged.passUnretained(shape)
        lastShape = unmanaged
        return unmanaged
    }

    private func attributeValues(_ statement: SQLiteStatement, shape: RowShape) -> [PrimitiveValue] {
        // reserveCapacity + append is specialized for PrimitiveValue; the array initializers that
        // take a count go through the standard library's unspecialized allocation.
        var values: [PrimitiveValue] = []
        values.reserveCapacity(shape.plan.count)
        for slot in shape.plan.indices {
            let (index, type) = shape.plan[slot]
            values.append(index < 0 ? .null
                          : SQLiteValueCoding.read(statement, at: offset + index, type: type, attribute: shape.attributes[slot]))
        }
        return values
    }

    /// `values` with each external-storage attribute's column replaced by its value (a file's
    /// is read at first use).
    private func resolvingExternalData(_ values: [PrimitiveValue], shape: RowShape, key: Int64) -> [PrimitiveValue] {
        var values = values
        for slot in shape.externalSlots {
            guard case .data(let column) = values[slot] else { continue }
            do {
                // Strong references: the description may be made long after this statement.
                let attribute = shape.attributes[slot], entity: NSEntityDescription = shape.entity
                values[slot] = try store.externalData.lazyValue(
                    ofColumn: column,
                    describedAs: "The value of \(attribute.entity?.name ?? "?").\(attribute.name) of the object \(entity.name ?? "?") \(key)")
            } catch {
                if failure == nil { failure = error }
                values[slot] = .null
            }
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

/// What decoding rows of one entity needs, looked up once per statement instead of per row.
private final class RowShape {
    /// The `Z_ENT` the rows carry (for rows of an unknown number, the table's first entity).
    let number: Int64
    // unowned(unsafe): the schema keeps its mappings, and the model its entities, alive for as
    // long as the store runs statements.
    unowned(unsafe) let mapping: SQLiteSchema.EntityMapping
    unowned(unsafe) let entity: NSEntityDescription
    let rootIdentity: ObjectIdentifier
    let plan: [(index: Int, type: NSAttributeType)]
    let attributes: [NSAttributeDescription]
    let hasRelationships: Bool
    /// The slots whose columns hold external data markers, and whether there are any.
    let externalSlots: [Int]
    let hasExternalData: Bool

    init(number: Int64, mapping: SQLiteSchema.EntityMapping) {
        self.number = number
        self.mapping = mapping
        entity = mapping.entity
        let layout = mapping.entity.layout
        rootIdentity = ObjectIdentifier(layout.rootEntity)
        plan = mapping.attributeReadPlan
        attributes = layout.attributes
        hasRelationships = !layout.relationships.isEmpty
        externalSlots = mapping.externalDataSlots
        hasExternalData = !externalSlots.isEmpty
    }
}
