import Foundation
import OCDSQLite
import OpenCoreDataCore

/// Rebuilds as much of a model as a Core Data SQLite store's tables tell, for stores that carry
/// no model cache (Core Data before about framework version 1044, iPhone OS 3 to iOS 5), whose
/// models were often made in Xcode 3's binary format that nothing reads any more.
///
/// What can be known: the entities and their inheritance (`Z_PRIMARYKEY`), one attribute per
/// column with a type from the column's SQL type, and to-one relationships (an `INTEGER` column
/// with Core Data's `Z<TABLE>_<COLUMN>_INDEX`, whose destination is named by a `Z<n>_<NAME>`
/// entity column beside it, or by an entity of the column's name, or else is the only table
/// holding every key the column refers to; an indexed column whose destination stays unknown
/// is read as an Integer 64 attribute).
/// What cannot: the original case of names (columns are upper case, so names come back lower
/// case), which entity of a tree declares a column (all go to the root entity), optionality,
/// defaults, to-many relationships and inverses, and Integer 16/32 or Boolean versus Integer 64.
/// A model built this way is only good for reading: the store refuses to open read-write with it.
struct StoreSchemaInference {
    let connection: SQLiteConnection
    let url: URL
    /// The table whose columns are being inferred.
    private var currentTable: String?

    init(connection: SQLiteConnection, url: URL) {
        self.connection = connection
        self.url = url
    }

    mutating func inferModel() throws -> NSManagedObjectModel {
        let rows = try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT")
        var entities: [Int64: NSEntityDescription] = [:]
        var order: [Int64] = []
        var parents: [Int64: Int64] = [:]
        var names: Set<String> = []
        for row in rows {
            guard let number = row[0].int64Value, let name = row[1].stringValue, !name.isEmpty else {
                throw ModelFileError(file: url, element: "Z_PRIMARYKEY", reason: "a row has no entity number or name")
            }
            guard number >= 1 else {
                throw ModelFileError(file: url, element: "Z_PRIMARYKEY", reason: "entity \(name) has the number \(number); numbers start at 1")
            }
            guard names.insert(name).inserted else {
                throw ModelFileError(file: url, element: "Z_PRIMARYKEY", reason: "the entity name \(name) appears twice")
            }
            entities[number] = NSEntityDescription(name: name)
            order.append(number)
            if let parent = row[2].int64Value, parent != 0 { parents[number] = parent }
        }
        guard !order.isEmpty else { throw ModelFileError(file: url, element: "Z_PRIMARYKEY", reason: "the store lists no entities") }
        for number in order {
            var seen: Set<Int64> = [number]
            var ancestor = parents[number]
            while let current = ancestor {
                guard seen.insert(current).inserted else {
                    throw ModelFileError(file: url, element: "Z_PRIMARYKEY",
                                         reason: "entity \(entities[number]!.name!) inherits from itself (Z_SUPER)")
                }
                ancestor = parents[current]
            }
        }
        for number in order {
            guard let parentNumber = parents[number] else { continue }
            guard let parent = entities[parentNumber] else {
                throw ModelFileError(file: url, element: "Z_PRIMARYKEY", reason: "entity \(entities[number]!.name!) names the missing parent entity \(parentNumber)")
            }
            parent.subentities = parent.subentities + [entities[number]!]
        }
        let byName = Dictionary(order.map { (entities[$0]!.name!.uppercased(), entities[$0]!) }, uniquingKeysWith: { first, _ in first })
        for number in order where parents[number] == nil {
            try inferProperties(of: entities[number]!, entitiesByNumber: entities, entitiesByUpperName: byName)
        }
        let model = NSManagedObjectModel()
        model.entities = order.map { entities[$0]! }
        model.storedEntityNumbers = Dictionary(uniqueKeysWithValues: order.map { (entities[$0]!.name!, $0) })
        model.isInferredFromStore = true
        return model
    }

