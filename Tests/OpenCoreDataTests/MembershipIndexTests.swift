import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// `IN` with a long constant list is evaluated in memory through a hashed index; it must select
/// exactly what SQL selects and what a scan of the list selects, for every kind of list.
@Suite struct MembershipIndexTests {
    /// People aged 0…39 named "P0"…"P39" (some names in other cases), saved and reread.
    private func stacks() throws -> [TestStack] {
        let stacks = [try TestStack(.sqlite), try TestStack(.inMemory)]
        for stack in stacks {
            for index in 0..<40 {
                _ = stack.insert("Person", ["name": index % 3 == 0 ? "p\(index)" : "P\(index)", "age": index,
                                            "height": Double(index) + 0.5])
            }
            try stack.context.save()
            try stack.reopen()
        }
        return stacks
    }

    private static var cases: [(String, [Any])] { [
        // Integers, given as Int, Int64, Double and NSNumber: numbers compare by value.
        ("age IN %@", Array(stride(from: 0, to: 40, by: 3))),
        ("age IN %@", Array(stride(from: Int64(1), to: 40, by: 4))),
        ("age IN %@", [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.5, 99.0]),
        ("age IN %@", (0..<12).map { NSNumber(value: $0 * 2) }),
        ("height IN %@", [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.0, 8.0]),
        // Strings, exact and case-insensitive.
        ("name IN %@", (0..<20).map { "P\($0)" }),
        ("name IN[c] %@", (0..<20).map { "p\($0)" }),
        // Lists the index refuses (NaN, which equals nothing, and integers beyond 2^53): the
        // scan answers.
        ("age IN %@", [Double.nan, 1, 2, 3, 4, 5, 6, 7, 8] as [Any]),
        ("age IN %@", [Int64(1) << 60, 1, 2, 3, 4, 5, 6, 7, 8] as [Any]),
        // Short lists are scanned.
        ("age IN %@", [1, 2]),
    ] }

    @Test(arguments: 0..<10)
    func longInListsSelectTheSameObjectsInSQLInMemoryAndFiltered(index: Int) throws {
        let (format, list) = Self.cases[index]
        let predicate = NSPredicate(format: format, argumentArray: [list])
        let (sqlite, memory) = try { let both = try stacks(); return (both[0], both[1]) }()
        let names: ([NSManagedObject]) -> [String] = { $0.map { $0.value(forKey: "name") as! String } }
        let viaSQL = names(try sqlite.fetch("Person", predicate, sortedBy: "age"))
        let inMemoryStore = names(try memory.fetch("Person", predicate, sortedBy: "age"))
        let filtered = names(try sqlite.fetch("Person", nil, sortedBy: "age").filtered(using: predicate))
        #expect(viaSQL == inMemoryStore, "\(format) \(list)")
        #expect(viaSQL == filtered, "\(format) \(list)")
        #expect(!viaSQL.isEmpty, "\(format) \(list)")
    }

    private static var lists: [[Any]] { [
        Array(0..<16),
        (0..<16).map { "n\($0)" },
        [1, 2, 3, "4", 5, 6, 7, 8, 9],  // mixed kinds: no index
    ] }

    @Test(arguments: 0..<3)
    func theIndexAnswersLikeTheScanForValuesOfEveryKind(listIndex: Int) {
        let list = Self.lists[listIndex]
        let indexed = NSComparisonPredicate(key: "self", .in, list)
        let caseInsensitive = NSComparisonPredicate(leftExpression: .expressionForEvaluatedObject(),
                                                    rightExpression: NSExpression(forConstantValue: list),
                                                    modifier: .direct, type: .in, options: [.caseInsensitive])
        let values: [Any?] = [0, 15, 16, -1, Int64(3), 3.0, 3.5, Double.nan, NSNumber(value: 7), "3", "4", "n3", "N3", "n16",
                              nil, NSNull(), true, Date()]
        for value in values {
            #expect(indexed.evaluate(with: value) == ValueComparison.evaluate(value, .in, list, options: []),
                    "\(String(describing: value))")
            #expect(caseInsensitive.evaluate(with: value) == ValueComparison.evaluate(value, .in, list, options: [.caseInsensitive]),
                    "[c] \(String(describing: value))")
        }
        #expect(NSComparisonPredicate(key: "self", .in, list).evaluate(with: list[2]))
    }

    @Test func anyOfAToManyKeyPathUsesTheIndexToo() throws {
        for stack in try stacks() {
            let owner = try #require(try stack.fetch("Person", NSPredicate(format: "age == 5")).first)
            for index in 0..<3 {
                let pet = stack.insert("Pet", ["name": "pet\(index)"])
                pet.setValue(owner, forKey: "owner")
            }
            try stack.context.save()
            try stack.reopen()
            let names = (0..<10).map { "pet\($0 + 2)" }
            let found = try stack.fetch("Person", NSPredicate(format: "ANY pets.name IN %@", names))
            #expect(found.map { $0.value(forKey: "age") as? Int } == [5])
            let filtered = try stack.fetch("Person").filtered(using: NSPredicate(format: "ANY pets.name IN %@", names))
            #expect(filtered.map { $0.value(forKey: "age") as? Int } == [5])
        }
    }

    /// NaN equals no number, not even NaN, and orders with none: as in SQL, where it is NULL.
    @Test func nanMatchesNoComparison() {
        for value: Any in [1, 1.5, Double.nan, Int64.max] {
            for type: NSComparisonPredicate.Operator in [.equalTo, .lessThan, .greaterThan, .lessThanOrEqualTo, .greaterThanOrEqualTo] {
                #expect(!NSComparisonPredicate(key: "self", type, Double.nan).evaluate(with: value), "\(value) \(type)")
            }
        }
    }
}
