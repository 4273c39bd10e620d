import Foundation
import OpenCoreDataCore
import OpenCoreDataSQLite

/// Core Data's layout (`SQLiteSchema`: one table per inheritance tree with `Z_PK`, `Z_ENT`,
/// `Z_OPT`, a column per attribute and to-one, join tables, order columns, `Z_PRIMARYKEY`,
/// `Z_METADATA`, `Z_MODELCACHE`) in PostgreSQL's types.
///
/// - Integers, Booleans, keys and entity numbers: `bigint`.
/// - Dates: `double precision`, seconds since 2001-01-01 as in Core Data's SQLite files, so that
///   a date comes back to the last bit (a `timestamp` keeps microseconds).
/// - Doubles, floats and decimals: `double precision` (decimals as the SQLite store keeps them).
/// - Strings, URIs and composite attributes' JSON: `text COLLATE "C"`, so that strings compare
///   and sort by code point, as in memory, whatever the database's collation.
/// - Data, UUIDs, transformable values: `bytea`. Values of attributes that allow external
///   storage are kept in their column: a server has no folder beside the store.
///
/// Keys come from one sequence per table (`<TABLE>_Z_PK_SEQ`), so that app servers sharing the
/// database never hand out the same key; `Z_PRIMARYKEY` lists the entities and their numbers,
/// and its `Z_MAX` is not kept (the sequence is the truth).
enum PostgresSchemaDefinition {
    /// The PostgreSQL type of a column `SQLiteSchema` lays out with `sqliteType`.
    static func columnType(_ sqliteType: String) -> String {
        switch sqliteType {
        case "INTEGER": "bigint"
        case "TIMESTAMP", "FLOAT", "DECIMAL": "double precision"
        case "VARCHAR": "text COLLATE \"C\""
        default: "bytea"
        }
    }

    /// The name of the sequence that hands out the keys of `table`.
    static func sequence(of table: SQLiteSchema.TableMapping) -> String { sequence(ofTable: table.name) }

    /// The name of the sequence that hands out the keys of the table named `table`.
    static func sequence(ofTable table: String) -> String { shortName("\(table)_Z_PK_SEQ") }

