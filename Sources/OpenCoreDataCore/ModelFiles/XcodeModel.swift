import Foundation

/// Xcode's model files: a `.xcdatamodeld` bundle of versions, or one `.xcdatamodel` folder
/// with its `contents` XML.
///
/// Which version of a bundle is loaded: the one `.xccurrentversion` names
/// (`_XCCurrentVersionName`); when that file is missing, empty or names no version, the only
/// version, or else the newest, meaning the last in numeric-aware name order
/// ("Model 10" after "Model 9", "Model.V2" after "Model").
enum XcodeModel {
    /// The version folders of a `.xcdatamodeld` bundle, oldest first (numeric-aware name order).
    static func versions(in bundle: URL) throws -> [URL] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: bundle.path)
        } catch {
            let cause = FileManager.default.isReadableFile(atPath: bundle.path) ? (error as NSError).localizedDescription : "permission denied"
            throw ModelFileError(file: bundle, reason: "the model bundle cannot be read (\(cause))")
        }
        // Compare the names without ".xcdatamodel": "Journal" < "Journal 2" < "Journal 10".
        func stem(_ name: String) -> String { String(name.dropLast(".xcdatamodel".count)) }
        return names.filter { $0.hasSuffix(".xcdatamodel") }
            .sorted { stem($0).compare(stem($1), options: [.numeric]) == .orderedAscending }
            .map { bundle.appendingPathComponent($0) }
    }

    /// The version `.xccurrentversion` names, or nil when it names none.
    static func declaredCurrentVersion(in bundle: URL) throws -> String? {
        let file = bundle.appendingPathComponent(".xccurrentversion")
        // A missing or empty file names no version.
        guard let data = try ModelFileReader.dataIfPresent(of: file), !data.isEmpty else { return nil }
        let plist: Any
        do {
            // Not PropertyListSerialization: on Linux it can crash on a corrupt binary list.
            plist = try PropertyListValue.read(data).foundationValue
        } catch {
            throw ModelFileError(file: file, reason: "the file is not a property list (\(error))")
        }
        guard let name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String, !name.isEmpty else { return nil }
        return name
    }

    /// The version loaded from `bundle` (see the type's documentation for the rule).
    static func currentVersion(in bundle: URL) throws -> URL {
        try currentVersion(in: bundle, among: versions(in: bundle))
    }

    /// The version loaded from `bundle`, whose versions are `versions`.
    private static func currentVersion(in bundle: URL, among versions: [URL]) throws -> URL {
        if let declared = try declaredCurrentVersion(in: bundle) {
            guard let version = versions.first(where: { $0.lastPathComponent == declared }) else {
                throw ModelFileError(file: bundle.appendingPathComponent(".xccurrentversion"),
                                     reason: "the current version \"\(declared)\" is not in the bundle")
            }
            return version
        }
        guard let newest = versions.last else {
            throw ModelFileError(file: bundle, reason: "the model bundle holds no .xcdatamodel version")
        }
        return newest
    }

    /// Loads a `.xcdatamodeld` bundle (its current version) or a `.xcdatamodel` folder.
    static func load(at url: URL, into model: NSManagedObjectModel) throws {
        guard url.pathExtension == "xcdatamodeld" else { return try loadVersion(at: url, into: model) }
        let versions = try versions(in: url)
        let version = try currentVersion(in: url, among: versions)
        try loadVersion(at: version, into: model)
        model.bundleVersions = (versions, version)
    }

    /// Loads one `.xcdatamodel` folder.
    static func loadVersion(at version: URL, into model: NSManagedObjectModel) throws {
        let contents = version.appendingPathComponent("contents")
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: version.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw ModelFileError(file: version, reason: "this is a file, not an .xcdatamodel folder")
            }
            // A folder that cannot be listed hides its files: say so rather than "no contents file".
            if !FileManager.default.isReadableFile(atPath: version.path) || !FileManager.default.isExecutableFile(atPath: version.path) {
                throw ModelFileError(file: version, reason: "the model folder cannot be read: permission denied")
            }
        }
        guard let data = try ModelFileReader.dataIfPresent(of: contents) else {
            if FileManager.default.fileExists(atPath: version.appendingPathComponent("elements").path) {
                throw ModelFileError(file: version, reason: "the model is in the binary format of Xcode 3 and earlier, "
                                     + "which cannot be read; open it in Xcode 4 or later and save it again")
            }
            throw ModelFileError(file: contents, reason: "the model has no contents file")
        }
        let root = try XMLElementTree.parse(data, file: contents)
        var decoder = XcodeModelDecoder(file: contents)
        try decoder.decode(root, into: model)
    }
}
