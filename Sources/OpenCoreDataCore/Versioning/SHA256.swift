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
/// Used for Core Data's version hashes: short inputs, many of them whenever a model is loaded,
/// compared or written into store metadata. So the hasher allocates nothing: its state and the
/// block it is filling are stored inline, and only the digest is a new value.
struct SHA256 {
    /// The length of a digest in bytes.
    static let digestByteCount = 32
    private static let blockByteCount = 64

    private var state = State()
    /// Bytes received but not yet compressed: the first `pendingCount` bytes of `pending`.
    private var pending = Block()
    private var pendingCount = 0
    /// How many bytes have been received in all.
    private var messageByteCount: UInt64 = 0

    init() {}

    /// The digest of `data` in one call.
    static func hash(_ data: some DataProtocol) -> Data {
        var hasher = SHA256()
        hasher.update(data)
        var digest = Data(count: digestByteCount)
        digest.withUnsafeMutableBytes { hasher.finish(into: $0) }
        return digest
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
        if pendingCount > 0 {
            let taken = min(Self.blockByteCount - pendingCount, remaining.count)
            appendToPending(UnsafeRawBufferPointer(rebasing: remaining.prefix(taken)))
            remaining = remaining.dropFirst(taken)
            guard pendingCount == Self.blockByteCount else { return }
            compressPending()
        }
        while remaining.count >= Self.blockByteCount {
            state.compress(block: UnsafeRawBufferPointer(rebasing: remaining.prefix(Self.blockByteCount)))
            remaining = remaining.dropFirst(Self.blockByteCount)
        }
        appendToPending(UnsafeRawBufferPointer(rebasing: remaining))
    }

    private mutating func appendToPending(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let offset = pendingCount
        withUnsafeMutableBytes(of: &pending) { block in
            UnsafeMutableRawBufferPointer(rebasing: block[offset..<offset + bytes.count]).copyMemory(from: bytes)
        }
        pendingCount += bytes.count
    }

    private mutating func compressPending() {
        withUnsafeBytes(of: pending) { state.compress(block: $0) }
        pendingCount = 0
    }

    /// Pads the message, and returns its 32-byte digest. The hasher is spent afterwards.
    mutating func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Self.digestByteCount) { buffer, count in
            finish(into: UnsafeMutableRawBufferPointer(buffer))
            count = Self.digestByteCount
        }
    }

    /// Pads the message (0x80, zeros, then the length in bits as a big-endian 64-bit integer,
    /// ending on a block boundary) and writes the digest into the first 32 bytes of `digest`.
    private mutating func finish(into digest: UnsafeMutableRawBufferPointer) {
        let bitCount = messageByteCount &* 8
        let lengthOffset = Self.blockByteCount - 8
        var used = pendingCount
        withUnsafeMutableBytes(of: &pending) { block in
            block[used] = 0x80
            used += 1
            if used > lengthOffset {
                for index in used..<Self.blockByteCount { block[index] = 0 }
                state.compress(block: UnsafeRawBufferPointer(block))
                used = 0
            }
            for index in used..<lengthOffset { block[index] = 0 }
            block.storeBytes(of: bitCount.bigEndian, toByteOffset: lengthOffset, as: UInt64.self)
            state.compress(block: UnsafeRawBufferPointer(block))
        }
        pendingCount = 0
        state.write(into: digest)
    }

    /// One 64-byte block, stored inline.
    private struct Block {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    }

    /// The eight working words, and the compression function that advances them by one block.
    private struct State {
        var a: UInt32 = 0x6a09e667, b: UInt32 = 0xbb67ae85, c: UInt32 = 0x3c6ef372, d: UInt32 = 0xa54ff53a
        var e: UInt32 = 0x510e527f, f: UInt32 = 0x9b05688c, g: UInt32 = 0x1f83d9ab, h: UInt32 = 0x5be0cd19

        mutating func compress(block: UnsafeRawBufferPointer) {
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                for t in 0..<16 {
                    w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self))
                }
                for t in 16..<64 {
                    let s0 = w[t - 15].rotatedRight(7) ^ w[t - 15].rotatedRight(18) ^ (w[t - 15] >> 3)
                    let s1 = w[t - 2].rotatedRight(17) ^ w[t - 2].rotatedRight(19) ^ (w[t - 2] >> 10)
                    w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                }
                SHA256.roundConstants.withUnsafeBufferPointer { k in
                    var a = self.a, b = self.b, c = self.c, d = self.d
                    var e = self.e, f = self.f, g = self.g, h = self.h
                    for t in 0..<64 {
                        let sigma1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                        let choice = (e & f) ^ (~e & g)
                        let temp1 = h &+ sigma1 &+ choice &+ k[t] &+ w[t]
                        let sigma0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let temp2 = sigma0 &+ majority
                        h = g; g = f; f = e; e = d &+ temp1
                        d = c; c = b; b = a; a = temp1 &+ temp2
                    }
                    self.a &+= a; self.b &+= b; self.c &+= c; self.d &+= d
                    self.e &+= e; self.f &+= f; self.g &+= g; self.h &+= h
                }
            }
        }

        /// The digest: the eight words, big-endian.
        func write(into digest: UnsafeMutableRawBufferPointer) {
            digest.storeBytes(of: a.bigEndian, toByteOffset: 0, as: UInt32.self)
            digest.storeBytes(of: b.bigEndian, toByteOffset: 4, as: UInt32.self)
            digest.storeBytes(of: c.bigEndian, toByteOffset: 8, as: UInt32.self)
            digest.storeBytes(of: d.bigEndian, toByteOffset: 12, as: UInt32.self)
            digest.storeBytes(of: e.bigEndian, toByteOffset: 16, as: UInt32.self)
            digest.storeBytes(of: f.bigEndian, toByteOffset: 20, as: UInt32.self)
            digest.storeBytes(of: g.bigEndian, toByteOffset: 24, as: UInt32.self)
            digest.storeBytes(of: h.bigEndian, toByteOffset: 28, as: UInt32.self)
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
