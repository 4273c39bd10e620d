import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// The pieces under compiled-model loading: raw DEFLATE, the binary property list reader, the
/// keyed-archive layout and Foundation's archived value classes.
@Suite struct KeyedArchiveTests {
    // MARK: Raw DEFLATE

    @Test func inflatesRawDeflate() throws {
        // zlib.compressobj(9, DEFLATED, -15) of "hello hello hello".
        let compressed = Data([203, 72, 205, 201, 201, 87, 200, 64, 144, 0])
        #expect(try RawDeflate.inflate(compressed) == Data("hello hello hello".utf8))
    }

    @Test func deflatesWhatInflatesBack() throws {
        var generator = SystemRandomNumberGenerator()
        let noise = Data((0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for input in [Data("hello hello hello".utf8), Data(repeating: 7, count: 1_000_000), noise, Data()] {
            let compressed = try RawDeflate.deflate(input)
            #expect(input.isEmpty || compressed != input)
            #expect(try RawDeflate.inflate(compressed) == input)
        }
        #expect(try RawDeflate.deflate(Data(repeating: 7, count: 1_000_000)).count < 2_000)
    }

    // MARK: Binary property lists, written

    @Test func writesBinaryPropertyListsTheReaderAndFoundationReadBack() throws {
        let value = PropertyListValue.dictionary([
            "ints": .array([.integer(0), .integer(255), .integer(256), .integer(65_536), .integer(Int64(UInt32.max) + 1), .integer(-1), .integer(Int64.min)]),
            "reals": .array([.real(0.25), .real(-1e300)]),
            "texts": .array([.string(""), .string("ascii"), .string("naïve – 日本"), .string(String(repeating: "x", count: 300))]),
            "data": .data(Data((0..<40).map(UInt8.init))),
            "date": .date(Date(timeIntervalSinceReferenceDate: 123.5)),
            "flags": .array([.bool(true), .bool(false)]),
            "uids": .array([.uid(0), .uid(200), .uid(70_000)]),
            "set": .set([.string("a")]),
            "many": .array((0..<20).map { .integer($0) }),
        ])
        let data = BinaryPropertyListWriter.write(value)
        #expect(try BinaryPropertyList.read(data) == value)
        // Foundation reads everything but the UIDs the same way.
        var plain = value
        if case .dictionary(var entries) = plain { entries["uids"] = nil; entries["set"] = nil; plain = .dictionary(entries) }
        let foundation = try #require(try PropertyListSerialization.propertyList(from: BinaryPropertyListWriter.write(plain), format: nil) as? [String: Any])
        #expect(foundation["texts"] as? [String] == ["", "ascii", "naïve – 日本", String(repeating: "x", count: 300)])
        #expect((foundation["ints"] as? [Any])?.compactMap { ($0 as? NSNumber)?.int64Value } == [0, 255, 256, 65_536, Int64(UInt32.max) + 1, -1, Int64.min])
        #expect(foundation["date"] as? Date == Date(timeIntervalSinceReferenceDate: 123.5))
    }

    @Test func equalScalarsAreWrittenOnceButCanonicallyEqualOnesAreKeptApart() throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed)   // Swift's equality joins them; the file must not.
        let shared = BinaryPropertyListWriter.write(.array([.string("x"), .string("x"), .real(1), .real(1), .integer(1), .bool(true)]))
        let kept = BinaryPropertyListWriter.write(.array([.string(composed), .string(decomposed), .real(0.0), .real(-0.0), .integer(1), .uid(1)]))
        // The trailer's object count (bytes 8..<16 from the end): the array and its distinct members.
        func objectCount(_ data: Data) -> Int { data.suffix(24).prefix(8).reduce(0) { $0 << 8 | Int($1) } }
        #expect(objectCount(shared) == 5)
        #expect(objectCount(kept) == 7)
        guard case .array(let read) = try BinaryPropertyList.read(kept) else { Issue.record("not an array"); return }
        guard case .string(let first) = read[0], case .string(let second) = read[1] else { Issue.record("not strings"); return }
        #expect(Array(first.unicodeScalars) != Array(second.unicodeScalars))
        guard case .real(let zero) = read[2], case .real(let negativeZero) = read[3] else { Issue.record("not reals"); return }
        #expect(zero.sign == .plus && negativeZero.sign == .minus)
    }

