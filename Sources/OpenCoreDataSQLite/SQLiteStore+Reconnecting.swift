import Foundation
import OpenCoreDataCore

extension SQLiteStore {
    /// `NSPersistentStoreCoordinator.setURL(_:for:)`: closes the connection and opens the store
    /// at the new `url`, which must exist (Core Data creates none); when it cannot be opened, the
    /// store at `previous` is opened again and the error thrown.
    func reconnect(model: NSManagedObjectModel, entities: [NSEntityDescription], previous: URL?) throws {
        try lock.withLock {
            // Asked from a save's merge policy or notifications while that save holds the store.
            if writesHeld { throw heldWritesRefusal() }
            // Its data is a file of its own that closing deletes.
            guard nullDeviceFile == nil else {
                throw CoreDataError.store(.persistentStoreOpen, "A store opened at /dev/null cannot be moved", url: self.url)
            }
            guard let url, url.isFileURL, FileManager.default.fileExists(atPath: url.path) else {
                throw CoreDataError.store(.persistentStoreOpen, "There is no store at \(self.url?.path ?? "?") to move to", url: self.url)
            }
            unload()
            do {
                try load(model: model, entities: entities)
            } catch {
                self.url = previous
                try load(model: model, entities: entities)
                throw error
            }
        }
    }
}
