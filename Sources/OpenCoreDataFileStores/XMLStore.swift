import Foundation
import OpenCoreDataCore

/// The XML store (`NSXMLStoreType`): an atomic store in the XML layout Apple's XML store writes on
/// macOS (`Docs/XMLStoreFormat.md`), readable by people and by other tools. The whole graph is
/// read when the store is added and written, atomically, on every save.
///
/// Differences from Apple: the layout follows public descriptions of Apple's files; details
/// they do not show (how UUIDs, URIs, binary data and transformable values are written, the
/// relationship `type` of to-manys with a minimum or maximum) are OpenCoreData's choices, listed
/// in `Docs/XMLStoreFormat.md`. Batch requests run (Core Data refuses them on every store but
/// SQLite).
final class XMLStore: NSAtomicStore, AtomicStoreFile, @unchecked Sendable {
    // @unchecked Sendable: as NSAtomicStore, every field is touched under `lock`.

    override var type: String { NSXMLStoreType }

    /// Object ids are unique across the file, whatever the entity.
    var sharesKeysAcrossEntities: Bool { true }

    static func readMetadata(at url: URL) throws -> [String: Any] {
        try XMLStoreReader(url: url).metadata()
    }

    func readGraph(at url: URL, model: NSManagedObjectModel, store: NSPersistentStore) throws -> StoredGraph {
        try XMLStoreReader(url: url).graph(model: model, store: store)
    }

    func writeGraph(_ graph: StoredGraph, metadata: [String: Any], to url: URL) throws {
        var writer = XMLStoreWriter(graph: graph, metadata: metadata, url: url)
        try AtomicFileWrite.replace(url, with: try writer.file())
    }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path,
                                                            NSLocalizedDescriptionKey: "There is no XML store at \(url.path)"])
        }
        return try readMetadata(at: url)
    }
}
