import Foundation

/// SHA-512 (FIPS 180-4), in plain Swift, for `NSStoreModelVersionHashesDigest`.
///
/// ```swift
/// var hasher = SHA512()
/// hasher.update(Array("abc".utf8))
/// let digest = hasher.finalize()          // 64 bytes
/// let same = SHA512.hash(Data("abc".utf8))
/// ```
/// Correct for any length, but not tuned for bulk data (see `SHA256`).
struct SHA512 {
    /// The length of a digest in bytes.
    static let digestByteCount = 64
    private static let blockByteCount = 128

    private var state: [UInt64] = [
        0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
        0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
    ]
    /// Bytes received but not yet compressed: always fewer than one block.
    private var pending: [UInt8] = []
    /// How many bytes have been received in all (messages of 2^64 bytes or more are not supported).
    private var messageByteCount: UInt64 = 0

    init() {
        pending.reserveCapacity(Self.blockByteCount)
    }

    /// The digest of `data` in one call.
    static func hash(_ data: some DataProtocol) -> Data {
        var hasher = SHA512()
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

    /// Pads the message, and returns its 64-byte digest. The hasher is spent afterwards.
    mutating func finalize() -> [UInt8] {
        let bitCount = messageByteCount &* 8
        var padding: [UInt8] = [0x80]
        // Pad to 112 bytes past a block boundary, leaving room for the 16-byte length, whose
        // upper 8 bytes are zero here.
        let used = (pending.count + 1) % Self.blockByteCount
        let zeros = used <= 112 ? 112 - used : 112 + Self.blockByteCount - used
        padding += [UInt8](repeating: 0, count: zeros + 8)
        for shift in stride(from: 56, through: 0, by: -8) { padding.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift))) }
        let savedCount = messageByteCount
        padding.withUnsafeBytes { update(bytes: $0) }
        messageByteCount = savedCount
        precondition(pending.isEmpty, "SHA-512 padding must end on a block boundary")
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestByteCount)
        for word in state {
            for shift in stride(from: 56, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return digest
    }

    private mutating func compress(block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 80) { w in
            for t in 0..<16 {
                var word: UInt64 = 0
                for i in 0..<8 { word = word << 8 | UInt64(block[8 * t + i]) }
                w[t] = word
            }
            for t in 16..<80 {
                let s0 = w[t - 15].rotatedRight(1) ^ w[t - 15].rotatedRight(8) ^ (w[t - 15] >> 7)
                let s1 = w[t - 2].rotatedRight(19) ^ w[t - 2].rotatedRight(61) ^ (w[t - 2] >> 6)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var a = state[0], b = state[1], c = state[2], d = state[3]
            var e = state[4], f = state[5], g = state[6], h = state[7]
            for t in 0..<80 {
                let sigma1 = e.rotatedRight(14) ^ e.rotatedRight(18) ^ e.rotatedRight(41)
                let choice = (e & f) ^ (~e & g)
                let temp1 = h &+ sigma1 &+ choice &+ Self.roundConstants[t] &+ w[t]
                let sigma0 = a.rotatedRight(28) ^ a.rotatedRight(34) ^ a.rotatedRight(39)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temp2 = sigma0 &+ majority
                h = g; g = f; f = e; e = d &+ temp1
                d = c; c = b; b = a; a = temp1 &+ temp2
            }
            state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
            state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
        }
    }

    /// The first 64 bits of the fractional parts of the cube roots of the first 80 primes.
    private static let roundConstants: [UInt64] = [
        0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
        0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
        0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
        0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
        0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
        0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
        0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
        0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
        0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
        0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
        0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
        0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
        0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
        0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
        0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
        0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
        0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
        0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
        0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
        0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
    ]
}

fileprivate extension UInt64 {
    @inline(__always) func rotatedRight(_ count: UInt64) -> UInt64 { (self >> count) | (self << (64 - count)) }
}
