import OCDSQLite
import OpenCoreDataCore

/// The deleted rows of one save, grouped into statements that each delete many rows:
/// `DELETE FROM <table> WHERE Z_PK IN (?, …) AND Z_OPT = ?`, one per table and version the
/// context saw, at most `largestBatch` keys each.
///
/// One statement per row costs SQLite a statement's setup — opening a cursor on the table and on
/// each of its indexes — for every row; a large cascade (10,000 owners with 20 pets each) spent
/// more on that than on deleting. Batch sizes come from a short fixed list, so that a store
/// prepares a handful of statements per table rather than one per length.
struct SQLiteDeleteBatches {
    /// A row to delete, as a batch names it.
    struct Key {
        let objectID: NSManagedObjectID
        let primaryKey: Int64
        let expectedVersion: Int64
    }

    struct Batch {
        let table: SQLiteSchema.TableMapping
        let expectedVersion: Int64
        /// A slice of its group's keys, not a copy: a large save's keys are listed once.
        let keys: ArraySlice<Key>
        /// Shared by the batches of one table and size.
        let sql: String
    }

    /// The batch sizes, largest first: a group is cut into as many of the largest as fit, then
    /// the rest into smaller ones.
    static let sizes = [256, 64, 16, 4, 1]

    private(set) var batches: [Batch] = []
    /// The tables rows are deleted from, in the order first met.
    private(set) var tables: [SQLiteSchema.TableMapping] = []

    init(rows: [SaveChanges.Row], schema: SQLiteSchema) {
        // Groups by table and version, in the order first met; rows of one table usually share one.
        var groups: [(table: SQLiteSchema.TableMapping, version: Int64, keys: [Key])] = []
        var last = -1
        // Sized for all the rows when the first group starts: rows of one table and version
        // are the usual case.
        for index in rows.indices {
            let objectID = rows[index].objectID
            guard let table = schema.mapping(for: objectID.entity)?.table, let primaryKey = objectID.primaryKey else { continue }
            let version = rows[index].expectedVersion
            if last < 0 || groups[last].table !== table || groups[last].version != version {
                last = groups.firstIndex { $0.table === table && $0.version == version } ?? {
                    var keys: [Key] = []
                    if groups.isEmpty { keys.reserveCapacity(rows.count) }
                    groups.append((table, version, keys))
                    if !tables.contains(where: { $0 === table }) { tables.append(table) }
                    return groups.count - 1
                }()
            }
            groups[last].keys.append(Key(objectID: objectID, primaryKey: primaryKey, expectedVersion: version))
        }
        var statements: [String: String] = [:]
        for group in groups {
            var start = 0
            for size in Self.sizes where group.keys.count - start >= size {
                let sql = statements["\(group.table.name) \(size)", default: Self.sql(deletingFrom: group.table, count: size)]
                statements["\(group.table.name) \(size)"] = sql
                while group.keys.count - start >= size {
                    batches.append(Batch(table: group.table, expectedVersion: group.version, keys: group.keys[start ..< start + size], sql: sql))
                    start += size
                }
            }
        }
    }

    private static func sql(deletingFrom table: SQLiteSchema.TableMapping, count: Int) -> String {
        "DELETE FROM \(table.name) WHERE Z_PK IN (\(Array(repeating: "?", count: count).joined(separator: ", "))) AND Z_OPT = ?"
    }
}
