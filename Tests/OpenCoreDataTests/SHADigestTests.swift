import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// SHA-256 and SHA-512 against the FIPS 180-2 / NIST example vectors.
@Suite struct SHADigestTests {
    static let message448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
    static let message896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (message448, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (message896, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        // 63 and 64 bytes: the padding's 0x80 fills a block, or starts a new one, before the length.
        (String(repeating: "a", count: 63), "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    ])
    func sha256(message: String, expected: String) {
        #expect(hex(SHA256.hash(Data(message.utf8))) == expected)
    }

    @Test(arguments: [
        ("", "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        ("abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        (message448, "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"),
        (message896, "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
    ])
    func sha512(message: String, expected: String) {
        #expect(hex(SHA512.hash(Data(message.utf8))) == expected)
    }

    @Test func oneMillionA() {
        let message = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(hex(SHA256.hash(message)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(hex(SHA512.hash(message))
            == "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b")
    }

    /// Chunks of every size from 1 to 200 bytes, so that updates start and end at every offset
    /// within a block and cross block boundaries, give the one-shot digest.
    @Test func incrementalUpdatesAcrossBlockBoundaries() {
        let message = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        let expected256 = SHA256.hash(message)
        let expected512 = SHA512.hash(message)
        for chunkSize in [1, 3, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129, 200] {
            var sha256 = SHA256()
            var sha512 = SHA512()
            var start = 0
            while start < message.count {
                let chunk = message[start..<min(start + chunkSize, message.count)]
                sha256.update(chunk)
                sha512.update(chunk)
                start += chunkSize
            }
            #expect(Data(sha256.finalize()) == expected256, "chunks of \(chunkSize)")
            #expect(Data(sha512.finalize()) == expected512, "chunks of \(chunkSize)")
        }
        // The 1,000,000 'a' vector again, fed in uneven pieces.
        var sha256 = SHA256()
        var remaining = 1_000_000
        var size = 1
        while remaining > 0 {
            let count = min(size, remaining)
            sha256.update([UInt8](repeating: UInt8(ascii: "a"), count: count))
            remaining -= count
            size = size % 997 + 7
        }
        #expect(hex(Data(sha256.finalize())) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Messages whose padding needs one extra block, and those just short of it.
    @Test func paddingEdges() {
        // Lengths 55/56 (SHA-256) and 111/112 (SHA-512) straddle the length field.
        #expect(hex(SHA256.hash(Data(repeating: 0x61, count: 55))) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(hex(SHA256.hash(Data(repeating: 0x61, count: 56))) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(hex(SHA512.hash(Data(repeating: 0x61, count: 111)))
            == "fa9121c7b32b9e01733d034cfc78cbf67f926c7ed83e82200ef86818196921760b4beff48404df811b953828274461673c68d04e297b0eb7b2b4d60fc6b566a2")
        #expect(hex(SHA512.hash(Data(repeating: 0x61, count: 112)))
            == "c01d080efd492776a1c43bd23dd99d0a2e626d481e16782e75d54c2503b5dc32bd05f0f1ba33e568b88fd2d970929b719ecbb152f58f130a407c8830604b70ca")
    }

    private func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
}
