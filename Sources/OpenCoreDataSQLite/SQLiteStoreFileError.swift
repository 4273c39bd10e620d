import CSQLite
import Foundation
import OCDSQLite
import OpenCoreDataCore

/// The errors that say what is wrong with a SQLite store file, each naming the file: found by
/// looking at the file (permissions, size, header) rather than trusting SQLite's first message,
/// which says "unable to open database file" for a permission problem and "file is not a
/// database" for an empty one alike.
///
/// Codes: 257 (`NSFileReadNoPermissionError`) for a file that cannot be read, 134000 for an empty
/// file or one that is not a SQLite database, 259 (`NSFileReadCorruptFileError`) for a damaged
/// SQLite database, 134080 for a SQLite database that cannot be opened for another reason, and
/// 134180 (`NSSQLiteError`) for any other SQLite failure of an open store.
enum SQLiteStoreFileError {
    /// Why the existing file at `url` could not be opened as a SQLite database; `underlying` is
    /// what SQLite said.
    static func unopenable(_ url: URL, underlying: Error) -> CocoaError {
        let path = url.path
        if !FileManager.default.isReadableFile(atPath: path) {
            return CoreDataError.store(.fileReadNoPermission, "The store file \(path) cannot be read: permission denied",
                                       url: url, underlying: underlying)
        }
        if let empty = emptyFile(url) { return empty }
        if !hasSQLiteHeader(path) {
            return CoreDataError.store(.persistentStoreInvalidType,
                                       "The file \(path) is not a SQLite database (it does not begin with SQLite's header)", url: url)
        }
        if let sqlite = underlying as? SQLiteError, isDamage(sqlite) {
            return damaged(url, sqlite)
        }
        // A readable SQLite database that SQLite could not open now (locked, say): not a
        // reason to think it is no store, which apps answer by deleting it.
        return CoreDataError.store(.persistentStoreOpen, "The store file \(path) could not be opened",
                                   url: url, underlying: underlying)
    }

    /// The error for a 0-byte file read as a store, or nil when the file is not empty (or its
    /// `-wal` holds pages, which SQLite reads as the database).
    static func emptyFile(_ url: URL) -> CocoaError? {
        func size(_ path: String) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)??.intValue
        }
        guard size(url.path) == 0, (size(url.path + "-wal") ?? 0) == 0 else { return nil }
        return CoreDataError.store(.persistentStoreInvalidType,
                                   "The file \(url.path) is empty (0 bytes): it holds no Core Data store", url: url)
    }

    /// A SQLite error met while reading or writing the open store at `url`.
    static func failure(_ error: SQLiteError, url: URL?) -> CocoaError {
        if isDamage(error) { return damaged(url, error) }
        return CoreDataError.store(.sqlite, "SQLite failed on the store \(url?.path ?? "?")", url: url, underlying: error)
    }

    /// Whether SQLite says the database itself is damaged (truncated, overwritten, not a database
    /// past its header).
    static func isDamage(_ error: SQLiteError) -> Bool {
        error.primaryCode == SQLITE_CORRUPT || error.primaryCode == SQLITE_NOTADB
    }

    private static func damaged(_ url: URL?, _ error: SQLiteError) -> CocoaError {
        CoreDataError.store(.fileReadCorruptFile, "The store file \(url?.path ?? "?") is a damaged SQLite database", url: url, underlying: error)
    }

    /// Whether the file at `path` begins with SQLite's 16-byte header.
    static func hasSQLiteHeader(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
    }
}
