import Foundation
import OpenCoreDataCore

/// Files of external binary data that a committed save no longer refers to, kept until no read
/// that began before that save is still going: such a read sees the old rows, which name them.
///
/// Reads through the store's reader pool and query generations' pinned readers register here
/// (`beginRead`/`endRead`); each commit that gives files up starts a new epoch. A file retired
/// in epoch `E` is deleted once every read still going began in `E` or later. Values of rows
/// read before, which read their files only at first use, read them first (`hold`/`release`).
/// One instance serves every store of this process open on the folder (`opened(forFolder:)`).
/// Reads and values of other processes are not known here: a read that began before the commit
/// and reaches the row after the file is gone gets an error naming the file, and a value not
/// read yet reads as nil.
final class RetiredExternalFiles: @unchecked Sendable {
    // @unchecked Sendable: every field is used only under `lock`.
    private let lock = NSLock()
    /// The stores open on the folder.
    private var users = 0
    private var epoch = 0
    /// How many reads are going, by the epoch they began in.
    private var reads: [Int: Int] = [:]
    /// Files given up, by the epoch of the commit that gave them up.
    private var retired: [(epoch: Int, paths: [String])] = []
    /// The values not read yet that refer to each file (`ExternalBinaryData` of row snapshots).
    private var held: [String: [ObjectIdentifier: HeldValue]] = [:]

    private struct HeldValue {
        // Weak: the value's end releases it, and a value ending while a retiring commit reads
        // it must read as gone, not be touched.
        weak var value: ExternalBinaryData?
    }

    /// The instances in use, by folder path. An instance goes when its last store closes.
    private static let registry = Registry()

    private final class Registry: @unchecked Sendable {
        // @unchecked Sendable: `byFolder` is used only under `lock`, which is taken before an
        // instance's lock, never after it.
        let lock = NSLock()
        var byFolder: [String: Entry] = [:]

        struct Entry {
            weak var files: RetiredExternalFiles?
        }
    }

    private init() {}

    /// The instance of the external data folder at `folder`, for a store opening on it: every
    /// store of this process open on one folder shares it, so that a save of one waits for the
    /// reads, and reads first the unread values, of all of them. Pair with `close()`.
    static func opened(forFolder folder: String) -> RetiredExternalFiles {
        registry.lock.withLock {
            registry.byFolder = registry.byFolder.filter { $0.value.files != nil }
            let files = registry.byFolder[folder]?.files ?? RetiredExternalFiles()
            registry.byFolder[folder] = Registry.Entry(files: files)
            files.lock.withLock { files.users += 1 }
            return files
        }
    }

    /// A store that `opened(forFolder:)` this instance closed. When it was the last, every
    /// retired file is deleted (values not read yet read theirs first).
    func close() {
        let last = lock.withLock {
            users -= 1
            return users == 0
        }
        if last { deleteAll() }
    }

    /// Notes a read beginning; pass what it returns to `endRead(_:)`.
    func beginRead() -> Int {
        lock.withLock {
            reads[epoch, default: 0] += 1
            return epoch
        }
    }

    /// Notes the end of a read `beginRead()` began, and deletes what no read needs any more.
    func endRead(_ began: Int) {
        let removable: [String] = lock.withLock {
            if let count = reads[began], count > 1 { reads[began] = count - 1 } else { reads[began] = nil }
            return takeRemovable()
        }
        delete(removable)
    }

    /// Files a commit just gave up: deleted now if no earlier read is going, else when the last
    /// one ends.
    func retire(_ paths: [String]) {
        guard !paths.isEmpty else { return }
        let removable: [String] = lock.withLock {
            epoch += 1
            retired.append((epoch, paths))
            return takeRemovable()
        }
        delete(removable)
    }

    /// Notes a value that will read the file `path` at its first use (a row snapshot's
    /// `ExternalBinaryData`): before a save that gives the file up deletes it, the value reads it
    /// (maps it: the mapping outlives the file), so it still has its bytes once the file is gone.
    func hold(_ path: String, by value: ExternalBinaryData) {
        lock.withLock { held[path, default: [:]][ObjectIdentifier(value)] = HeldValue(value: value) }
    }

    /// The value `hold(_:by:)` noted has read its file, or is gone.
    func release(_ path: String, by value: ObjectIdentifier) {
        lock.withLock {
            guard var values = held[path] else { return }
            values[value] = nil
            held[path] = values.isEmpty ? nil : values
        }
    }

    /// Deletes every retired file (the stores are closed: their reads are over; values not read
    /// yet read their files first).
    private func deleteAll() {
        let all: [String] = lock.withLock {
            defer { retired = [] }
            return retired.flatMap(\.paths)
        }
        delete(all)
    }

    /// The retired files every going read began after; under `lock`.
    private func takeRemovable() -> [String] {
        let oldestRead = reads.keys.min() ?? Int.max
        var removable: [String] = []
        retired.removeAll { entry in
            guard entry.epoch <= oldestRead else { return false }
            removable += entry.paths
            return true
        }
        return removable
    }

    /// Deletes `paths`, once the values that hold them have read them. A file already gone is
    /// no error; one that can't be deleted is only left behind.
    private func delete(_ paths: [String]) {
        guard !paths.isEmpty else { return }
        let holders: [ExternalBinaryData] = lock.withLock {
            paths.flatMap { path in (held.removeValue(forKey: path) ?? [:]).values.compactMap(\.value) }
        }
        // Outside the lock: a value's first read releases it (`release(_:by:)`).
        for value in holders { _ = try? value.data() }
        for path in paths { unlink(path) }
    }
}
