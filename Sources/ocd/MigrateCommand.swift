import Foundation
import OpenCoreData
import OpenCoreDataCore
import OpenCoreDataSQLite

/// `ocd migrate --store PATH --model BUNDLE [--to VERSION] [--dry-run] [--json]`: what opening a
/// SQLite store with a model version migrates — the source version and how it was found, and
/// the change to each entity and property — and, unless `--dry-run`, the migration itself, with
/// a progress bar on a terminal.
enum MigrateCommand {
    struct Options {
        var store: String?
        var model: String?
        var version: String?
        var dryRun = false
        var json = false

        init(_ arguments: [String]) throws(UsageError) {
            var remaining = arguments[...]
            func value(for flag: String) throws(UsageError) -> String {
                guard let value = remaining.popFirst() else { throw UsageError("\(flag) needs a value") }
                return value
            }
            while let argument = remaining.popFirst() {
                switch argument {
                case "--store": store = try value(for: argument)
                case "--model": model = try value(for: argument)
                case "--to": version = try value(for: argument)
                case "--dry-run": dryRun = true
                case "--json": json = true
                default: throw UsageError("unknown option '\(argument)'")
                }
            }
            if store == nil { throw UsageError("migrate needs --store PATH") }
            if model == nil { throw UsageError("migrate needs --model PATH (a .xcdatamodeld or .momd)") }
        }
    }

    static func run(_ arguments: [String]) -> Int32 {
        Output.exitCode {
            let options = try Options(arguments)
            let store = try CommandOptions.existing(options.store!)
            let model = try destinationModel(options)
            let plan = try SQLiteMigrationPreview(forStoreAt: store, model: model)
            let report = MigrationReport(store: store.path, model: options.model!, version: options.version, plan: plan)
            if !options.json { print(report.text) }
            var seconds: Double?
            if plan.isNeeded && !options.dryRun {
                seconds = try migrate(store, to: model, showingProgress: !options.json && isatty(STDERR_FILENO) != 0)
                if !options.json { print("Migrated in \(String(format: "%.3f", seconds!)) s.") }
            } else if !options.json {
                print(plan.isNeeded ? "Dry run: nothing was changed." : "Nothing to migrate.")
            }
            if options.json { try Output.printJSON(report.with(migratedSeconds: seconds)) }
        }
    }

    /// The model to migrate to: the current version of the model file, or the version `--to` names.
    private static func destinationModel(_ options: Options) throws -> NSManagedObjectModel {
        let file = try CommandOptions.existing(options.model!)
        guard let version = options.version else { return try NSManagedObjectModel(validatingContentsOf: file) }
        let versionFile = file.appendingPathComponent(version + (file.pathExtension == "momd" ? ".mom" : ".xcdatamodel"))
        guard FileManager.default.fileExists(atPath: versionFile.path) else {
            let names = (try? ModelFileVersions(at: file).names) ?? []
            throw CommandFailure("\(file.path) has no version '\(version)' (its versions: \(names.joined(separator: ", ")))")
        }
        return try NSManagedObjectModel(validatingContentsOf: versionFile)
    }

    /// Opens the store with the model, migrating it, and returns how long it took.
    private static func migrate(_ store: URL, to model: NSManagedObjectModel, showingProgress: Bool) throws -> Double {
        let progress = Progress(totalUnitCount: 0)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let done = LockedFlag()
        if showingProgress {
            // The migration reports on this thread; another draws the bar until it is done.
            Thread.detachNewThread {
                while !done.isSet {
                    drawBar(progress)
                    usleep(100_000)
                }
            }
        }
        let start = Date()
        defer {
            done.set()
            if showingProgress { drawBar(progress); FileHandle.standardError.write(Data("\n".utf8)) }
        }
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store,
                                           options: [NSMigratePersistentStoresAutomaticallyOption: true,
                                                     NSInferMappingModelAutomaticallyOption: true,
                                                     OCDMigrationProgressOption: progress])
        let seconds = Date().timeIntervalSince(start)
        try coordinator.remove(coordinator.persistentStores[0])
        return seconds
    }

    private static func drawBar(_ progress: Progress) {
        let width = 30
        let filled = Int((progress.fractionCompleted * Double(width)).rounded(.down))
        let entity = progress.userInfo[ProgressUserInfoKey.migrationEntityName] as? String ?? ""
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let line = "\r[\(bar)] \(progress.completedUnitCount)/\(progress.totalUnitCount) \(entity)"
        FileHandle.standardError.write(Data((line.padding(toLength: 60, withPad: " ", startingAt: 0)).utf8))
    }
}

/// A flag one thread sets and another reads.
final class LockedFlag: @unchecked Sendable {
    // @unchecked Sendable: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
