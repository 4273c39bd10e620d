import Foundation
import OpenCoreDataCore

extension SQLiteStore {
    /// `NSPersistentStoreCoordinator.setURL(_:for:)`: an open SQLite store is not moved (see
    /// there). Its readers run beside its writer without the store's lock, so its connection,
    /// schema and readers cannot be swapped under them.
    func reconnect(model: NSManagedObjectModel, entities: [NSEntityDescription], previous: URL?) throws {
        throw CoreDataError.store(.persistentStoreOperation,
                                  "The SQLite store \(previous?.path ?? "?") is not moved while it is open: remove it and add the store at the new URL",
                                  url: previous)
    }
}
