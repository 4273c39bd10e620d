import Foundation
import OCDPostgres
import OCDSQL
import OpenCoreDataCore

/// The PostgreSQL store's metadata, as a Core Data SQLite store keeps it: one row of
/// `Z_METADATA` with the store's UUID in `Z_UUID` and every other key in a binary property list
/// in `Z_PLIST`.
enum PostgresMetadataTable {
    /// The metadata, with `NSStoreUUID` from `Z_UUID`. Throws 134000 naming the database when it
    /// is not a store or its property list cannot be read.
    static func read(from connection: PostgresConnection, place: String, url: URL?) throws -> [String: Any] {
        guard try connection.tableExists("Z_METADATA") else {
            throw CoreDataError.store(.persistentStoreInvalidType, "The \(place) is not an OpenCoreData store: it has no Z_METADATA table", url: url)
        }
        let result = try connection.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
        guard result.rowCount > 0, let data = result.data(0, 1), !data.isEmpty else {
            throw CoreDataError.store(.persistentStoreInvalidType, "The store in \(place) has no metadata row in Z_METADATA", url: url)
        }
        let plist: Any
        do {
            plist = try PropertyListValue.read(data).foundationValue
        } catch {
            throw CoreDataError.store(.persistentStoreInvalidType,
                                      "The store in \(place) has metadata (Z_METADATA.Z_PLIST) that is not a property list",
                                      url: url, underlying: error)
        }
        guard var metadata = plist as? [String: Any] else {
            throw CoreDataError.store(.persistentStoreInvalidType,
                                      "The store in \(place) has metadata (Z_METADATA.Z_PLIST) that is not a dictionary", url: url)
        }
        if let uuid = result.string(0, 0), !uuid.isEmpty { metadata[NSStoreUUIDKey] = uuid }
        metadata[NSStoreTypeKey] = metadata[NSStoreTypeKey] ?? OCDPostgreSQLStoreType
        return metadata
    }

    /// Replaces the metadata row. Throws 134030 when a value cannot be put in a property list.
    static func write(_ metadata: [String: Any], uuid: String, on connection: PostgresConnection, place: String, url: URL?) throws {
        var plist = metadata
        let storeUUID = (plist.removeValue(forKey: NSStoreUUIDKey) as? String) ?? uuid
        let data: Data
        do {
            data = BinaryPropertyListWriter.write(try PropertyListValue(propertyListObject: plist))
        } catch {
            throw CoreDataError.store(.persistentStoreSave,
                                      "The metadata for the store in \(place) cannot be saved: it holds values a property list cannot hold (\(error))",
                                      url: url, underlying: error)
        }
        try connection.run("""
            INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)
            ON CONFLICT (Z_VERSION) DO UPDATE SET Z_UUID = EXCLUDED.Z_UUID, Z_PLIST = EXCLUDED.Z_PLIST
            """, [.text(storeUUID), .blob(data)])
    }
}
