import Foundation
import OpenCoreDataCore

/// How Core Data's SQLite store writes the column of a binary-data attribute that allows
/// external storage (`allowsExternalBinaryDataStorage`): every value starts with a marker byte.
///
/// - `0x01` then the bytes: the value is kept in the row (inline).
/// - `0x02` then the file name (a UUID string), then a NUL byte: the value is the file of that
///   name in the store's `.<Name>_SUPPORT/_EXTERNAL_DATA/` folder.
/// - `0x03`: a file-backed future (`NSFileBackedFuture`, CloudKit assets), which OpenCoreData
///   does not read.
///
/// Values larger than `threshold` bytes go to a file. The layout and the threshold (128 KiB,
/// `0x20000`, compared with `>`) are those of Core Data's own reader and writer; where they
/// come from is told in Docs/ExternalBinaryData.md.
enum ExternalDataColumn {
    /// Values of more bytes than this are kept in a file.
    static let threshold = 0x20000

    static let inlineMarker: UInt8 = 0x01
    static let referenceMarker: UInt8 = 0x02
    static let fileBackedFutureMarker: UInt8 = 0x03

    /// What a column holds.
    enum Content: Equatable {
        /// The value itself.
        case inline(Data)
        /// The name of the file that holds the value.
        case reference(String)
    }

    /// Why a column could not be read.
    enum Problem: Error, Equatable {
        case fileBackedFuture
        case unknownMarker(UInt8)
        case badFileName
    }

    /// The column bytes of a value kept in the row.
    static func inline(_ data: Data) -> Data {
        var column = Data(capacity: data.count + 1)
        column.append(inlineMarker)
        column.append(data)
        return column
    }

    /// The column bytes of a value kept in the file `name`.
    static func reference(to name: String) -> Data {
        var column = Data([referenceMarker])
        column.append(contentsOf: Array(name.utf8))
        column.append(0)
        return column
    }

    /// What the column bytes `column` hold. An empty column is an empty value (no writer makes
    /// one; it is read as what it most plausibly is).
    static func content(of column: Data) throws(Problem) -> Content {
        guard let marker = column.first else { return .inline(Data()) }
        let rest = column.dropFirst()
        switch marker {
        case inlineMarker:
            // A copy starting at index 0: a slice's indices would start at 1.
            return .inline(Data(rest))
        case referenceMarker:
            guard let name = fileName(in: column) else { throw .badFileName }
            return .reference(name)
        case fileBackedFutureMarker:
            throw .fileBackedFuture
        default:
            throw .unknownMarker(marker)
        }
    }

    /// The file name a column refers to, if it refers to one (anything else: nil).
    static func referencedName(in column: Data) -> String? {
        if case .reference(let name)? = try? content(of: column) { return name }
        return nil
    }

    /// The file name after a reference marker, up to the NUL: nil unless it stays inside the
    /// folder (not empty, no separator, not `.` or `..`) and is UTF-8. Read per row, so over
    /// the raw bytes, not byte by byte through `Data`.
    private static func fileName(in column: Data) -> String? {
        column.withUnsafeBytes { raw -> String? in
            let bytes = raw.bindMemory(to: UInt8.self).dropFirst()
            let name = UnsafeBufferPointer(rebasing: bytes.prefix { $0 != 0 })
            let dot = UInt8(ascii: "."), slash = UInt8(ascii: "/")
            guard !name.isEmpty, !name.contains(slash), name.count > 2 || name.contains(where: { $0 != dot }) else { return nil }
            return String(validating: name, as: UTF8.self)
        }
    }
}

extension NSAttributeDescription {
    /// Whether the SQLite store writes this attribute's values with `ExternalDataColumn`'s
    /// marker byte: a binary-data attribute that allows external storage (Core Data's reader
    /// applies it to binary data only; a transformable value stays in the row).
    var storesDataExternally: Bool { attributeType == .binaryDataAttributeType && allowsExternalBinaryDataStorage }
}
