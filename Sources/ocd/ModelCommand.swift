import Foundation
import OpenCoreData

/// `ocd model show PATH [--json]`: prints a model file's entities, properties, relationships
/// and versions; given a SQLite store, the model the store carries.
enum ModelCommand {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.first == "show" else {
            Output.fail(arguments.isEmpty ? "model needs a subcommand: show" : "unknown model subcommand '\(arguments[0])'")
            return 2
        }
        do {
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
            return 0
        } catch let error as UsageError {
            Output.fail(error.description)
            return 2
        } catch {
            Output.fail(StoreCommand.describe(error))
            return 1
        }
    }

    /// Whether `url` is a SQLite database file (its header says so).
    private static func isSQLiteFile(_ url: URL) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
    }
}
