import Foundation

/// SHA-256 (FIPS 180-4), in plain Swift: Linux has no CryptoKit, and the package links nothing
/// but SQLite.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(Array("ab".utf8))
/// hasher.update(Array("c".utf8))
/// let digest = hasher.finalize()          // 32 bytes
/// let same = SHA256.hash(Data("abc".utf8))
/// ```
/// Used for Core Data's version hashes, whose inputs are short; it is correct for any length but
/// not tuned for bulk data.
struct SHA256 {
    /// The length of a digest in bytes.
    static let digestByteCount = 32
    private static let blockByteCount = 64

    private var state: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]
    /// Bytes received but not yet compressed: always fewer than one block.
    private var pending: [UInt8] = []
    /// How many bytes have been received in all.
    private var messageByteCount: UInt64 = 0

    init() {
        pending.reserveCapacity(Self.blockByteCount)
    }

    /// The digest of `data` in one call.
    static func hash(_ data: some DataProtocol) -> Data {
        var hasher = SHA256()
        hasher.update(data)
        return Data(hasher.finalize())
    }

    /// Adds `data` to the message.
    mutating func update(_ data: some DataProtocol) {
        for region in data.regions {
            region.withUnsafeBytes { update(bytes: $0) }
        }
    }

    private mutating func update(bytes: UnsafeRawBufferPointer) {
        messageByteCount &+= UInt64(bytes.count)
        var remaining = bytes[...]
        if !pending.isEmpty {
            let taken = min(Self.blockByteCount - pending.count, remaining.count)
            pending.append(contentsOf: remaining.prefix(taken))
            remaining = remaining.dropFirst(taken)
            guard pending.count == Self.blockByteCount else { return }
            pending.withUnsafeBytes { compress(block: $0) }
            pending.removeAll(keepingCapacity: true)
        }
        while remaining.count >= Self.blockByteCount {
            compress(block: UnsafeRawBufferPointer(rebasing: remaining.prefix(Self.blockByteCount)))
            remaining = remaining.dropFirst(Self.blockByteCount)
        }
        pending.append(contentsOf: remaining)
    }

    /// Pads the message, and returns its 32-byte digest. The hasher is spent afterwards.
    mutating func finalize() -> [UInt8] {
        let bitCount = messageByteCount &* 8
        var padding: [UInt8] = [0x80]
        // Pad to 56 bytes past a block boundary, leaving room for the 8-byte length.
        let used = (pending.count + 1) % Self.blockByteCount
        let zeros = used <= 56 ? 56 - used : 56 + Self.blockByteCount - used
        padding += [UInt8](repeating: 0, count: zeros)
        for shift in stride(from: 56, through: 0, by: -8) { padding.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift))) }
        let savedCount = messageByteCount
        padding.withUnsafeBytes { update(bytes: $0) }
        messageByteCount = savedCount
        precondition(pending.isEmpty, "SHA-256 padding must end on a block boundary")
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestByteCount)
        for word in state {
            digest += [UInt8(truncatingIfNeeded: word >> 24), UInt8(truncatingIfNeeded: word >> 16),
                       UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
        return digest
    }

    private mutating func compress(block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for t in 0..<16 {
                w[t] = UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16
                    | UInt32(block[4 * t + 2]) << 8 | UInt32(block[4 * t + 3])
            }
            for t in 16..<64 {
                let s0 = w[t - 15].rotatedRight(7) ^ w[t - 15].rotatedRight(18) ^ (w[t - 15] >> 3)
                let s1 = w[t - 2].rotatedRight(17) ^ w[t - 2].rotatedRight(19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var a = state[0], b = state[1], c = state[2], d = state[3]
            var e = state[4], f = state[5], g = state[6], h = state[7]
            for t in 0..<64 {
                let sigma1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                let choice = (e & f) ^ (~e & g)
                let temp1 = h &+ sigma1 &+ choice &+ Self.roundConstants[t] &+ w[t]
                let sigma0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temp2 = sigma0 &+ majority
                h = g; g = f; f = e; e = d &+ temp1
                d = c; c = b; b = a; a = temp1 &+ temp2
            }
            state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
            state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
        }
    }

    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}

fileprivate extension UInt32 {
    @inline(__always) func rotatedRight(_ count: UInt32) -> UInt32 { (self >> count) | (self << (32 - count)) }
}