    @Test func archivesFoundationValuesTheDecoderReadsBack() throws {
        let values: [Any] = [
            "text", 42, -7, 2.5, true, Decimal(string: "-1234567890.0987654321")!, Decimal(0), Data([1, 2]),
            Date(timeIntervalSinceReferenceDate: 99), UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
            URL(string: "file:///tmp/a%20b")!, ["a", 1] as [Any],
        ]
        for value in values {
            var writer = KeyedArchiveWriter()
            let root = writer.reserve()
            writer.fill(root, classes: ["Holder", "NSObject"], fields: ["value": try writer.foundationValue(value)])
            let archive = try KeyedArchive(data: writer.archive(root: root))
            var decoder = FoundationValueDecoder()
            let decoded = try decoder.decode(try archive.rootObject().asObject().value(forKey: "value"))
            #expect(String(describing: decoded.map { $0 } ?? "nil") == String(describing: value), "\(value)")
        }
        var writer = KeyedArchiveWriter()
        let root = writer.reserve()
        writer.fill(root, classes: ["Holder", "NSObject"], fields: [
            "dictionary": try writer.foundationValue(["k": "v", "n": 1] as [String: Any]),
            "set": try writer.foundationValue(Set(["x", "y"])),
        ])
        let holder = try KeyedArchive(data: writer.archive(root: root)).rootObject().asObject()
        var decoder = FoundationValueDecoder()
        let dictionary = try #require(try decoder.decode(holder.value(forKey: "dictionary")) as? [AnyHashable: Any])
        #expect(dictionary["k"] as? String == "v" && dictionary["n"] as? Int == 1 && dictionary.count == 2)
        #expect(try decoder.decode(holder.value(forKey: "set")) as? Set<AnyHashable> == ["x", "y"])
        #expect(throws: KeyedArchiveEncodingError.self) { try writer.foundationValue(NSObject()) }
    }

    @Test func refusesWhatIsNotRawDeflate() {
        #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(Data()) }
        #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(Data(repeating: 0xFF, count: 16)) }
        // A zlib stream (with its 2-byte header) is not raw DEFLATE either.
        #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(Data([0x78, 0x9C, 0xCB, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])) }
    }

    @Test func refusesTruncatedDeflate() {
        let error = #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(Data([203, 72, 205, 201])) }
        #expect(error?.reason.contains("truncated") == true)
    }

