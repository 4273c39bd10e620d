import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file so that a crash or a kill at any moment leaves either the old file or the new
/// one, never a torn one: the bytes go to a temporary file in the same directory, which is
/// flushed to disk, renamed over the old file (a rename within a directory is atomic), and the
/// directory is flushed so that the rename itself survives a power loss.
package enum AtomicFileWrite {
    package static func replace(_ link: URL, with bytes: UnsafeRawBufferPointer) throws {
        // A store reached through a symbolic link is replaced where the link points.
        let url = link.resolvingSymlinksInPath()
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        // The new file gets the old one's permissions.
        let mode = (try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int).flatMap { $0 } ?? 0o644
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else { throw failure("create \(temporary.path)", url: url) }
        // Exactly the old file's permissions, whatever the process's umask.
        fchmod(descriptor, mode_t(mode))
        do {
            try writeAll(bytes, to: descriptor, path: temporary.path, url: url)
        } catch {
            close(descriptor)
            unlink(temporary.path)
            throw error
        }
        close(descriptor)
        guard rename(temporary.path, url.path) == 0 else {
            let error = failure("rename \(temporary.path) to \(url.lastPathComponent)", url: url)
            unlink(temporary.path)
            throw error
        }
        flushDirectory(directory)
    }

    /// Writes `data` to a new file at `url` (which must not exist) and flushes it to disk, so
    /// that a reference to the file committed afterwards never finds it torn. The directory is
    /// left to the caller to flush (`flushDirectory`), once for all the files it creates.
    package static func create(_ url: URL, with data: Data) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("create \(url.path)", url: url) }
        do {
            try data.withUnsafeBytes { try writeAll($0, to: descriptor, path: url.path, url: url) }
        } catch {
            close(descriptor)
            unlink(url.path)
            throw error
        }
        close(descriptor)
    }

    /// Flushes a directory to disk, so that the files created or renamed in it survive a power loss.
    package static func flushDirectory(_ directory: URL) {
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Writes every byte to `descriptor` and flushes it; `path` is the file written, `url`
    /// the store named in errors.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String, url: URL) throws {
        var written = 0
        while written < bytes.count {
            let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw failure("write \(path)", url: url) }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw failure("flush \(path)", url: url) }
    }

    /// The temporary files that saves of `url` killed before their rename left beside it.
    package static func leftovers(of url: URL) -> [URL] {
        let directory = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".tmp") }.map { directory.appendingPathComponent($0) }
    }

    /// Deletes the regular file at `url` and the leftovers of its saves; false (nothing deleted)
    /// when something other than a regular file is there. A missing file is no error.
    package static func destroy(_ url: URL) throws -> Bool {
        for leftover in leftovers(of: url) { try? FileManager.default.removeItem(at: leftover) }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return true }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { return false }
        try FileManager.default.removeItem(at: url)
        return true
    }

    package static func replace(_ url: URL, with data: Data) throws {
        try data.withUnsafeBytes { try replace(url, with: $0) }
    }

    private static func failure(_ what: String, url: URL) -> CocoaError {
        let code = errno
        let reason = String(cString: strerror(code))
        let cocoaCode: CocoaError.Code = code == ENOSPC ? .fileWriteOutOfSpace : code == EACCES || code == EPERM ? .fileWriteNoPermission
            : code == EROFS ? .fileWriteVolumeReadOnly : .fileWriteUnknown
        return CocoaError(cocoaCode, userInfo: [NSFilePathErrorKey: url.path,
                                                NSLocalizedDescriptionKey: "Can't save the store \(url.path): could not \(what): \(reason)",
                                                NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code))])
    }
}
