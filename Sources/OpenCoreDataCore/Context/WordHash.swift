/// The hash of one machine word, for the identities that sets of objects and object IDs hash by
/// the hundred thousand (every save's notifications build such sets).
///
/// `Set` and `Dictionary` ask a `Hashable` type for `_rawHashValue(seed:)` and only fall back to
/// `hash(into:)` through a `Hasher` — SipHash, whose setup and finalisation cost more than the
/// rest of inserting an object into a set. A type whose identity is one word answers that request
/// with this mix instead: the word and the collection's seed through MurmurHash3's 64-bit
/// finaliser, which spreads every input bit over the whole result, so that the low bits a table
/// indexes by stay uniform for pointers (aligned) and sequential keys alike, and the per-table seed
/// keeps copying between tables of different sizes linear.
enum WordHash {
    @inline(__always)
    static func hash(_ word: UInt64, seed: Int) -> Int {
        var x = word ^ UInt64(bitPattern: Int64(seed))
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return Int(truncatingIfNeeded: x)
    }
}
