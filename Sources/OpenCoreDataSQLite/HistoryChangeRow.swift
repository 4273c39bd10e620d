import Foundation
import OCDSQL
import OpenCoreDataCore

/// One `ACHANGE` row to write.
package struct HistoryChangeRow {
    package let type: NSPersistentHistoryChangeType
    package let entity: Int64
    package let key: Int64
    package var columns: [UInt8]?
    package var tombstone: [SQLValue]? = nil

    /// The rows of history a save makes: an insert per inserted object, an update per updated
    /// object (and per object whose to-many changed, its changed properties as `ZCOLUMNS`), a
    /// delete per deleted object with its `tombstones`; for every store that records history
    /// in Core Data's tables.
    package static func rows(of changes: SaveChanges, insertedIDs: [NSManagedObjectID], tombstones: [NSManagedObjectID: [SQLValue]],
                             resolve: (NSManagedObjectID?) -> Int64?, schema: SQLiteSchema) -> [HistoryChangeRow] {
        var columnMaps = HistoryColumns.Maps()
        var rows: [HistoryChangeRow] = []
        rows.reserveCapacity(changes.inserted.count + changes.updated.count + changes.deleted.count)
        for index in changes.inserted.indices {
            let entity = changes.inserted[index].objectID.entity
            guard let number = schema.mapping(for: entity)?.number else { continue }
            rows.append(HistoryChangeRow(type: .insert, entity: number, key: insertedIDs[index].primaryKey!, columns: nil))
        }
        // Updates by object, so that a to-many change of an object also updated joins its row.
        var updateIndex: [NSManagedObjectID: Int] = [:]
        for index in changes.updated.indices {
            let row = changes.updated[index]
            guard let key = row.objectID.primaryKey, let number = schema.mapping(for: row.objectID.entity)?.number else { continue }
            let map = columnMaps.map(for: row.objectID.entity)
            var bits = map.bits(attributes: row.changedAttributeSlots, relationships: row.changedRelationshipSlots)
            // Members of a to-many without storage of its own live in the other side's rows;
            // the object itself says which of its to-manys changed.
            if map.hasToMany, let object = changes.context?.registeredObject(for: row.objectID) {
                map.add(relationships: object.changedToManyRelationshipSlots, to: &bits)
            }
            if !changes.toMany.isEmpty { updateIndex[row.objectID] = rows.count }
            rows.append(HistoryChangeRow(type: .update, entity: number, key: key, columns: bits))
        }
        if !changes.toMany.isEmpty {
            let inserted = Set(changes.inserted.map(\.objectID)), deleted = Set(changes.deleted.map(\.objectID))
            for change in changes.toMany where !inserted.contains(change.source) && !deleted.contains(change.source) {
                let map = columnMaps.map(for: change.source.entity)
                if let index = updateIndex[change.source] {
                    var bits = rows[index].columns ?? map.noBits
                    map.add(relationships: [change.relationship.relationshipSlot], to: &bits)
                    rows[index].columns = bits
                } else if let key = resolve(change.source) ?? change.source.primaryKey,
                          let number = schema.mapping(for: change.source.entity)?.number {
                    var bits = map.noBits
                    map.add(relationships: [change.relationship.relationshipSlot], to: &bits)
                    updateIndex[change.source] = rows.count
                    rows.append(HistoryChangeRow(type: .update, entity: number, key: key, columns: bits))
                }
            }
        }
        for row in changes.deleted {
            guard let key = row.objectID.primaryKey, let number = schema.mapping(for: row.objectID.entity)?.number else { continue }
            rows.append(HistoryChangeRow(type: .delete, entity: number, key: key, columns: nil, tombstone: tombstones[row.objectID]))
        }
        return rows
    }
}
