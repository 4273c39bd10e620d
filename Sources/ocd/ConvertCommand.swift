import Foundation
import OpenCoreData
import OpenCoreDataCore
import OpenCoreDataPostgres

/// `ocd store convert --from PATH|URL --to PATH|URL --type binary|xml|sqlite|postgresql [--model PATH]`:
/// copies every object of a store into a new store of another type (`migratePersistentStore`),
/// with a progress bar on a terminal. The source is only read; the destination must not exist
/// (a PostgreSQL destination must hold no store). A PostgreSQL store is named by its
/// `postgresql://` URL, and carries its model as a SQLite store does.
enum ConvertCommand {
    struct Options {
        var from: String?
        var to: String?
        var type: String?
        var model: String?

        static let types = ["sqlite": NSSQLiteStoreType, "binary": NSBinaryStoreType, "xml": NSXMLStoreType,
                            "postgresql": OCDPostgreSQLStoreType]

        init(_ arguments: [String]) throws(UsageError) {
            var remaining = arguments[...]
            func value(for flag: String) throws(UsageError) -> String {
                guard let value = remaining.popFirst() else { throw UsageError("\(flag) needs a value") }
                return value
            }
            while let argument = remaining.popFirst() {
                switch argument {
                case "--from": from = try value(for: argument)
                case "--to": to = try value(for: argument)
                case "--type": type = try value(for: argument)
                case "--model": model = try value(for: argument)
                default: throw UsageError("unknown option '\(argument)'")
                }
            }
            guard from != nil, to != nil else { throw UsageError("store convert needs --from PATH and --to PATH") }
            guard let type, Self.types[type] != nil else { throw UsageError("store convert needs --type binary, xml, sqlite or postgresql") }
        }
    }

    static func run(_ arguments: [String]) -> Int32 {
        Output.exitCode {
            let options = try Options(arguments)
            let source = try location(options.from!, mustExist: true)
            let destination = try location(options.to!, mustExist: false)
            let destinationType = Options.types[options.type!]!
            let sourceType = try storeType(of: source)
            let model = try self.model(for: source, type: sourceType, modelPath: options.model)
            StoreCommand.registerStandInTransformers(for: model)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(ofType: sourceType, configurationName: nil, at: source,
                                                           options: sourceType == NSSQLiteStoreType
                                                               ? [NSReadOnlyPersistentStoreOption: true, OCDSQLiteReadImmutableOption: true]
                                                               : [NSReadOnlyPersistentStoreOption: true])
            let bar = isatty(STDERR_FILENO) != 0 ? ProgressBar() : nil
            var objects = 0
            let start = Date()
            let moved = try coordinator.migratePersistentStore(store, to: destination, options: nil, withType: destinationType) { done, total in
                objects = done
                bar?.draw(done: done, total: total)
            }
            bar?.finish()
            try coordinator.remove(moved)
            print("Converted \(objects) objects from the \(sourceType) store \(shown(source)) to the \(destinationType) store "
                  + "\(shown(destination)) in \(String(format: "%.3f", Date().timeIntervalSince(start))) s.")
        }
    }

    /// A store's location: a `postgresql://` URL, or a file path (which must exist for a source).
    private static func location(_ argument: String, mustExist: Bool) throws -> URL {
        if isServerURL(argument) {
            guard let url = URL(string: argument) else { throw CommandFailure("\(argument) is not a valid URL") }
            return url
        }
        return mustExist ? try CommandOptions.existing(argument) : URL(fileURLWithPath: argument)
    }

    private static func isServerURL(_ argument: String) -> Bool {
        argument.hasPrefix("postgresql://") || argument.hasPrefix("postgres://")
    }

    /// A location as messages name it: a path, or a URL without its password.
    private static func shown(_ url: URL) -> String {
        guard !url.isFileURL else { return url.path }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        if components?.password != nil { components?.password = "***" }
        return components?.string ?? url.absoluteString
    }

    /// The type of the store at `url`: PostgreSQL for a server URL, else the first built-in file
    /// type whose metadata the file holds.
    private static func storeType(of url: URL) throws -> String {
        if !url.isFileURL {
            _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: OCDPostgreSQLStoreType, at: url)
            return OCDPostgreSQLStoreType
        }
        for type in [NSSQLiteStoreType, NSBinaryStoreType, NSXMLStoreType] {
            if (try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)) != nil { return type }
        }
        throw CommandFailure("\(url.path) is not a SQLite, binary or XML store")
    }

    /// The model to read the store with: `--model`, or the model a SQLite store carries.
    private static func model(for url: URL, type: String, modelPath: String?) throws -> NSManagedObjectModel {
        if let modelPath { return try NSManagedObjectModel(validatingContentsOf: CommandOptions.existing(modelPath)) }
        if type == OCDPostgreSQLStoreType {
            guard let model = try PostgresStoreDatabase.storedModel(at: url) else {
                throw CommandFailure("\(shown(url)) keeps no model (Z_MODELCACHE): give the model with --model PATH")
            }
            return model
        }
        guard type == NSSQLiteStoreType else {
            throw CommandFailure("\(url.path) is a \(type) store, which carries no model: give the model with --model PATH")
        }
        return try StoreCommand.model(for: url, modelPath: nil).0
    }
}

/// A progress bar on standard error, redrawn in place.
struct ProgressBar {
    func draw(done: Int, total: Int) {
        let width = 30
        let filled = total > 0 ? min(width, done * width / total) : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total) objects".utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
