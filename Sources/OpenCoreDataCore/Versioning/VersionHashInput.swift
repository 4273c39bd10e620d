import Foundation

/// The bytes fed to SHA-256 for one version hash, in the layout of COREDATA-FORMAT.md §6:
/// strings as UTF-8 with no terminator or length, integers little-endian.
struct VersionHashInput {
    private(set) var bytes: [UInt8] = []

    mutating func append(_ string: String) { bytes.append(contentsOf: string.utf8) }
    mutating func append(byte: UInt8) { bytes.append(byte) }
    mutating func append(_ data: Data) { bytes.append(contentsOf: data) }

    /// `value` truncated to its low 32 bits, little-endian (so a "no limit" of -1 or `Int.max`
    /// gives ff ff ff ff, as Core Data's hashes do).
    mutating func append(uint32 value: Int) {
        let truncated = UInt32(truncatingIfNeeded: value)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: truncated >> UInt32(shift))) }
    }

    /// The SHA-256 of the bytes.
    var sha256: Data { SHA256.hash(bytes) }
}

/// The orders and digests that surround entity version hashes.
package enum VersionHashing {
    /// `names` in Core Data's order for hashes and digests: plain byte order of their UTF-8, which
    /// is not Swift's `String` order for every string, and not the case-insensitive order of
    /// entity numbers.
    package static func sortedByBytes(_ names: some Sequence<String>) -> [String] {
        names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// `NSStoreModelVersionChecksumKey` (and momc's `NSManagedObjectModel_VersionChecksums`):
    /// base64 of the SHA-256 of the entity hashes concatenated in name order, nothing between them.
    static func checksum(of hashes: [String: Data]) -> String {
        var sha = SHA256()
        for name in sortedByBytes(hashes.keys) { sha.update(hashes[name]!) }
        return Data(sha.finalize()).base64EncodedString()
    }

    /// `NSStoreModelVersionHashesDigest`: base64 of the SHA-512 of each entity name (UTF-8)
    /// followed by its hash, in name order.
    static func digest(of hashes: [String: Data]) -> String {
        var sha = SHA512()
        for name in sortedByBytes(hashes.keys) {
            sha.update(Array(name.utf8))
            sha.update(hashes[name]!)
        }
        return Data(sha.finalize()).base64EncodedString()
    }

    /// The entity hashes in store metadata (`NSStoreModelVersionHashes`) as `Data` values, or nil
    /// when the metadata has none, or something else under that key.
    package static func hashes(inMetadata metadata: [String: Any]) -> [String: Data]? {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return nil }
        var hashes: [String: Data] = [:]
        for (name, value) in stored {
            if let data = value as? Data {
                hashes[name] = data
            } else if let data = value as? NSData {
                hashes[name] = Data(referencing: data)
            } else {
                return nil
            }
        }
        return hashes
    }
}
