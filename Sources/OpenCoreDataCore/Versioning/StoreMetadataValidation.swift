import Foundation

/// Checks that a store's metadata is what Core Data writes: the version hashes of its entities
/// (`NSStoreModelVersionHashes`, entity name → data) and, where present, the other keys Core
/// Data writes with the types it writes them. A store whose metadata fails is refused when
/// opened, naming the key, rather than opened and saved to as if nothing were wrong: Core Data,
/// finding no hashes it can compare, refuses such a store as incompatible.
package enum StoreMetadataValidation {
    /// What is wrong with `metadata`, naming the key; nil when nothing is.
    package static func problem(in metadata: [String: Any]) -> String? {
        guard let hashes = metadata[NSStoreModelVersionHashesKey] else {
            return "it has no \(NSStoreModelVersionHashesKey)"
        }
        guard VersionHashing.hashes(inMetadata: metadata) != nil else {
            let kind = hashes is [String: Any] ? "a dictionary with values other than data" : describe(hashes)
            return "its \(NSStoreModelVersionHashesKey) is \(kind), not a dictionary of entity names to data"
        }
        for (key, expected) in expectedTypes.sorted(by: { $0.key < $1.key }) {
            guard let value = metadata[key], !expected.accepts(value) else { continue }
            return "its \(key) is \(describe(value)), not \(expected.name)"
        }
        return nil
    }

    /// The keys Core Data itself writes, which describe the model and the store rather than the
    /// application's data.
    static let coreDataKeys: Set<String> = [
        NSStoreTypeKey, NSStoreModelVersionHashesKey, NSStoreModelVersionIdentifiersKey, NSStoreModelVersionChecksumKey,
        StoreMetadataKey.versionHashesDigest, StoreMetadataKey.versionHashesVersion, StoreMetadataKey.frameworkVersion,
        StoreMetadataKey.autoVacuumLevel, StoreMetadataKey.modelFileVersions, StoreMetadataKey.modelFileVersion,
        NSPersistentStoreDeferredLightweightMigrationOptionKey, StoreMetadataKey.deferredMigrationTasks,
    ]

    /// `replacement`, with Core Data's own keys taken from `current` where `replacement` leaves
    /// them out: an application that sets metadata of its own keeps the store openable, as with
    /// Core Data, which writes the model's keys with every save.
    package static func keepingCoreDataKeys(of current: [String: Any], in replacement: [String: Any]) -> [String: Any] {
        var merged = replacement
        for key in coreDataKeys where merged[key] == nil {
            if let value = current[key] { merged[key] = value }
        }
        return merged
    }

    /// The type Core Data writes for a key.
    private struct Expected: Sendable {
        let name: String
        let accepts: @Sendable (Any) -> Bool
    }

    private static let string = Expected(name: "a string") { $0 is String }
    private static let number = Expected(name: "a number") { !isBoolean($0) && ($0 is Int || $0 is Double || $0 is NSNumber) }
    private static let array = Expected(name: "an array") { $0 is [Any] }

    private static let expectedTypes: [String: Expected] = [
        NSStoreTypeKey: string,
        NSStoreUUIDKey: string,
        NSStoreModelVersionIdentifiersKey: array,
        NSStoreModelVersionChecksumKey: string,
        StoreMetadataKey.versionHashesDigest: string,
        StoreMetadataKey.versionHashesVersion: number,
        StoreMetadataKey.frameworkVersion: number,
        StoreMetadataKey.autoVacuumLevel: string,
    ]

    /// Whether `value` is a Swift `Bool` (which `is NSNumber` also matches, by bridging).
    private static func isBoolean(_ value: Any) -> Bool { type(of: value) == Bool.self }

    /// A value's kind, as an error message names it.
    private static func describe(_ value: Any) -> String {
        if isBoolean(value) { return "a Boolean" }
        return switch value {
        case is String: "a string"
        case is NSNumber, is Int, is Double: "a number"
        case is Data: "data"
        case is Date: "a date"
        case is [Any]: "an array"
        case is [String: Any]: "a dictionary"
        default: "a \(type(of: value))"
        }
    }
}
