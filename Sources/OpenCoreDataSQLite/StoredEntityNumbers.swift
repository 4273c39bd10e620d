import Foundation
import OCDSQLite
import OpenCoreDataCore

/// The entity numbers (`Z_ENT`) a store's `Z_PRIMARYKEY` gives its entities, which the store's
/// rows, `Z<n>_` columns and join tables follow.
enum StoredEntityNumbers {
    /// Entity name → `Z_ENT`, for the application's entities (Core Data's own, such as persistent
    /// history, are numbered from 16000 and left out). A number below 1 or a name given twice is
    /// a `ModelFileError` naming `Z_PRIMARYKEY`.
    static func read(on connection: SQLiteConnection, url: URL) throws -> [String: Int64] {
        var numbers: [String: Int64] = [:]
        for row in try connection.rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16000") {
            guard let number = row[0].int64Value, let name = row[1].stringValue else { continue }
            guard number >= 1 else {
                throw ModelFileError(file: url, element: "Z_PRIMARYKEY", reason: "entity \(name) has the number \(number); numbers start at 1")
            }
            guard numbers[name] == nil else {
                throw ModelFileError(file: url, element: "Z_PRIMARYKEY", reason: "the entity name \(name) appears twice")
            }
            numbers[name] = number
        }
        return numbers
    }

    /// The stored number of each of `entities`, by model name, found by name or by renaming
    /// identifier (Core Data's migrations keep a renamed entity's old name in `Z_PRIMARYKEY`).
    /// Entities the store does not list are left out.
    static func numbers(of entities: [NSEntityDescription], in stored: [String: Int64]) -> [String: Int64] {
        var numbers: [String: Int64] = [:]
        for entity in entities {
            guard let name = entity.name else { continue }
            if let number = stored[name] ?? entity.renamingIdentifier.flatMap({ stored[$0] }) { numbers[name] = number }
        }
        return numbers
    }
}
