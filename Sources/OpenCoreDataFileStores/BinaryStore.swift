import Foundation
import OpenCoreDataCore

/// The binary store (`NSBinaryStoreType`): an atomic store in a compact, versioned file format of
/// OpenCoreData's own (`Docs/BinaryStoreFormat.md`). The whole graph is read when the store is
/// added and written, atomically, on every save.
///
/// Differences from Apple: Apple's binary store writes a keyed archive of its own, which this
/// store neither reads nor writes; batch requests run (Core Data refuses them on every store but
/// SQLite).
final class BinaryStore: NSAtomicStore, AtomicStoreFile, @unchecked Sendable {
    // @unchecked Sendable: as NSAtomicStore, every field is touched under `lock`.

    override var type: String { NSBinaryStoreType }

    static func readMetadata(at url: URL) throws -> [String: Any] {
        try BinaryStoreReader.metadata(at: url)
    }

    func readGraph(at url: URL, model: NSManagedObjectModel, store: NSPersistentStore) throws -> StoredGraph {
        try BinaryStoreReader(url: url, transformables: transformableDecoding).graph(model: model, store: store)
    }

    /// How the store's options say to decode transformable values (securely unless
    /// `NSBinaryStoreInsecureDecodingCompatibilityOption` says otherwise).
    private var transformableDecoding: BinaryStoreReader.TransformableDecoding {
        let insecure = options?[NSBinaryStoreInsecureDecodingCompatibilityOption]
        if (insecure as? Bool) ?? (insecure as? NSNumber)?.boolValue ?? false { return .insecure }
        return .secure(allowing: Self.classes(in: options?[NSBinaryStoreSecureDecodingClasses]))
    }

    /// The classes an option names: an array or a set of classes.
    private static func classes(in option: Any?) -> [AnyClass] {
        switch option {
        case let classes as [AnyClass]: classes
        case let set as NSSet: set.allObjects.compactMap { $0 as? AnyClass }
        case let values as [Any]: values.compactMap { $0 as? AnyClass }
        default: []
        }
    }

    func writeGraph(_ graph: StoredGraph, metadata: [String: Any], to url: URL) throws {
        guard let model = persistentStoreCoordinator?.managedObjectModel else {
            throw CoreDataError.store(.persistentStoreSave, "The binary store \(url.path) is saved without a coordinator", url: url)
        }
        let bytes = try BinaryStoreWriter.file(graph: graph, metadata: metadata, model: model)
        try bytes.withUnsafeBytes { try AtomicFileWrite.replace(url, with: $0) }
    }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path,
                                                            NSLocalizedDescriptionKey: "There is no binary store at \(url.path)"])
        }
        return try readMetadata(at: url)
    }

    /// Rewrites the file with new metadata and the same objects; Core Data's own keys (the
    /// version hashes and identifiers, the store's type and UUID) are kept when `metadata`
    /// leaves them out.
    override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        let reader = try BinaryStoreReader(url: url)
        let old = try reader.metadata()
        var new = metadata ?? [:]
        for key in StoreMetadataKey.modelKeys.union([NSStoreTypeKey, NSStoreUUIDKey]) where new[key] == nil { new[key] = old[key] }
        let bytes = try BinaryStoreWriter.file(body: try reader.body(), metadata: new)
        try bytes.withUnsafeBytes { try AtomicFileWrite.replace(url, with: $0) }
    }
}
