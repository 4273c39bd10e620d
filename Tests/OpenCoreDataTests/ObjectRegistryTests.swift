import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

@Suite struct ObjectRegistryTests {
    /// The primary-key table agrees with a dictionary through thousands of random inserts and
    /// removals (removal shifts entries back; a mistake there loses objects).
    @Test func primaryKeyTableMatchesADictionary() {
        let model = TestModel.make()
        let entity = model.entitiesByName["Person"]!
        var generator = SplitMix(seed: 42)
        var table = PrimaryKeyTable(store: ObjectIdentifier(model), root: ObjectIdentifier(entity))
        var reference: [Int64: NSManagedObject] = [:]
        var alive: [NSManagedObject] = []
        for _ in 0..<20_000 {
            let key = Int64(generator.next() % 3_000) + 1
            if generator.next() % 3 == 0 {
                table.remove(key, ifMatching: nil)
                reference[key] = nil
            } else {
                let object = NSManagedObject(entity: entity, insertInto: nil)
                alive.append(object)
                table.insert(object, for: key)
                reference[key] = object
            }
        }
        #expect(table.count == reference.count)
        for key in Int64(1)...3_000 {
            #expect(table.object(for: key) === reference[key])
        }
    }

    /// Runs of consecutive keys (hashed together) mixed with keys far beyond the table's size,
    /// registered through the one-probe path that fetches use: every key finds its object
    /// again, and a key already present keeps its first object.
    @Test func findOrInsertKeepsConsecutiveAndDistantKeysApart() {
        let model = TestModel.make()
        let entity = model.entitiesByName["Person"]!
        var generator = SplitMix(seed: 7)
        var table = PrimaryKeyTable(store: ObjectIdentifier(model), root: ObjectIdentifier(entity))
        var reference: [Int64: NSManagedObject] = [:]
        for step in 0..<30_000 {
            let key = step % 2 == 0 ? Int64(step / 2 + 1) : Int64(generator.next() % (1 << 40)) + 1
            let candidate = NSManagedObject(entity: entity, insertInto: nil)
            let (index, existing) = table.slot(for: key)
            if existing == nil { table.fill(index, key: key, with: candidate) }
            #expect((existing?.takeUnretainedValue() ?? candidate) === (reference[key] ?? candidate))
            if reference[key] == nil { reference[key] = candidate }
            if generator.next() % 5 == 0 {
                let victim = Int64(generator.next() % UInt64(step / 2 + 1)) + 1
                table.remove(victim, ifMatching: nil)
                reference[victim] = nil
            }
        }
        #expect(table.count == reference.count)
        for (key, object) in reference { #expect(table.object(for: key) === object) }
        for key in Int64(1)...15_000 where reference[key] == nil { #expect(table.object(for: key) == nil) }
    }

    /// Objects going away leave no tombstones behind once their probe runs end: a table whose
    /// objects all went away (a fetch's results released, as after every W3 fetch) is empty
    /// again, and probes and rebuilds do not grow with the objects that came and went.
    @Test func aTableWhoseObjectsAllWentAwayHoldsNoTombstones() {
        let model = TestModel.make()
        let entity = model.entitiesByName["Person"]!
        var generator = SplitMix(seed: 11)
        var table = PrimaryKeyTable(store: ObjectIdentifier(model), root: ObjectIdentifier(entity))
        var objects: [NSManagedObject] = []
        for round in 0..<5 {
            // Keys in runs of consecutive keys and keys far apart, removed in a shuffled order.
            var keys = (0..<1_000).map { Int64(round * 10_000 + $0 * 1_000 % 9_973 + 1) }
            keys += (1...500).map { Int64(round * 10_000 + 5_000 + $0) }
            for key in keys {
                let object = NSManagedObject(entity: entity, insertInto: nil)
                objects.append(object)
                table.insert(object, for: key)
            }
            var order = Set(keys).sorted()
            for index in order.indices.reversed() {
                order.swapAt(index, Int(generator.next() % UInt64(index + 1)))
            }
            for (position, key) in order.enumerated() {
                table.remove(key, ifMatching: nil)
                #expect(table.object(for: key) == nil)
                if let next = order.dropFirst(position + 1).first { #expect(table.object(for: next) != nil) }
            }
            #expect(table.count == 0)
            #expect(table.tombstones == 0)
        }
    }

    /// Objects may go away between finding a key's free slot and filling it (a removal can
    /// empty part of the probe run before that slot): the key is still found afterwards.
    @Test func removalsBetweenFindingAndFillingASlotLoseNoKey() {
        let model = TestModel.make()
        let entity = model.entitiesByName["Person"]!
        var generator = SplitMix(seed: 23)
        var table = PrimaryKeyTable(store: ObjectIdentifier(model), root: ObjectIdentifier(entity))
        var reference: [Int64: NSManagedObject] = [:]
        for _ in 0..<20_000 {
            let key = Int64(generator.next() % 600) + 1
            let (index, existing) = table.slot(for: key)
            let seen = table.removals
            for _ in 0..<Int(generator.next() % 3) {
                let victim = Int64(generator.next() % 600) + 1
                guard victim != key else { continue }
                table.remove(victim, ifMatching: nil)
                reference[victim] = nil
            }
            if existing == nil {
                let object = NSManagedObject(entity: entity, insertInto: nil)
                table.fill(index, key: key, with: object, removalsSeen: seen)
                reference[key] = object
            }
        }
        #expect(table.count == reference.count)
        for key in Int64(1)...600 { #expect(table.object(for: key) === reference[key]) }
    }

    @Test func removingOnlyTheMatchingObject() {
        let model = TestModel.make()
        let entity = model.entitiesByName["Person"]!
        var table = PrimaryKeyTable(store: ObjectIdentifier(model), root: ObjectIdentifier(entity))
        let first = NSManagedObject(entity: entity, insertInto: nil)
        let second = NSManagedObject(entity: entity, insertInto: nil)
        table.insert(first, for: 7)
        table.remove(7, ifMatching: second)
        #expect(table.object(for: 7) === first)
        table.remove(7, ifMatching: first)
        #expect(table.object(for: 7) == nil)
    }
}

/// A small deterministic random number generator for tests.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
