import Foundation

/// The constants of the binary store's file format (`Docs/BinaryStoreFormat.md`).
enum BinaryStoreFormat {
    /// "OCDBIN", then 0x1A and a line feed, which a text-mode transfer would change.
    static let magic: [UInt8] = Array("OCDBIN".utf8) + [0x1A, 0x0A]
    /// The format version this code writes and reads.
    static let version: UInt32 = 1
    /// Magic, version, metadata length (UInt32), body length (UInt64).
    static let headerSize = 8 + 4 + 4 + 8

    /// What kind of value follows, in one byte.
    enum Tag: UInt8 {
        case null = 0, integer, double, `false`, `true`, string, date, data, uuid, url, decimal, transformable
    }
}