    @Test func stopsAtTheOutputLimit() throws {
        // One stored (uncompressed) final block of 2,000 bytes.
        let length = 2_000
        let block = Data([0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)])
            + Data(repeating: 7, count: length)
        #expect(try RawDeflate.inflate(block).count == length)
        let error = #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(block, limit: 1_000) }
        #expect(error?.reason.contains("more than 1000 bytes") == true)
    }

    // MARK: Binary property lists

    @Test func readsEveryKindOfValue() throws {
        let value = PropertyListValue.dictionary([
            "string": .string("text"), "integer": .integer(-5), "real": .real(2.5), "bool": .bool(true),
            "data": .data(Data([1, 2, 3])), "date": .date(Date(timeIntervalSinceReferenceDate: 1_000)), "uid": .uid(7),
            "array": .array([.string("a"), .integer(1)]), "set": .set([.string("s")]),
            "long": .string(String(repeating: "x", count: 40)),
        ])
        #expect(try BinaryPropertyList.read(TestPropertyList.binary(value)) == value)
    }

    @Test func readsUTF16Strings() throws {
        // "é€" as a UTF-16 string object (marker 0x62), the only object.
        let bytes: [UInt8] = Array("bplist00".utf8) + [0x62, 0x00, 0xE9, 0x20, 0xAC] + [8]
            + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 13]
        #expect(try BinaryPropertyList.read(Data(bytes)) == .string("é€"))
    }

    @Test func refusesAnArrayThatContainsItself() {
        // Object 0 is an array whose only member is object 0.
        let bytes: [UInt8] = Array("bplist00".utf8) + [0xA1, 0x00] + [8]
            + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 10]
        let error = #expect(throws: PropertyListError.self) { try BinaryPropertyList.read(Data(bytes)) }
        #expect(error?.reason.contains("contains itself") == true)
    }

    @Test func refusesNestingTooDeep() {
        var value = PropertyListValue.string("bottom")
        for _ in 0..<(BinaryPropertyList.maximumDepth + 5) { value = .array([value]) }
        let error = #expect(throws: PropertyListError.self) { try BinaryPropertyList.read(TestPropertyList.binary(value)) }
        #expect(error?.reason.contains("levels deep") == true)
    }

    @Test func refusesReferencesAndOffsetsOutsideTheFile() {
        // An array of one member that refers to object 9 of a one-object list.
        var bytes: [UInt8] = Array("bplist00".utf8) + [0xA1, 0x09] + [8]
            + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 10]
        #expect(throws: PropertyListError.self) { try BinaryPropertyList.read(Data(bytes)) }
        // The same, with the object's offset pointing past the objects.
        bytes[10] = 0xF0
        #expect(throws: PropertyListError.self) { try BinaryPropertyList.read(Data(bytes)) }
        #expect(throws: PropertyListError.self) { try BinaryPropertyList.read(Data("bplist00".utf8)) }
        #expect(throws: PropertyListError.self) { try BinaryPropertyList.read(Data("bplist15".utf8) + Data(count: 40)) }
    }

    // MARK: Keyed archives written by Foundation

    /// Archives Foundation (swift-corelibs-foundation) writes: the same layout and keys as
    /// Apple's, produced independently of this reader.
    private func roundTrip(_ object: Any) throws -> Any? {
        let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
        var decoder = FoundationValueDecoder()
        return try decoder.decode(KeyedArchive(data: data).rootObject())
    }

    @Test func decodesFoundationsArchivesOfValues() throws {
        #expect(try roundTrip(NSString(string: "text")) as? String == "text")
        #expect(try roundTrip(NSMutableString(string: "mutable")) as? String == "mutable")
        #expect(try roundTrip(NSNumber(value: 42)) as? Int == 42)
        #expect(try roundTrip(NSNumber(value: 2.5)) as? Double == 2.5)
        #expect(try roundTrip(NSNumber(value: true)) as? Bool == true)
        #expect(try roundTrip(NSData(data: Data([1, 2, 3]))) as? Data == Data([1, 2, 3]))
        #expect(try roundTrip(NSDate(timeIntervalSinceReferenceDate: 1_000)) as? Date == Date(timeIntervalSinceReferenceDate: 1_000))
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(try roundTrip(NSUUID(uuidString: uuid.uuidString)!) as? UUID == uuid)
        let url = try #require(try roundTrip(NSURL(string: "rel/x?y=1", relativeTo: URL(string: "https://example.com/base/"))!) as? URL)
        #expect(url.absoluteString == "https://example.com/base/rel/x?y=1")
        #expect(try roundTrip(NSNull()) is NSNull)
    }

    @Test func decodesFoundationsArchivesOfCollections() throws {
        let array = try #require(try roundTrip(NSArray(array: [1, "two", NSNull()])) as? [Any])
        #expect(array.count == 3 && array[0] as? Int == 1 && array[1] as? String == "two" && array[2] is NSNull)
        #expect(try roundTrip(NSSet(array: ["x", "y"])) as? Set<AnyHashable> == ["x", "y"])
        let dictionary = try #require(try roundTrip(NSMutableDictionary(dictionary: ["k": 1, "list": NSArray(array: ["a"])])) as? [AnyHashable: Any])
        #expect(dictionary["k"] as? Int == 1)
        #expect(dictionary["list"] as? [String] == ["a"])
    }

    // MARK: Keyed archives in Apple's layout, written here

    private func decode(_ objects: [PropertyListValue]) throws -> Any? {
        var decoder = FoundationValueDecoder()
        return try decoder.decode(KeyedArchive(data: TestPropertyList.keyedArchive(objects: objects)).rootObject())
    }

    private static func classEntry(_ names: String...) -> PropertyListValue {
        .dictionary(["$classname": .string(names[0]), "$classes": .array(names.map { .string($0) })])
    }

    @Test func decodesDecimalNumbers() throws {
        // -123.45: mantissa 12345 (0x3039, little-endian), exponent -2, as Apple archives it.
        var mantissa = Data([0x39, 0x30])
        mantissa.append(Data(count: 14))
        let decimal = try decode([
            .string("$null"),
            .dictionary(["$class": .uid(2), "NS.exponent": .integer(-2), "NS.length": .integer(1), "NS.negative": .bool(true),
                         "NS.compact": .bool(true), "NS.mantissa.bo": .integer(1), "NS.mantissa": .data(mantissa)]),
            Self.classEntry("NSDecimalNumberPlaceholder", "NSDecimalNumber", "NSNumber", "NSValue", "NSObject"),
        ])
        #expect(decimal as? Decimal == Decimal(string: "-123.45"))
    }

    @Test func decodesKnownKeysDictionariesSkippingEmptySlots() throws {
        let token = "__empty_slot_token_4c24_98dc_ac1e_b773__"
        let dictionary = try decode([
            .string("$null"),
            .dictionary(["$class": .uid(2), "searchMapping": .uid(3), "values": .uid(6), "emptyToken": .uid(8), "version": .integer(1)]),
            Self.classEntry("NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"),
            .dictionary(["$class": .uid(4), "keys": .uid(5), "length": .integer(2), "version": .integer(1)]),
            Self.classEntry("NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"),
            .dictionary(["$class": .uid(7), "NS.objects": .array([.uid(9), .uid(10)])]),
            .dictionary(["$class": .uid(7), "NS.objects": .array([.uid(11), .uid(8)])]),
            Self.classEntry("NSArray", "NSObject"),
            .string(token),
            .string("a"),
            .string("b"),
            .integer(1),
        ]) as? [AnyHashable: Any]
        #expect(dictionary?.count == 1)
        #expect(dictionary?["a"] as? Int == 1)
    }

    @Test func refusesACollectionThatContainsItself() {
        let error = #expect(throws: KeyedArchiveError.self) {
            try decode([
                .string("$null"),
                .dictionary(["$class": .uid(2), "NS.objects": .array([.uid(1)])]),
                Self.classEntry("NSMutableArray", "NSArray", "NSObject"),
            ])
        }
        #expect(error?.reason.contains("contains itself") == true)
    }

    @Test func namesClassesItCannotDecode() {
        let error = #expect(throws: KeyedArchiveError.self) {
            try decode([.string("$null"), .dictionary(["$class": .uid(2), "text": .uid(0)]), Self.classEntry("MyApp.Cover", "NSObject")])
        }
        #expect(error?.unsupportedClass == "MyApp.Cover")
    }

    @Test func refusesDanglingAndMalformedReferences() {
        #expect(throws: KeyedArchiveError.self) {
            try decode([.string("$null"), .dictionary(["$class": .uid(5)])])  // a $class past the end
        }
        #expect(throws: KeyedArchiveError.self) {
            try decode([.string("$null"), .dictionary(["NS.objects": .array([])])])  // no $class
        }
        #expect(throws: KeyedArchiveError.self) {
            try decode([.string("$null"), .dictionary(["$class": .uid(2), "NS.objects": .array([.uid(40)])]), Self.classEntry("NSArray")])
        }
        #expect(throws: KeyedArchiveError.self) {
            try KeyedArchive(data: TestPropertyList.keyedArchive(objects: [.string("$null")], top: 3)).rootObject()
        }
    }

    /// XML keyed archives (hand-written ones) spell UIDs as `CF$UID` dictionaries.
    @Test func readsXMLKeyedArchives() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
              <key>$archiver</key><string>NSKeyedArchiver</string>
              <key>$version</key><integer>100000</integer>
              <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
              <key>$objects</key><array>
                <string>$null</string>
                <dict><key>$class</key><dict><key>CF$UID</key><integer>2</integer></dict>
                      <key>NS.objects</key><array><dict><key>CF$UID</key><integer>3</integer></dict></array></dict>
                <dict><key>$classname</key><string>NSArray</string></dict>
                <string>only</string>
              </array>
            </dict></plist>
            """
        var decoder = FoundationValueDecoder()
        #expect(try decoder.decode(KeyedArchive(data: Data(xml.utf8)).rootObject()) as? [String] == ["only"])
    }
}
