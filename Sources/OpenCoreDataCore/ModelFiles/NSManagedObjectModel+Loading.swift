import Foundation

extension NSManagedObjectModel {
    /// Loads the model at `url`: an Xcode `.xcdatamodeld` bundle (its current version, see
    /// `XcodeModel`), a `.xcdatamodel` folder, a compiled `.momd` folder or `.mom` file.
    /// Returns nil when the file cannot be loaded, as Core Data does; use
    /// `init(validatingContentsOf:)` to learn why.
    ///
    /// ```swift
    /// let model = NSManagedObjectModel(contentsOf: URL(fileURLWithPath: "Journal.xcdatamodeld"))
    /// ```
    public convenience init?(contentsOf url: URL) {
        do {
            try self.init(validatingContentsOf: url)
        } catch {
            return nil
        }
    }

    /// Loads the model at `url` as `init(contentsOf:)` does, throwing a `ModelFileError` that
    /// names the file, the line and what is wrong when it cannot.
    public convenience init(validatingContentsOf url: URL) throws {
        self.init()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelFileError(file: url, reason: "no such file or folder")
        }
        switch url.pathExtension {
        case "xcdatamodeld", "xcdatamodel":
            try XcodeModel.load(at: url, into: self)
        case "momd", "mom":
            try CompiledModel.load(at: url, into: self)
        default:
            throw ModelFileError(file: url, reason: "not a model: expected a .xcdatamodeld, .xcdatamodel, .momd or .mom")
        }
        fileURL = url
    }
}
