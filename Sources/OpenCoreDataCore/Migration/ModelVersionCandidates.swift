import Foundation

/// The other versions of the model file a model was loaded from: where a migration looks first
/// for the model a store was written with.
///
/// A `.xcdatamodeld` bundle gives its `.xcdatamodel` versions, a `.momd` folder its `.mom`
/// files; a single version inside a bundle gives its bundle's. The version the model itself was
/// loaded from is left out; the older ones come first, newest first (a store is most often one
/// version behind), then the newer ones; each is loaded only when asked for. A single
/// `.xcdatamodel` or `.mom`, and a model built in code, give none.
package struct ModelVersionCandidates {
    /// A version's name, without extension (`"BookmarksModel 3"`), and its file.
    package struct Version {
        package let name: String
        package let file: URL
    }

    /// The other versions: the older ones newest first, then the newer ones oldest first.
    package let versions: [Version]
    /// The name of the version the model was loaded from, when it came from a versioned file.
    package let currentName: String?

    package init(of model: NSManagedObjectModel) {
        // The bundle's versions as the model's loading listed them, else as the folder lists them.
        let listed = model.bundleVersions.map { ($0.files, Optional($0.loaded)) }
        guard let url = model.fileURL, let (files, current) = listed ?? Self.versionFiles(of: url) else {
            versions = []
            currentName = nil
            return
        }
        currentName = current.map(NSManagedObjectModel.versionName(of:))
        // The versions before the loaded one first, newest first; then any after it (a store
        // written by a later release, opened by an earlier one), oldest first.
        // The files and the current one are listed from one folder: their names tell them apart.
        let currentFileName = current?.lastPathComponent
        let position = files.firstIndex { $0.lastPathComponent == currentFileName }
        let older = position.map { files[..<$0] } ?? files[...]
        let newer = position.map { files[($0 + 1)...] } ?? []
        versions = (older.reversed() + newer).map { Version(name: NSManagedObjectModel.versionName(of: $0), file: $0) }
    }

    /// Loads one version, frozen as a store's model is.
    package static func load(_ version: Version) throws -> NSManagedObjectModel {
        let model = try NSManagedObjectModel(validatingContentsOf: version.file)
        model.freeze()
        return model
    }

    /// Every version of the model file at `url`, oldest first: the versions of a `.xcdatamodeld`
    /// or `.momd` bundle (of its bundle, for one version inside it), or the single file itself.
    package static func everyVersion(of url: URL) -> [Version] {
        let files = versionFiles(of: url)?.0 ?? [url]
        return files.map { Version(name: NSManagedObjectModel.versionName(of: $0), file: $0) }
    }

    /// The version file `url` loads: the current version of a bundle, or `url` itself.
    package static func versionFile(of url: URL) -> URL {
        (versionFiles(of: url)?.1) ?? url
    }

    /// The version files (oldest first) of the model file at `url`, and the one `url` loads.
    private static func versionFiles(of url: URL) -> ([URL], URL?)? {
        let parent = url.deletingLastPathComponent()
        switch (url.pathExtension, parent.pathExtension) {
        case ("xcdatamodel", "xcdatamodeld"), ("mom", "momd"):
            return versionFiles(of: parent).map { ($0.0, url) }
        case ("xcdatamodeld", _):
            return ((try? XcodeModel.versions(in: url)) ?? [], try? XcodeModel.currentVersion(in: url))
        case ("momd", _):
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            let files = names.filter { $0.hasSuffix(".mom") }
                .sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
                .map { url.appendingPathComponent($0) }
            return (files, try? CompiledModel.momFile(at: url))
        default:
            return nil
        }
    }
}
