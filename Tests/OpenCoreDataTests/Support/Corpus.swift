import Foundation
import OCDSQLite
import Testing

/// Files of the shared test corpus (Apple-written models, compiled models and stores), which
/// lives next to the package checkout: `<package root>/../shared/corpus`.
enum Corpus {
    /// This file is Tests/OpenCoreDataTests/Support/Corpus.swift: the package root is four levels up.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/corpus")

    static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    /// Every file or folder under `folder` of the corpus whose name ends with `suffix`, sorted.
    static func files(under folder: String, suffix: String) -> [URL] {
        let base = root.appendingPathComponent(folder)
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
