import Foundation

/// Writes a property list in Apple's binary format (`bplist00`), the form `NSKeyedArchiver`
/// archives take in a compiled model and in a store's model cache.
///
/// ```swift
/// let data = BinaryPropertyListWriter.write(.dictionary(["$top": …, "$objects": …]))
/// try BinaryPropertyList.read(data)   // the same value
/// ```
///
/// Why not Foundation's `PropertyListSerialization`: it cannot write a keyed archive's UIDs
/// (`CF$UID`) on Linux, and a keyed archive is made of them. The layout is the one
/// `BinaryPropertyList` reads (CoreFoundation's `CFBinaryPList.c` comments): objects tagged by a
/// marker byte, an offset table, a 32-byte trailer. Equal scalars (strings, numbers, data,
/// dates) are written once and shared, as CoreFoundation does; containers are written each time
/// they occur. Dictionary keys are written in sorted order, so the output is deterministic.
package enum BinaryPropertyListWriter {
    package static func write(_ value: PropertyListValue) -> Data {
        var flattener = Flattener()
        let top = flattener.add(value)
        return flattener.encode(top: top)
    }

    /// One object of the file before references are sized: a scalar's bytes, or a
    /// container's marker nibble and the indices of its members.
    private enum Entry {
        /// Bytes `start..<end` of the flattener's `scalarBytes`.
        case scalar(start: Int, end: Int)
        case container(marker: UInt8, references: [Int])
    }

    /// A scalar other than a string as it is written, for sharing equal ones: equal keys, equal
    /// bytes. Not `PropertyListValue`'s own `==`, under which `-0.0 == 0.0`: CoreFoundation
    /// compares bits. (Strings are shared by their UTF-8 bytes: `WrittenStrings`.)
    private enum ScalarKey: Hashable {
        case null
        case bool(Bool)
        case integer(Int64)
        case real(bits: UInt64)
        case date(bits: UInt64)
        case data(Data)
        case uid(Int)

        init(_ value: PropertyListValue) {
            switch value {
            case .null: self = .null
            case .bool(let flag): self = .bool(flag)
            case .integer(let number): self = .integer(number)
            case .real(let number): self = .real(bits: number.bitPattern)
            case .date(let date): self = .date(bits: date.timeIntervalSinceReferenceDate.bitPattern)
            case .data(let bytes): self = .data(bytes)
            case .uid(let index): self = .uid(index)
            case .string: preconditionFailure("strings are shared by their bytes (WrittenStrings)")
            case .array, .set, .dictionary: preconditionFailure("containers are not scalars")
            }
        }
    }

    /// The strings already written and their entries, found by their UTF-8 bytes. An open
    /// hash table with a hash of its own, read eight bytes at a time: with `Hasher` (SipHash),
    /// looking strings up was a fifth of archiving a model, whose objects repeat the same keys.
    private struct WrittenStrings {
        /// Entry index + 1 per slot (0: empty); the table's size is a power of two.
        private var slots = [Int](repeating: 0, count: 64)
        private var hashes = [UInt64](repeating: 0, count: 64)
        /// The strings, by entry index (`nil` for entries that are not strings).
        private var texts: [String?] = []
        private var count = 0

        /// The entry of a string with `text`'s bytes, or nil.
        func entry(of text: String, hash: UInt64) -> Int? {
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 {
                let entry = slots[slot] - 1
                if hashes[slot] == hash, let written = texts[entry], Self.sameBytes(written, text) { return entry }
                slot = (slot + 1) & mask
            }
            return nil
        }

        mutating func insert(_ text: String, hash: UInt64, entry: Int) {
            if (count + 1) * 4 > slots.count * 3 { grow() }
            if texts.count <= entry { texts += repeatElement(nil, count: entry + 1 - texts.count) }
            texts[entry] = text
            place(entry: entry, hash: hash)
            count += 1
        }

        private mutating func place(entry: Int, hash: UInt64) {
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry + 1
            hashes[slot] = hash
        }

        private mutating func grow() {
            let old = zip(slots, hashes).filter { $0.0 != 0 }
            slots = [Int](repeating: 0, count: slots.count * 2)
            hashes = [UInt64](repeating: 0, count: slots.count)
            for (slot, hash) in old { place(entry: slot - 1, hash: hash) }
        }

        /// A hash of `text`'s UTF-8 bytes (a multiply-and-mix over 8-byte words; not for
        /// anything an attacker chooses to collide, which a model archive is not).
        static func hash(of text: String) -> UInt64 {
            var text = text
            return text.withUTF8 { bytes in
                var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
                var offset = 0
                let raw = UnsafeRawBufferPointer(bytes)
                while offset + 8 <= bytes.count {
                    hash = mix(hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    offset += 8
                }
                if offset < bytes.count {
                    var tail: UInt64 = 0
                    for index in offset..<bytes.count { tail = tail << 8 | UInt64(bytes[index]) }
                    hash = mix(hash ^ tail)
                }
                return hash ^ (hash >> 29)
            }
        }

        private static func mix(_ value: UInt64) -> UInt64 {
            let product = value.multipliedFullWidth(by: 0xBF58_476D_1CE4_E5B9)
            return product.high ^ product.low
        }

        /// Whether two strings have the same UTF-8 bytes (Swift's `==` also joins canonically
        /// equivalent strings; the file keeps them apart, as CoreFoundation does).
        static func sameBytes(_ left: String, _ right: String) -> Bool {
            // Compared as contiguous bytes: the UTF-8 views' element-by-element comparison was
            // a fifth of a model cache's archiving.
            var (left, right) = (left, right)
            return left.withUTF8 { a in right.withUTF8 { b in a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0) } }
        }
    }

    private struct Flattener {
        var entries: [Entry] = []
        /// Every scalar's bytes, back to back, in the order the scalars were added.
        var scalarBytes: [UInt8] = []
        /// Index of each scalar already written, so equal scalars are shared: UIDs (dense, the
        /// most frequent in an archive) by their number, strings by their bytes, the rest (and
        /// UIDs too large for the table) by their key.
        var uidIndex: [Int] = []
        var strings = WrittenStrings()
        var scalarIndex: [ScalarKey: Int] = [:]

        mutating func add(_ value: PropertyListValue) -> Int {
            switch value {
            case .array(let elements):
                return container(marker: 0xA, elements.map { add($0) })
            case .set(let elements):
                return container(marker: 0xC, elements.map { add($0) })
            case .dictionary(let entries):
                let pairs = entries.sorted { $0.key < $1.key }
                var references: [Int] = []
                references.reserveCapacity(pairs.count * 2)
                for pair in pairs { references.append(addString(pair.key)) }
                for pair in pairs { references.append(add(pair.value)) }
                return container(marker: 0xD, references)
            case .string(let text):
                return addString(text)
            case .uid(let number) where number >= 0 && number < 1 << 24:
                if number < uidIndex.count, uidIndex[number] >= 0 { return uidIndex[number] }
                let index = addScalar(value)
                if number >= uidIndex.count { uidIndex += repeatElement(-1, count: number + 1 - uidIndex.count) }
                uidIndex[number] = index
                return index
            default:
                let key = ScalarKey(value)
                if let index = scalarIndex[key] { return index }
                let index = addScalar(value)
                scalarIndex[key] = index
                return index
            }
        }

        private mutating func addString(_ text: String) -> Int {
            let hash = WrittenStrings.hash(of: text)
            if let index = strings.entry(of: text, hash: hash) { return index }
            let index = addScalar(.string(text))
            strings.insert(text, hash: hash, entry: index)
            return index
        }

        /// Writes a scalar's bytes and makes it an entry.
        private mutating func addScalar(_ value: PropertyListValue) -> Int {
            let start = scalarBytes.count
            Self.appendBytes(ofScalar: value, to: &scalarBytes)
            entries.append(.scalar(start: start, end: scalarBytes.count))
            return entries.count - 1
        }

        private mutating func container(marker: UInt8, _ references: [Int]) -> Int {
            entries.append(.container(marker: marker, references: references))
            return entries.count - 1
        }

        /// The file: header, objects, offset table, trailer.
        func encode(top: Int) -> Data {
            let referenceSize = Self.byteCount(for: UInt64(entries.count))
            var output: [UInt8] = Array("bplist00".utf8)
            var offsets: [Int] = []
            offsets.reserveCapacity(entries.count)
            for entry in entries {
                offsets.append(output.count)
                switch entry {
                case .scalar(let start, let end):
                    output += scalarBytes[start..<end]
                case .container(let marker, let references):
                    // A dictionary's count is its number of pairs.
                    let count = marker == 0xD ? references.count / 2 : references.count
                    Self.appendHeader(marker: marker, count: count, to: &output)
                    for reference in references { Self.appendBigEndian(UInt64(reference), size: referenceSize, to: &output) }
                }
            }
            let offsetTableStart = output.count
            let offsetSize = Self.byteCount(for: UInt64(offsetTableStart))
            for offset in offsets { Self.appendBigEndian(UInt64(offset), size: offsetSize, to: &output) }
            output += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
            Self.appendBigEndian(UInt64(entries.count), size: 8, to: &output)
            Self.appendBigEndian(UInt64(top), size: 8, to: &output)
            Self.appendBigEndian(UInt64(offsetTableStart), size: 8, to: &output)
            return Data(output)
        }

        private static func appendBytes(ofScalar value: PropertyListValue, to out: inout [UInt8]) {
            switch value {
            case .null: out.append(0x00)
            case .bool(let flag): out.append(flag ? 0x09 : 0x08)
            case .integer(let number): appendInteger(number, to: &out)
            case .real(let number):
                out.append(0x23)
                appendBigEndian(number.bitPattern, size: 8, to: &out)
            case .date(let date):
                out.append(0x33)
                appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8, to: &out)
            case .data(let bytes):
                appendHeader(marker: 0x4, count: bytes.count, to: &out)
                out += bytes
            case .string(let text):
                var text = text
                let ascii = text.withUTF8 { bytes -> Bool in
                    guard bytes.allSatisfy({ $0 < 0x80 }) else { return false }
                    appendHeader(marker: 0x5, count: bytes.count, to: &out)
                    out.append(contentsOf: bytes)
                    return true
                }
                if !ascii {
                    let units = Array(text.utf16)
                    appendHeader(marker: 0x6, count: units.count, to: &out)
                    for unit in units { out += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
                }
            case .uid(let index):
                let size = byteCount(for: UInt64(index))
                out.append(0x80 | UInt8(size - 1))
                appendBigEndian(UInt64(index), size: size, to: &out)
            case .array, .set, .dictionary:
                preconditionFailure("containers are not scalars")
            }
        }

        /// A marker byte with `count` in its low nibble, or 15 and the count as an integer
        /// object after it.
        private static func appendHeader(marker: UInt8, count: Int, to out: inout [UInt8]) {
            if count < 15 {
                out.append(marker << 4 | UInt8(count))
                return
            }
            out.append(marker << 4 | 0x0F)
            appendInteger(Int64(count), to: &out)
        }

        /// Integers as CoreFoundation writes them: non-negative ones in 1, 2, 4 or 8 bytes,
        /// negative ones in 8 (the only signed size).
        private static func appendInteger(_ number: Int64, to out: inout [UInt8]) {
            let size: Int
            if number < 0 { size = 8 } else if number <= 0xFF { size = 1 } else if number <= 0xFFFF { size = 2 }
            else if number <= 0xFFFF_FFFF { size = 4 } else { size = 8 }
            out.append(0x10 | UInt8(size.trailingZeroBitCount))
            appendBigEndian(UInt64(bitPattern: number), size: size, to: &out)
        }

        private static func byteCount(for value: UInt64) -> Int {
            if value <= 0xFF { return 1 }
            if value <= 0xFFFF { return 2 }
            if value <= 0xFFFF_FFFF { return 4 }
            return 8
        }

        private static func appendBigEndian(_ value: UInt64, size: Int, to out: inout [UInt8]) {
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
    }
}
