import Foundation

/// The options shared by `ocd`'s inspection commands: one path, `--model PATH`, `--json`.
struct CommandOptions {
    var path: String?
    var modelPath: String?
    var json = false

    /// Parses `arguments`; `allowsModel` says whether `--model` is accepted.
    init(_ arguments: [String], allowsModel: Bool) throws(UsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--json":
                json = true
            case "--model" where allowsModel:
                guard let value = remaining.popFirst() else { throw UsageError("--model needs a path") }
                modelPath = value
            default:
                if argument.hasPrefix("-") { throw UsageError("unknown option '\(argument)'") }
                guard path == nil else { throw UsageError("unexpected argument '\(argument)'") }
                path = argument
            }
        }
    }

    /// The path argument, which must name an existing file or folder.
    func existingPath(what: String) throws -> URL {
        guard let path else { throw UsageError("missing the \(what) path") }
        return try Self.existing(path)
    }

    /// `path` as a URL, when it names a file or folder that can be read.
    static func existing(_ path: String) throws -> URL {
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("\(path): no such file or folder") }
        guard FileManager.default.isReadableFile(atPath: path) else { throw CommandFailure("\(path): cannot be read: permission denied") }
        return URL(fileURLWithPath: path)
    }
}

/// A mistake in the command line: printed with the usage text, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A command that could not do its work: printed, exit code 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Output helpers shared by the commands.
enum Output {
    /// Runs a command's work and gives its exit code: 0 when it succeeds, 2 (with the message)
    /// for a mistake in the command line, 1 (with the message) when the work fails.
    static func exitCode(_ work: () throws -> Void) -> Int32 {
        do {
            try work()
            return 0
        } catch let error as UsageError {
            fail(error.description)
            return 2
        } catch {
            fail(StoreCommand.describe(error))
            return 1
        }
    }

    /// Prints `value` as pretty, key-sorted JSON (the documented `--json` format).
    static func printJSON<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Writes `message` to standard error, prefixed with `ocd: `.
    static func fail(_ message: String) {
        FileHandle.standardError.write(Data("ocd: \(message)\n".utf8))
    }
}