    private mutating func inferProperties(of root: NSEntityDescription, entitiesByNumber: [Int64: NSEntityDescription],
                                 entitiesByUpperName: [String: NSEntityDescription]) throws {
        let table = "Z" + SQLiteSchema.columnStem(root.name!)
        let columns = try connection.columns(ofTable: table).map { ($0.name.uppercased(), $0.type.uppercased()) }
        guard !columns.isEmpty else {
            throw ModelFileError(file: url, element: "entity \(root.name!)", reason: "the store has no table \(table)")
        }
        currentTable = table
        let indexed = Set(try connection.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", [.text(table)])
            .compactMap { $0[0].stringValue?.uppercased() })
        let columnNames = Set(columns.map(\.0))
        var properties: [NSPropertyDescription] = []
        for (column, type) in columns where column.hasPrefix("Z") && !column.hasPrefix("Z_") {
            // `Z<n>_<NAME>` holds the entity number of a to-one's destination, not a value.
            if let underscore = column.firstIndex(of: "_"), column.dropFirst().prefix(upTo: underscore).allSatisfy(\.isNumber),
               column.index(after: column.startIndex) < underscore {
                continue
            }
            let name = String(column.dropFirst()).lowercased()
            if type == "INTEGER", indexed.contains("\(table)_\(column)_INDEX"),
               let destination = try destination(of: column, in: columnNames, entitiesByNumber: entitiesByNumber,
                                                 entitiesByUpperName: entitiesByUpperName) {
                properties.append(NSRelationshipDescription(name: name, destination: destination))
            } else {
                properties.append(NSAttributeDescription(name: name, type: Self.attributeType(ofSQLType: type)))
            }
        }
        root.properties = properties
    }

    /// The destination of the to-one stored in `column`: named by a `Z<n>_<NAME>` column, or
    /// the entity whose name is the column's, or else the one table holding every key the column
    /// refers to.
    private func destination(of column: String, in columns: Set<String>, entitiesByNumber: [Int64: NSEntityDescription],
                             entitiesByUpperName: [String: NSEntityDescription]) throws -> NSEntityDescription? {
        let stem = String(column.dropFirst())
        if let entityColumn = columns.first(where: { $0.hasSuffix("_" + stem) && $0.hasPrefix("Z") && !$0.hasPrefix("Z_") }),
           let number = Int64(entityColumn.dropFirst().prefix { $0.isNumber }), let entity = entitiesByNumber[number] {
            return entity
        }
        if let entity = entitiesByUpperName[stem] { return entity }
        return try destinationHoldingEveryKey(of: column, entitiesByNumber: entitiesByNumber)
    }

    /// The root entity whose table is the only one holding a row for every key in `column` of
    /// the table being inferred; nil when no key is stored or several tables would do.
    private func destinationHoldingEveryKey(of column: String, entitiesByNumber: [Int64: NSEntityDescription]) throws -> NSEntityDescription? {
        guard let table = currentTable else { return nil }
        let keys = try connection.rows("SELECT DISTINCT \(column) FROM \(table) WHERE \(column) IS NOT NULL LIMIT 1000")
            .compactMap { $0[0].int64Value }
        guard !keys.isEmpty else { return nil }
        let list = keys.map(String.init).joined(separator: ", ")
        var candidates: [NSEntityDescription] = []
        for entity in entitiesByNumber.values where entity.superentity == nil {
            let candidate = "Z" + SQLiteSchema.columnStem(entity.name!)
            guard try connection.tableExists(candidate) else { continue }
            let found = try connection.scalar("SELECT COUNT(*) FROM \(candidate) WHERE Z_PK IN (\(list))").int64Value ?? 0
            if found == Int64(keys.count) { candidates.append(entity) }
        }
        return candidates.count == 1 ? candidates[0] : nil
    }

    static func attributeType(ofSQLType type: String) -> NSAttributeType {
        switch type {
        case "INTEGER": .integer64AttributeType
        case "TIMESTAMP": .dateAttributeType
        case "FLOAT", "REAL": .doubleAttributeType
        case "DECIMAL": .decimalAttributeType
        case "VARCHAR", "TEXT": .stringAttributeType
        default: .binaryDataAttributeType
        }
    }
}
