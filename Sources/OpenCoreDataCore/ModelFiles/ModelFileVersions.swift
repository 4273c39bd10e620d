import Foundation

/// The versions a model file holds, and which one loads: the versions of a `.xcdatamodeld`
/// bundle (or of a compiled `.momd`), or the single version of a `.xcdatamodel` or `.mom`.
///
/// ```swift
/// let versions = try ModelFileVersions(at: URL(fileURLWithPath: "Journal.xcdatamodeld"))
/// print(versions.names, versions.current)   // ["Journal", "Journal 2"] Journal 2
/// ```
public struct ModelFileVersions: Sendable, Equatable {
    /// Version names without extension, oldest first (numeric-aware name order).
    public let names: [String]
    /// The version that `NSManagedObjectModel(contentsOf:)` loads.
    public let current: String
    /// For a compiled `.momd`: the entity version hashes momc computed for each version
    /// (`VersionInfo.plist`'s `NSManagedObjectModel_VersionHashes`: version → entity → 32 bytes).
    /// Empty for other model files, whose hashes come from the loaded model's
    /// `entityVersionHashesByName`.
    public let entityVersionHashes: [String: [String: Data]]

    /// Reads the versions of the model file at `url`.
    public init(at url: URL) throws {
        switch url.pathExtension {
        case "xcdatamodeld":
            names = try XcodeModel.versions(in: url).map { $0.deletingPathExtension().lastPathComponent }
            current = try XcodeModel.currentVersion(in: url).deletingPathExtension().lastPathComponent
            entityVersionHashes = [:]
        case "momd":
            let moms = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            names = moms.filter { $0.hasSuffix(".mom") }.map { String($0.dropLast(4)) }
                .sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
            current = try CompiledModel.momFile(at: url).deletingPathExtension().lastPathComponent
            let hasInfo = FileManager.default.fileExists(atPath: url.appendingPathComponent("VersionInfo.plist").path)
            entityVersionHashes = hasInfo ? try CompiledModel.versionInfo(at: url).versionHashes : [:]
        case "xcdatamodel", "mom":
            names = [url.deletingPathExtension().lastPathComponent]
            current = names[0]
            entityVersionHashes = [:]
        default:
            throw ModelFileError(file: url, reason: "not a model: expected a .xcdatamodeld, .xcdatamodel, .momd or .mom")
        }
    }
}
