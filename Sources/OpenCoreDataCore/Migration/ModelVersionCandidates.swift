import Foundation

/// The versions of the model file a model was loaded from, each loaded as its own model: where
/// a migration looks first for the model a store was written with.
///
/// A `.xcdatamodeld` bundle gives its `.xcdatamodel` versions, a `.momd` folder its `.mom`
/// files, oldest first; a single `.xcdatamodel` or `.mom` and a model built in code give none.
package struct ModelVersionCandidates {
    package struct Version {
        /// The version's name, without extension (`"BookmarksModel 3"`).
        package let name: String
        package let model: NSManagedObjectModel
    }

    package let versions: [Version]
    /// Versions that could not be loaded, with why: reported when no source model is found.
    package let failures: [(name: String, reason: String)]

    package init(of model: NSManagedObjectModel) {
        var versions: [Version] = []
        var failures: [(String, String)] = []
        for file in Self.versionFiles(of: model.fileURL) {
            let name = file.deletingPathExtension().lastPathComponent
            do {
                let version = try NSManagedObjectModel(validatingContentsOf: file)
                version.freeze()
                versions.append(Version(name: name, model: version))
            } catch {
                failures.append((name, "\(error)"))
            }
        }
        self.versions = versions
        self.failures = failures
    }

    /// The version files of the model file at `url`; a single version inside a bundle (a
    /// `.xcdatamodel` in a `.xcdatamodeld`, a `.mom` in a `.momd`) gives its bundle's versions.
    private static func versionFiles(of url: URL?) -> [URL] {
        guard let url else { return [] }
        let parent = url.deletingLastPathComponent()
        if (url.pathExtension == "xcdatamodel" && parent.pathExtension == "xcdatamodeld")
            || (url.pathExtension == "mom" && parent.pathExtension == "momd") {
            return versionFiles(of: parent)
        }
        switch url.pathExtension {
        case "xcdatamodeld":
            return (try? XcodeModel.versions(in: url)) ?? []
        case "momd":
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            return names.filter { $0.hasSuffix(".mom") }
                .sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
                .map { url.appendingPathComponent($0) }
        default:
            return []
        }
    }
}
