import Foundation

/// `ocd port PATH… [--dry-run]`: rewrites Core Data code written for Apple's SDK so that it also
/// builds on Linux (see `CoreDataPorter`), in place; prints each change as a unified diff (undo
/// with `patch -R`) and what it could not do with file and line. Folders are searched for
/// `.swift` files. Exit code 0 when everything was ported, 1 when something was reported.
enum PortCommand {
    static func run(_ arguments: [String]) -> Int32 {
        var problemsFound = false
        let code = Output.exitCode {
            var dryRun = false
            var paths: [String] = []
            for argument in arguments {
                if argument == "--dry-run" { dryRun = true; continue }
                if argument.hasPrefix("-") { throw UsageError("unknown option '\(argument)'") }
                paths.append(argument)
            }
            guard !paths.isEmpty else { throw UsageError("missing the files or folders to port") }
            let urls = try paths.flatMap { try swiftFiles(at: try CommandOptions.existing($0)) }
            let originals = try urls.map { url in
                guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                    throw CommandFailure("\(url.path): cannot be read as UTF-8 text")
                }
                return CoreDataPorter.SourceFile(path: url.path, lines: text.components(separatedBy: "\n"))
            }
            var porter = CoreDataPorter(files: originals)
            porter.port()
            for (original, ported) in zip(originals, porter.files) where original.lines != ported.lines {
                print(UnifiedDiff.text(old: original.lines, new: ported.lines, oldName: original.path, newName: ported.path),
                      terminator: "")
                if !dryRun {
                    try Data(ported.lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: ported.path), options: .atomic)
                }
            }
            for problem in porter.problems { Output.fail(problem.description) }
            problemsFound = !porter.problems.isEmpty
        }
        return code == 0 && problemsFound ? 1 : code
    }

    /// `url` when it is a file; the `.swift` files under it when it is a folder.
    private static func swiftFiles(at url: URL) throws -> [URL] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else { return [url] }
        let found = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        return found.sorted { $0.path < $1.path }
    }
}
