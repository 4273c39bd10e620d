import Foundation
import OpenCoreData

/// The crash test's binary values: a seed, then bytes that follow from it, so that a value read
/// back can be checked whole without knowing what was written. Sizes vary around the 128 KiB
/// above which the SQLite store keeps a value in a file of its own.
enum Receipt {
    static let sizes = [64, 1_000, 131_072, 131_073, 150_000, 300_000]

    static func attribute(_ name: String) -> NSAttributeDescription {
        let attribute = NSAttributeDescription(name: name, type: .binaryDataAttributeType)
        attribute.allowsExternalBinaryDataStorage = true
        return attribute
    }

    /// A value of a size chosen by `random`.
    static func make(_ random: inout SplitMix) -> Data {
        let seed = random.next()
        let size = sizes[Int(random.next() % UInt64(sizes.count))]
        var data = Data(capacity: size)
        withUnsafeBytes(of: seed.littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: (8..<size).map { byte(seed, $0) })
        return data
    }

    /// Whether `data` is a whole value made by `make`.
    static func isIntact(_ data: Data) -> Bool {
        guard data.count >= 8, sizes.contains(data.count) else { return false }
        let seed = data.prefix(8).withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        return data.dropFirst(8).enumerated().allSatisfy { $0.element == byte(seed, $0.offset + 8) }
    }

    private static func byte(_ seed: UInt64, _ index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: (seed >> UInt64(index % 57)) &+ UInt64(index) &* 31)
    }
}
