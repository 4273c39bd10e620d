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
