import Foundation

/// Reads the files of a model (`contents`, `.xccurrentversion`, `.mom`, `VersionInfo.plist`),
/// saying what is wrong when one cannot be read: missing, a folder, not readable (permission),
/// or an I/O error. `FileManager.contents(atPath:)` answers nil for all of these alike.
enum ModelFileReader {
    /// The bytes of `file`, or nil when there is no file there.
    static func dataIfPresent(of file: URL) throws -> Data? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder) else { return nil }
        guard !isFolder.boolValue else { throw ModelFileError(file: file, reason: "this is a folder, not a file") }
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw ModelFileError(file: file, reason: "the file cannot be read: permission denied")
        }
        do {
            return try Data(contentsOf: file)
        } catch {
            throw ModelFileError(file: file, reason: "the file cannot be read (\((error as NSError).localizedDescription))")
        }
    }

    /// The bytes of `file`, which must exist.
    static func data(of file: URL) throws -> Data {
        guard let data = try dataIfPresent(of: file) else { throw ModelFileError(file: file, reason: "there is no such file") }
        return data
    }
}
