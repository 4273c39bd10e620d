import Foundation
import OpenCoreData

/// `ocd model show PATH [--json]`: prints a model file's entities, properties, relationships
/// and versions.
enum ModelCommand {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.first == "show" else {
            Output.fail(arguments.isEmpty ? "model needs a subcommand: show" : "unknown model subcommand '\(arguments[0])'")
            return 2
        }
        do {
            let options = try CommandOptions(Array(arguments.dropFirst()), allowsModel: false)
            let url = try options.existingPath(what: "model")
            let model = try NSManagedObjectModel(validatingContentsOf: url)
            let report = ModelReport(model: model, path: url.path, versions: try ModelFileVersions(at: url))
            if options.json { try Output.printJSON(report) } else { print(report.text) }
            return 0
        } catch let error as UsageError {
            Output.fail(error.description)
            return 2
        } catch {
            Output.fail("\(error)")
            return 1
        }
    }
}
