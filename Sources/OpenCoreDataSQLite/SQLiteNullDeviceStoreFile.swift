import Foundation

/// Where a SQLite store whose URL is `/dev/null` keeps its database: Core Data opens such a store
/// in memory (Xcode's app template does this for previews and tests:
/// `container.persistentStoreDescriptions.first!.url = URL(fileURLWithPath: "/dev/null")`).
///
/// OpenCoreData gives it a database file of its own in a new temporary folder instead, removed
/// when the store is removed or destroyed, so that the store keeps every behaviour of the SQLite
/// store (WAL, readers in parallel, query generations) and starts empty each time, as Core Data's
/// does. A killed process leaves the folder in the temporary directory.
enum SQLiteNullDeviceStoreFile {
    static let nullDevice = "/dev/null"

    /// Whether `url` asks for a store that lives only as long as it is open.
    static func isNullDevice(_ url: URL) -> Bool {
        // Standardizing a path is slow; only a path that ends in the device's name, or in a "."
        // or ".." that standardizing removes, can name it. (`hasSuffix`, not `contains`:
        // Foundation's `contains` searches through NSString.)
        guard url.isFileURL else { return false }
        let path = url.path
        guard path.hasSuffix("null") || path.hasSuffix("/.") || path.hasSuffix("/..") else { return false }
        return url.standardizedFileURL.path == nullDevice
    }

    /// A new, empty place for such a store's database.
    static func makeFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-dev-null-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("Store.sqlite")
    }

    /// Removes the database `makeFile()` gave, with its journal and support folders.
    static func remove(_ file: URL) {
        try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
    }
}
