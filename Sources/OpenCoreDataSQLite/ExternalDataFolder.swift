import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OpenCoreDataCore

/// The folder where a SQLite store keeps binary values too large for its rows
/// (`.<Name>_SUPPORT/_EXTERNAL_DATA/` beside the store, as Core Data names it), and the files a
/// save creates and gives up there.
///
/// A file is written, and flushed, while the save is written — before the transaction that
/// refers to it commits — under a new UUID name that no committed row names; a file a save
/// stops referring to (its object deleted, its value replaced) is deleted only once that save is
/// final. So a save that fails, a rollback or a kill at any moment leaves every committed row's
/// file in place; what a kill can leave is a file no row refers to.
///
/// Reading needs only the folder's path; the save's bookkeeping is used under the store's lock.
final class ExternalDataFolder: @unchecked Sendable {
    // @unchecked Sendable: `url` and `store` never change; the bookkeeping of saves, and
    // `closed`, are read and written only under the store's lock (saves are written, and the
    // store unloaded, under it) or by `deinit`.

    /// The store's file, named in errors.
    let store: URL
    /// `.<Name>_SUPPORT/_EXTERNAL_DATA`.
    let url: URL
    /// Files committed saves gave up, until the reads that may still need them end; shared with
    /// the other stores of this process open on the folder.
    let retired: RetiredExternalFiles
    /// Whether `storeDidClose()` ran.
    private var closed = false

    /// Files the save being written (its current try) created, and the ones it no longer
    /// refers to.
    private var createdByTry: [String] = []
    private var releasedByTry: Set<String> = []
    /// The column written for each value of the try, so that a row written again in the same
    /// try (after a unique index refused it once) refers to the file already written.
    private var columnsOfTry: [ValueKey: Data] = [:]
    /// The same for the tries a held save made final so far (`holdWrites()`).
    private var createdByHold: [String] = []
    private var releasedByHold: Set<String> = []

    private struct ValueKey: Hashable {
        let object: ObjectIdentifier
        let slot: Int
    }

    /// `url`'s path and a separator: a file's path is this and its name (joining strings, not
    /// URLs, since it is done per row).
    private let pathPrefix: String

    init(store: URL) {
        self.store = store
        // The path is made once, as a string: each `URL.path` of the URL made from it would
        // take it apart again. A path with "." or ".." parts, or a relative one, is made
        // absolute and standard, so that every store of one folder names its files alike.
        let joined = Self.path(of: store)
        url = URL(fileURLWithPath: joined, isDirectory: true)
        let path = StandardFilePath.isStandard(joined) ? joined : url.absoluteURL.standardizedFileURL.path
        pathPrefix = path + "/"
        retired = .opened(forFolder: path)
    }

    deinit { storeDidClose() }

    /// The store closed (`unload()`), or, for one that never did, this folder is gone.
    func storeDidClose() {
        guard !closed else { return }
        closed = true
        retired.close()
    }

    /// The path of the folder's file `name`.
    private func path(of name: String) -> String { pathPrefix + name }

    /// The external data folder of the store at `store`.
    static func url(of store: URL) -> URL {
        URL(fileURLWithPath: path(of: store), isDirectory: true)
    }

    /// The path of `url(of:)`, without a trailing slash.
    private static func path(of store: URL) -> String {
        // Joined as strings: joining URLs asks the disk whether each part is a folder.
        let storePath = store.path
        let slash = storePath.lastIndex(of: "/")
        let parent = slash.map { storePath[...$0] } ?? "./"
        let fileName = slash.map { storePath[storePath.index(after: $0)...] } ?? storePath[...]
        let stem = FileNameStem.plainStem(of: fileName).map(String.init) ?? FileNameStem.of(store)
        return String(parent + ".\(stem)_SUPPORT/_EXTERNAL_DATA")
    }

    // MARK: Reading

