import Foundation

/// A file URL's standardized path, as `url.standardizedFileURL.path` gives it, without the cost
/// of standardizing when the path has nothing it would change: no empty, "." or ".." part, and
/// none of the prefixes it drops (`/private`, `/var/automount`). Opening a store and listing the
/// folders of mapping models name paths that are nearly always standard already.
///
/// ```swift
/// StandardFilePath.of(URL(fileURLWithPath: "/a/b/../c"))   // "/a/c"
/// ```
package enum StandardFilePath {
    package static func of(_ url: URL) -> String {
        let path = url.path
        return isStandard(path) ? path : url.standardizedFileURL.path
    }

    /// Whether standardizing would leave `path` as it is.
    package static func isStandard(_ path: String) -> Bool {
        path.hasPrefix("/") && !path.hasPrefix("/private/") && !path.hasPrefix("/var/automount")
            && path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
                .allSatisfy { $0 != "" && $0 != "." && $0 != ".." }
    }
}
