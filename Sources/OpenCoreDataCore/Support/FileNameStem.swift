import Foundation

/// A file's name without its extension, as `URL.deletingPathExtension()` gives it, without the
/// cost of `URL`'s parsing for the plain case: opening a store and searching a model's versions
/// do it for every file they name.
///
/// ```swift
/// FileNameStem.of(URL(fileURLWithPath: "/a/Journal 2.xcdatamodel"))   // "Journal 2"
/// ```
package enum FileNameStem {
    package static func of(_ file: URL) -> String {
        let name = file.lastPathComponent
        return plainStem(of: name[...]).map(String.init) ?? file.deletingPathExtension().lastPathComponent
    }

    /// `fileName` without its extension when it plainly has one (`Store.sqlite`): a name, then
    /// letters and digits after its last dot. Anything else is left to `URL`'s own rules.
    package static func plainStem(of fileName: Substring) -> Substring? {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return nil }
        let suffix = fileName[fileName.index(after: dot)...].utf8
        guard !suffix.isEmpty, suffix.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else { return nil }
        return fileName[..<dot]
    }
}