    /// The value a column of an external-storage attribute holds, as a row snapshot keeps it:
    /// the bytes in the row, or the file it refers to, read at first use (`ExternalBinaryData`;
    /// read before a save that gives the file up deletes it). Only a column in no known layout
    /// throws here; `description` names the value in errors ("The value of Photo.image of …").
    func lazyValue(ofColumn column: Data, describedAs description: @escaping @Sendable @autoclosure () -> String) throws -> PrimitiveValue {
        switch try content(of: column, describedAs: description()) {
        case .inline(let data):
            return .data(data)
        case .reference(let name):
            let path = path(of: name)
            let retired = retired
            let value = ExternalBinaryData(location: path, reader: { [self] in try read(name, describedAs: description()) },
                                           onFirstUseOrEnd: { retired.release(path, by: $0) })
            retired.hold(path, by: value)
            return .externalData(value)
        }
    }

    /// The value a column of an external-storage attribute holds, read now: the bytes in the
    /// row, or the file it refers to (mapped). `object` and `attribute` name the value in errors.
    func value(ofColumn column: Data, object: @autoclosure () -> String, attribute: NSAttributeDescription) throws -> Data {
        try value(ofColumn: column, describedAs: "The value of \(attribute.entity?.name ?? "?").\(attribute.name) of \(object())")
    }

    /// The same, for a value `description` describes ("The value of Photo.image of …").
    func value(ofColumn column: Data, describedAs description: @autoclosure () -> String) throws -> Data {
        switch try content(of: column, describedAs: description()) {
        case .inline(let data):
            return data
        case .reference(let name):
            return try read(name, describedAs: description())
        }
    }

    /// What `column` holds; a column in no known layout throws, naming the value as `description`
    /// says.
    private func content(of column: Data, describedAs description: @autoclosure () -> String) throws -> ExternalDataColumn.Content {
        do {
            return try ExternalDataColumn.content(of: column)
        } catch {
            throw unreadable(error, description: description())
        }
    }

    /// The file `name` of the folder, mapped into memory, not read: only the pages used are.
    private func read(_ name: String, describedAs description: String) throws -> Data {
        let file = URL(fileURLWithPath: path(of: name), isDirectory: false)
        do {
            return try Data(contentsOf: file, options: .alwaysMapped)
        } catch {
            let missing = !FileManager.default.fileExists(atPath: file.path)
            throw CocoaError(missing ? .fileReadNoSuchFile : .fileReadUnknown, userInfo: [
                NSFilePathErrorKey: file.path, NSURLErrorKey: store, NSUnderlyingErrorKey: error as NSError,
                NSLocalizedDescriptionKey: "\(description) in the store \(store.path) is kept in the external data file \(file.path), which \(missing ? "is missing" : "can't be read")",
            ])
        }
    }

    private func unreadable(_ problem: ExternalDataColumn.Problem, description: String) -> CocoaError {
        let what = switch problem {
        case .fileBackedFuture: "a file-backed future (NSFileBackedFuture), which OpenCoreData does not read"
        case .unknownMarker(let marker): "a value starting with the byte \(marker), which is no external data marker (1: in the row, 2: in a file)"
        case .badFileName: "a reference to an external data file whose name is not a file name"
        }
        return CocoaError(.fileReadCorruptFile, userInfo: [
            NSFilePathErrorKey: store.path, NSURLErrorKey: store,
            NSLocalizedDescriptionKey: "\(description) in the store \(store.path) is \(what)",
        ])
    }

    // MARK: Saving

    /// The column to write for `data`, the value of `slot` of `object` in the save being
    /// written: the bytes themselves, or — above the threshold — a reference to a new file
    /// holding them, written and flushed now.
    func column(for data: Data, object: NSManagedObjectID, slot: Int) throws -> Data {
        guard data.count > ExternalDataColumn.threshold else { return ExternalDataColumn.inline(data) }
        let key = ValueKey(object: ObjectIdentifier(object), slot: slot)
        if let written = columnsOfTry[key] { return written }
        let name = UUID().uuidString
        try createFolder()
        try AtomicFileWrite.create(url.appendingPathComponent(name), with: data)
        createdByTry.append(name)
        let column = ExternalDataColumn.reference(to: name)
        columnsOfTry[key] = column
        return column
    }

