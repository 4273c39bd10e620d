import Foundation

extension NSManagedObjectModel {
    /// The `versionChecksum` of every version of a versioned model, by version name: the
    /// `.mom` files of a `.momd` folder, or the `.xcdatamodel` versions of a `.xcdatamodeld`
    /// bundle. What a staged migration's `NSLightweightMigrationStage` lists.
    ///
    /// ```swift
    /// let url = Bundle.module.url(forResource: "Notes", withExtension: "momd")!
    /// let checksums = try NSManagedObjectModel.checksumsForVersionedModel(at: url)
    /// let stage = NSLightweightMigrationStage([checksums["Notes"]!, checksums["Notes 2"]!])
    /// ```
    /// Throws for a URL that is not a versioned model, and for a version that cannot be read
    /// (naming the file and what is wrong with it).
    ///
    /// Difference from Core Data: `.xcdatamodeld` bundles are read too (Core Data reads compiled
    /// models only); the checksums are computed from each version's entities, as
    /// `versionChecksum` is, rather than read from `VersionInfo.plist`.
    public class func checksumsForVersionedModel(at modelURL: URL) throws -> [String: String] {
        guard ["momd", "xcdatamodeld"].contains(modelURL.pathExtension) else {
            throw ModelFileError(file: modelURL, reason: "it is not a versioned model (a .momd folder or a .xcdatamodeld bundle)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: modelURL.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ModelFileError(file: modelURL, reason: "there is no such folder")
        }
        let files: [URL]
        if modelURL.pathExtension == "xcdatamodeld" {
            files = try XcodeModel.versions(in: modelURL)
        } else {
            files = ModelVersionCandidates.everyVersion(of: modelURL).map(\.file).filter { $0 != modelURL }
        }
        guard !files.isEmpty else { throw ModelFileError(file: modelURL, reason: "it holds no model version") }
        var checksums: [String: String] = [:]
        for file in files {
            checksums[NSManagedObjectModel.versionName(of: file)] = try NSManagedObjectModel(validatingContentsOf: file).versionChecksum
        }
        return checksums
    }
}
