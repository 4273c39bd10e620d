import Foundation
import OpenCoreData

/// `ocd predicate FORMAT [ARG …] [--entity NAME --model PATH] [--json]`: parses a predicate
/// format string with its arguments (JSON values: `30`, `"tea"`, `[1, 2]`, `null`) and prints
/// the predicate as `predicateFormat` writes it back; with an entity and a model, also the SQL
/// the SQLite store would run. A malformed format exits 1 with the position of the error.
enum PredicateCommand {
    struct Report: Encodable {
        let predicateFormat: String
        let sql: String?
        let arguments: [PropertyListJSON]?
    }

    static func run(_ arguments: [String]) -> Int32 {
        var format: String?
        var values: [Any] = []
        var entityName: String?
        var modelPath: String?
        var json = false
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--json": json = true
            case "--entity", "--model":
                guard let value = remaining.popFirst() else { return usage("\(argument) needs a value") }
                if argument == "--entity" { entityName = value } else { modelPath = value }
            default:
                guard format != nil else { format = argument; continue }
                guard let value = try? JSONSerialization.jsonObject(with: Data(argument.utf8), options: .fragmentsAllowed) else {
                    return usage("argument \(values.count + 1) is not a JSON value: \(argument) (write strings in double quotes, for example '\"tea\"')")
                }
                values.append(value)
            }
        }
        guard let format else { return usage("missing the format string") }
        guard (entityName == nil) == (modelPath == nil) else { return usage("--entity and --model go together") }
        do {
            let predicate = try NSPredicate(validatingFormat: format, argumentArray: values)
            var sql: String?
            var bound: [PropertyListJSON]?
            if let entityName, let modelPath {
                let model = try NSManagedObjectModel(validatingContentsOf: URL(fileURLWithPath: modelPath))
                let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
                request.predicate = predicate
                let statement = try model.sqliteStatement(for: request)
                sql = statement.sql
                bound = statement.arguments.map { $0.map(PropertyListJSON.init) ?? .string("NULL") }
            }
            let report = Report(predicateFormat: predicate.predicateFormat, sql: sql, arguments: bound)
            if json {
                try Output.printJSON(report)
            } else {
                print(report.predicateFormat)
                if let sql { print("SQL: \(sql)") }
                if let bound, !bound.isEmpty { print("Arguments: \(bound.map(\.text).joined(separator: ", "))") }
            }
            return 0
        } catch {
            Output.fail(StoreCommand.describe(error))
            return 1
        }
    }

    private static func usage(_ message: String) -> Int32 {
        Output.fail(message)
        return 2
    }
}
