import Foundation
import OCDSQLite
import Testing

/// Files of the shared test corpus (Apple-written models, compiled models and stores, real format
/// strings). It is not part of the repository: it is found through the `OCD_CORPUS` environment
/// variable, else next to the package checkout at `<package root>/../shared/corpus`.
/// `OCD_CORPUS=none` means "no corpus", as in a bare clone.
///
/// Tests that read it carry the `.needsCorpus` trait, so that a clone without it skips them
/// with one line saying where the corpus was looked for; every other test makes its own fixtures.
enum Corpus {
    /// Where the corpus is looked for, or nil when `OCD_CORPUS=none` says there is none.
    static let root: URL? = {
        if let named = ProcessInfo.processInfo.environment["OCD_CORPUS"], !named.isEmpty {
            return named == "none" ? nil : URL(fileURLWithPath: named, isDirectory: true)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus", isDirectory: true)
    }()

    /// This file is Tests/OpenCoreDataTests/Support/Corpus.swift: the package root is four levels up.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Whether the corpus is there: its root is a readable folder.
    static let isAvailable: Bool = {
        guard let root else { return false }
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder) && isFolder.boolValue
            && FileManager.default.isReadableFile(atPath: root.path)
    }()

    /// The one line a skipped test shows.
    static let skipReason: String = {
        guard let root else { return "needs the shared corpus, and OCD_CORPUS=none says there is none" }
        return "needs the shared corpus, looked for at \(root.path) (set OCD_CORPUS to its folder)"
    }()

    /// The corpus root for a test that carries `.needsCorpus`; a path that does not exist otherwise,
    /// so that a test which forgot the trait fails on a missing file rather than reading elsewhere.
    static var base: URL { root ?? URL(fileURLWithPath: "/nonexistent/ocd-corpus") }

    static func url(_ relativePath: String) -> URL { base.appendingPathComponent(relativePath) }

    /// Every file or folder under `folder` of the corpus whose name ends with `suffix`, sorted.
    static func files(under folder: String, suffix: String) -> [URL] {
        let base = self.base.appendingPathComponent(folder)
        guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        return enumerator.compactMap { $0 as? URL }
            .filter { $0.lastPathComponent.hasSuffix(suffix) }
            .sorted { $0.path < $1.path }
    }

    /// Copies a corpus store with its `-wal` and `-shm` files (those that exist) into
    /// `directory`, writable, so that opening it never touches the corpus. Returns the copy's URL.
    static func copyStore(_ relativePath: String, to directory: TemporaryDirectory) throws -> URL {
        try copyStore(at: url(relativePath), to: directory)
    }

    /// Copies the store at `source` (anywhere) with its `-wal` and `-shm` files, as above.
    static func copyStore(at source: URL, to directory: TemporaryDirectory) throws -> URL {
        let target = directory.file(source.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] {
            let from = URL(fileURLWithPath: source.path + suffix)
            guard FileManager.default.fileExists(atPath: from.path) else { continue }
            let to = URL(fileURLWithPath: target.path + suffix)
            try FileManager.default.copyItem(at: from, to: to)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: to.path)
        }
        return target
    }

    /// `Z_METADATA`'s `Z_UUID` and decoded `Z_PLIST`, read with plain SQL on a read-only connection.
    static func rawMetadata(ofStoreAt url: URL) throws -> (uuid: String, plist: [String: Any]) {
        var configuration = SQLiteConnection.Configuration()
        configuration.readOnly = true
        configuration.walMode = false
        let connection = try SQLiteConnection(path: url.path, configuration: configuration)
        let row = try #require(try connection.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1").first)
        let data = try #require(row[1].dataValue)
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        return (row[0].stringValue ?? "", plist)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test or suite only when the shared corpus is there (see `Corpus`): the corpus holds
    /// Apple-written files that cannot be part of the repository, so a bare clone skips these.
    static var needsCorpus: Self { .enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipReason)) }
}
