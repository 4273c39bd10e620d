import Foundation
import OCDSQLite
import OpenCoreDataCore

extension NSPersistentStoreCoordinator {
    /// A model read from a store file itself, and where it came from.
    public struct StoredModel {
        /// Where a stored model came from.
        public enum Source: String, Sendable {
            /// The copy of the model Core Data keeps in the store (`Z_MODELCACHE`, written since
            /// about iOS 6): complete, and good for reading and writing.
            case modelCache
            /// Inferred from the store's tables, for stores without a model cache: entities,
            /// attributes and to-one relationships only, names in lower case. Good for reading
            /// only; open the store with `NSReadOnlyPersistentStoreOption`.
            case inferredFromTables
        }

        /// The model.
        public let model: NSManagedObjectModel
        /// Where it came from.
        public let source: Source
    }

    /// The model a SQLite store keeps of itself (`Z_MODELCACHE`, which Core Data and
    /// OpenCoreData write whenever they create or migrate a store), read without the
    /// application's model; the file is opened read-only and left as it was.
    ///
    /// ```swift
    /// let model = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url)
    /// let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    /// ```
    ///
    /// Throws 260 when there is no file, the errors of adding a store for a file SQLite cannot
    /// open (259 for one that is not a database), 134000 naming the file when it keeps no model (a store
    /// older than the model cache: `storedModelForPersistentStore(ofType:at:)` infers one from
    /// its tables), and a `ModelFileError` when the cache cannot be decoded. Differences from
    /// Core Data: Apple documents no options; these are not read.
    public class func cachedModelForPersistentStore(at url: URL, options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectModel {
        let content: Data?
        do {
            content = try StoreModelCache.content(of: try SQLiteStoreFile.open(url, readOnly: true), url: url)
        } catch let error as SQLiteError {
            // A damaged, locked or unreadable file is said to be so, as when a store is added.
            throw SQLiteStoreFileError.unopenable(url, underlying: error)
        }
        guard let content else {
            throw CoreDataError.store(.persistentStoreInvalidType, "The store \(url.path) keeps no model (it has no Z_MODELCACHE)", url: url)
        }
        return try CompiledModel.model(fromModelCache: content, source: url)
    }

    /// The model of the store file at `url`, read from the store itself, so that a store can be
    /// opened and inspected without the application's model.
    ///
    /// ```swift
    /// let stored = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    /// let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stored.model)
    /// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
    ///                                    options: [NSReadOnlyPersistentStoreOption: true])
    /// ```
    /// An OpenCoreData extension: Core Data has no such call. The file is opened read-only and
    /// left as it was. Throws as `metadataForPersistentStore(ofType:at:options:)`, and a
    /// `ModelFileError` naming the store when its model cache cannot be decoded or its tables
    /// do not describe a model.
    public class func storedModelForPersistentStore(ofType storeType: String, at url: URL) throws -> StoredModel {
        guard storeType == NSSQLiteStoreType else {
            throw CoreDataError.store(.persistentStoreInvalidType,
                                      "Can't read the model of \(url.path) as a store of type '\(storeType)': only SQLite stores carry one", url: url)
        }
        return try SQLiteStoreFile.storedModel(at: url)
    }
}