    /// The statements that create an empty store for `schema`.
    static func creationStatements(for schema: SQLiteSchema) -> [String] {
        var statements = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT bigint PRIMARY KEY, Z_NAME text, Z_SUPER bigint, Z_MAX bigint)",
            "CREATE TABLE Z_METADATA (Z_VERSION bigint PRIMARY KEY, Z_UUID text, Z_PLIST bytea)",
            "CREATE TABLE Z_MODELCACHE (Z_CONTENT bytea)",
        ]
        for table in schema.tables {
            statements.append(createStatement(for: table))
            statements.append("CREATE SEQUENCE \(sequence(of: table)) AS bigint")
        }
        statements += schema.distinctJoinTables.map { createStatement(for: $0, in: schema) }
        statements += indexAndConstraintStatements(for: schema)
        return statements
    }

    /// `CREATE TABLE` for an inheritance tree's table, under its name or `name`.
    static func createStatement(for table: SQLiteSchema.TableMapping, named name: String? = nil) -> String {
        let opaque = opaqueCompositeColumns(of: table)
        let columns = ["Z_PK bigint PRIMARY KEY", "Z_ENT bigint", "Z_OPT bigint"]
            + table.columns.map { "\($0.name) \(opaque.contains($0.name) ? "bytea" : columnType($0.type))" }
        return "CREATE TABLE \(name ?? table.name) ( \(columns.joined(separator: ", ")) )"
    }

    /// `CREATE TABLE` for a join table, under its name or `name`.
    static func createStatement(for join: SQLiteSchema.JoinTable, named name: String? = nil, in schema: SQLiteSchema) -> String {
        let columns = ["\(join.sourceColumn) bigint", "\(join.destinationColumn) bigint"] + schema.orderColumns(of: join).map { "\($0) bigint" }
        let key = [join.sourceColumn, join.destinationColumn].sorted().joined(separator: ", ")
        return "CREATE TABLE \(name ?? join.name) ( \(columns.joined(separator: ", ")), PRIMARY KEY (\(key)) )"
    }

    /// The indexes and uniqueness constraints of `schema`'s tables: the SQLite store's indexes,
    /// without SQLite's collation name (a text column's own collation is the binary one here);
    /// its unique indexes become constraints.
    static func indexAndConstraintStatements(for schema: SQLiteSchema) -> [String] {
        schema.indexStatements().filter { !$0.hasPrefix("CREATE UNIQUE INDEX") }
            .map { shortIndexName($0.replacingOccurrences(of: " COLLATE BINARY", with: "")) }
            + uniquenessConstraintStatements(for: schema)
    }

    /// The columns of attributes of the composite type that are not `NSCompositeAttributeDescription`s:
    /// their values are archived as transformable ones are (data, not JSON text).
    static func opaqueCompositeColumns(of table: SQLiteSchema.TableMapping) -> Set<String> {
        var columns: Set<String> = []
        for mapping in table.entities {
            for attribute in mapping.layout.attributes
            where attribute.attributeType == .compositeAttributeType && !(attribute is NSCompositeAttributeDescription) {
                if let column = mapping.attributeColumns[attribute.attributeSlot] { columns.insert(column) }
            }
        }
        return columns
    }

    /// `CREATE INDEX name ON …` with a name PostgreSQL keeps whole.
    static func shortIndexName(_ statement: String) -> String {
        let prefix = "CREATE INDEX "
        guard statement.hasPrefix(prefix), let on = statement.range(of: " ON ") else { return statement }
        let name = String(statement[statement.index(statement.startIndex, offsetBy: prefix.count)..<on.lowerBound])
        return prefix + shortName(name) + statement[on.lowerBound...]
    }

    /// `name` as PostgreSQL keeps it: its first 63 bytes, cut between code points.
    static func truncated(_ name: String) -> String {
        guard name.utf8.count > 63 else { return name }
        var result = String.UnicodeScalarView()
        var bytes = 0
        for scalar in name.unicodeScalars {
            bytes += String(scalar).utf8.count
            guard bytes <= 63 else { break }
            result.append(scalar)
        }
        return String(result)
    }

    /// A name of at most 63 bytes that stays distinct: a longer one is cut, and ends with a
    /// digest of the whole.
    static func shortName(_ name: String) -> String {
        guard name.utf8.count > 63 else { return name }
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        let suffix = "_" + String(hash, radix: 16)
        return truncated(String(name.prefix(63 - suffix.utf8.count))) + suffix
    }

    /// The model's uniqueness constraints, as exclusion constraints checked when a save commits
    /// (`DEFERRABLE INITIALLY DEFERRED`): within a save, one row may take a value another gives
    /// up, in any order. An exclusion constraint, unlike a unique one, can bind only an entity's
    /// own rows in a table its inheritance tree shares (`WHERE Z_ENT …`). Rows with a nil value
    /// never conflict, as with a unique index.
    static func uniquenessConstraintStatements(for schema: SQLiteSchema) -> [String] {
        var statements: [String] = []
        for table in schema.tables {
            for mapping in table.entities {
                let entityName = mapping.entity.name ?? ""
                for constraint in mapping.entity.layout.uniquenessConstraintNames
                where !(mapping.entity.superentity?.layout.uniquenessConstraintNames.contains(constraint) ?? false) {
                    let columns = constraint.compactMap { schema.column(for: $0, in: mapping) }
                    guard columns.count == constraint.count else { continue }
                    let elements = columns.map { "\($0) WITH =" }.joined(separator: ", ")
                    let name = shortName("Z_\(entityName)_UNIQUE_\(constraint.joined(separator: "_"))")
                    let scope = table.isShared ? " WHERE (\(mapping.subtreeCondition(on: "Z_ENT")))" : ""
                    statements.append("ALTER TABLE \(table.name) ADD CONSTRAINT \(name) EXCLUDE USING btree (\(elements))\(scope) DEFERRABLE INITIALLY DEFERRED")
                }
            }
        }
        return statements
    }
}
