import Foundation

/// A built-in atomic store's file format (binary, XML): it reads and writes the stored graph
/// directly, without cache nodes. An `NSAtomicStore` subclass that conforms is read and written
/// through these methods; `cacheNodes()` still answers, with nodes made from its rows.
package protocol AtomicStoreFile: AnyObject {
    /// The metadata in the file at `url`, without reading its objects.
    static func readMetadata(at url: URL) throws -> [String: Any]

    /// Every object in the file, for `store` (which names them in object IDs) with `model`.
    func readGraph(at url: URL, model: NSManagedObjectModel, store: NSPersistentStore) throws -> StoredGraph

    /// Writes the whole graph and the metadata, atomically: a crash leaves the old file or the
    /// new one.
    func writeGraph(_ graph: StoredGraph, metadata: [String: Any], to url: URL) throws

    /// Whether a key is unique across every entity of the file, not only within its inheritance
    /// tree (the XML store's object ids).
    var sharesKeysAcrossEntities: Bool { get }
}

extension AtomicStoreFile {
    package var sharesKeysAcrossEntities: Bool { false }
}
