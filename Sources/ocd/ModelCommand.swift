import Foundation
import OpenCoreData

/// `ocd model show PATH [--json]`: prints a model file's entities, properties, relationships
/// and versions; given a SQLite store, the model the store carries. `ocd model diagram` draws it.
enum ModelCommand {
    static func run(_ arguments: [String]) -> Int32 {
        guard let subcommand = arguments.first, ["show", "diagram"].contains(subcommand) else {
            Output.fail(arguments.isEmpty ? "model needs a subcommand: show or diagram" : "unknown model subcommand '\(arguments[0])'")
            return 2
        }
        return Output.exitCode {
            if subcommand == "diagram" { return try diagram(Array(arguments.dropFirst())) }
            let options = try CommandOptions(Array(arguments.dropFirst()), allowsModel: false)
            let url = try options.existingPath(what: "model")
            let report: ModelReport
            if isSQLiteFile(url) {
                // A store: the model it carries.
                let stored = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url)
                report = ModelReport(model: stored.model, path: url.path, versions: nil, storedModel: stored.source.rawValue)
            } else {
                let model = try NSManagedObjectModel(validatingContentsOf: url)
                report = ModelReport(model: model, path: url.path, versions: try ModelFileVersions(at: url), storedModel: nil)
            }
            if options.json { try Output.printJSON(report) } else { print(report.text) }
        }
    }

    /// `ocd model diagram PATH [--format dot|svg]`: the model (or a store's own model) as a
    /// Graphviz graph, DOT text by default, SVG drawn by Graphviz's `dot`.
    private static func diagram(_ arguments: [String]) throws {
        var path: String?
        var format = "dot"
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--format":
                guard let value = remaining.popFirst(), ["dot", "svg"].contains(value) else {
                    throw UsageError("--format takes dot or svg")
                }
                format = value
            default:
                if argument.hasPrefix("-") { throw UsageError("unknown option '\(argument)'") }
                guard path == nil else { throw UsageError("unexpected argument '\(argument)'") }
                path = argument
            }
        }
        guard let path else { throw UsageError("missing the model path") }
        let url = try CommandOptions.existing(path)
        let model = isSQLiteFile(url)
            ? try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url).model
            : try NSManagedObjectModel(validatingContentsOf: url)
        let diagram = ModelDiagram(model: model, title: url.deletingPathExtension().lastPathComponent)
        print(format == "svg" ? try diagram.svg() : diagram.dot, terminator: "")
    }

    /// Whether `url` is a SQLite database file (its header says so).
    private static func isSQLiteFile(_ url: URL) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
    }
}
