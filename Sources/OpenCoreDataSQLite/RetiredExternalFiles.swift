import Foundation

/// Files of external binary data that a committed save no longer refers to, kept until no read
/// that began before that save is still going: such a read sees the old rows, which name them.
///
/// Reads through the store's reader pool and query generations' pinned readers register here
/// (`beginRead`/`endRead`); each commit that gives files up starts a new epoch. A file retired
/// in epoch `E` is deleted once every read still going began in `E` or later. Reads of other
/// processes are not known here: one that began before the commit and reaches the row after
/// the file is gone gets an error naming the file.
final class RetiredExternalFiles: @unchecked Sendable {
    // @unchecked Sendable: every field is used only under `lock`.
    private let lock = NSLock()
    private var epoch = 0
    /// How many reads are going, by the epoch they began in.
    private var reads: [Int: Int] = [:]
    /// Files given up, by the epoch of the commit that gave them up.
    private var retired: [(epoch: Int, paths: [String])] = []

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
        Self.delete(removable)
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
        Self.delete(removable)
    }

    /// Deletes every retired file (the store is closing: its reads are over).
    func deleteAll() {
        let all: [String] = lock.withLock {
            defer { retired = [] }
            return retired.flatMap(\.paths)
        }
        Self.delete(all)
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

    /// A file already gone is no error; one that can't be deleted is only left behind.
    private static func delete(_ paths: [String]) {
        for path in paths { unlink(path) }
    }
}
