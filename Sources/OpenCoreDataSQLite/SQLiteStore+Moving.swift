import Foundation
import OpenCoreDataCore

extension SQLiteStore {
    /// An open SQLite store does not follow a new URL (`NSPersistentStoreCoordinator.setURL(_:for:)`):
    /// its readers run beside its writer without the store's lock, so its connection, schema and
    /// readers cannot be swapped under them.
    var movesWithItsURL: Bool { false }
}