    /// Creates `.<Name>_SUPPORT/_EXTERNAL_DATA` when it is not there, and flushes the folders
    /// that gained an entry, so that after a power loss the path to the files is there too.
    private func createFolder() throws {
        guard !FileManager.default.fileExists(atPath: url.path) else { return }
        let support = url.deletingLastPathComponent()
        let supportExisted = FileManager.default.fileExists(atPath: support.path)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        AtomicFileWrite.flushDirectory(support)
        if !supportExisted { AtomicFileWrite.flushDirectory(support.deletingLastPathComponent()) }
    }

    /// Notes that the save being written no longer refers to what `column` (a value it
    /// overwrites or deletes) refers to: the file goes once the save is final.
    func release(_ column: Data) {
        if let name = ExternalDataColumn.referencedName(in: column) { releasedByTry.insert(name) }
    }

    /// Before the save being written commits: flushes the folder, so that the files it created
    /// are there after a power loss if the rows referring to them are.
    func flushCreatedFiles() {
        if !createdByTry.isEmpty { AtomicFileWrite.flushDirectory(url) }
    }

    /// The save being written became final (`held`: final within a held save, whose end decides).
    /// What it gave up goes once no read that began before it is going (`RetiredExternalFiles`).
    func commitTry(held: Bool) {
        if held {
            createdByHold += createdByTry
            releasedByHold.formUnion(releasedByTry)
        } else {
            retireAfterDurableCommit(releasedByTry)
        }
        forgetTry()
    }

    /// Hands files a commit gave up to `retired`, once the commit is on disk: the store commits
    /// with `synchronous=NORMAL`, under which a power loss can take back the last commits, and a
    /// commit taken back would name files already deleted. Flushing the `-wal` file, which holds
    /// the commit, costs one flush per save that gives files up.
    private func retireAfterDurableCommit<Names: Collection<String>>(_ names: Names) {
        guard !names.isEmpty else { return }
        let log = open(store.path + "-wal", O_RDONLY | O_CLOEXEC)
        if log >= 0 {
            let flushed = fsync(log) == 0
            close(log)
            // Not flushed: the files stay, as orphans rather than as files a row may still name.
            guard flushed else { return }
        }
        // (No `-wal`: not in WAL mode, where a commit is flushed before it completes.)
        retired.retire(paths(of: names))
    }

    /// The save being written was thrown away: the files it created go.
    func undoTry() {
        remove(createdByTry)
        forgetTry()
    }

    /// A held save ended: what its tries gave up goes (`committing`), or what they created.
    func endHold(committing: Bool) {
        if committing { retireAfterDurableCommit(releasedByHold) } else { remove(createdByHold) }
        createdByHold = []
        releasedByHold = []
    }

    private func forgetTry() {
        createdByTry = []
        releasedByTry = []
        columnsOfTry = [:]
    }

    /// Deletes the files `names`; a file already gone is no error, and a file that can't be
    /// deleted is only left behind (no row refers to it).
    private func remove<Names: Sequence<String>>(_ names: Names) {
        for path in paths(of: names) { unlink(path) }
    }

    private func paths<Names: Sequence<String>>(of names: Names) -> [String] {
        names.map(path(of:))
    }

    // MARK: Files of the folder

    /// The size of the file `name`; nil when it can't be found.
    func size(ofFile name: String) -> Int? {
        var status = stat()
        guard stat(path(of: name), &status) == 0 else { return nil }
        return Int(status.st_size)
    }

    /// Whether the file `name` holds exactly `data` (a file that can't be read holds nothing).
    func file(_ name: String, holds data: Data) -> Bool {
        (try? Data(contentsOf: URL(fileURLWithPath: path(of: name), isDirectory: false), options: .alwaysMapped)) == data
    }

    /// The names of the files in the folder.
    func fileNames() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
    }
}
