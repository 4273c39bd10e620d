import Foundation

/// Stores filled once per program run and copied into each run's directory: filling the
/// 1,000,000-item store of W8 took nearly all of a run's time, though it is untimed, so that
/// only a few runs could be afforded of a workload whose timed part lasts milliseconds and
/// varies with the disk's flushes. Copying takes a fraction of a second, and `--runs` can then
/// be raised until the medians hold still.
///
/// ```swift
/// try FilledStores.copy("raw-1000000", files: "raw.sqlite", into: directory) { template in
///     try RawWorkloads.fillItemStore(in: template, n: 1_000_000)
/// }
/// ```
enum FilledStores {
    /// The filled templates by key, each in a folder of its own under `root`.
    // nonisolated(unsafe): ocd-bench runs its workloads one at a time, on the main thread.
    nonisolated(unsafe) private static var filled: Set<String> = []

    /// Where the templates are kept while the program runs (`removeAll()` deletes it).
    private static let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("ocd-bench-filled-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)

    /// Copies the template `key` — the file `name` and any file beside it whose name begins
    /// with it (a `-wal`, a support folder's files are not expected) — into `directory`, filling
    /// the template first with `fill` (given the template's folder) if this is its first use.
    static func copy(_ key: String, files name: String, into directory: URL, fill: (URL) throws -> Void) throws {
        let template = root.appendingPathComponent(key, isDirectory: true)
        if !filled.contains(key) {
            try? FileManager.default.removeItem(at: template)
            try FileManager.default.createDirectory(at: template, withIntermediateDirectories: true)
            try fill(template)
            filled.insert(key)
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: template.path) where file.hasPrefix(name) {
            try FileManager.default.copyItem(at: template.appendingPathComponent(file), to: directory.appendingPathComponent(file))
        }
    }

    /// Deletes every template.
    static func removeAll() {
        try? FileManager.default.removeItem(at: root)
        filled.removeAll()
    }
}
