import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Dictionary fetches with `NSExpressionDescription` aggregates, `propertiesToGroupBy` and
/// `havingPredicate`: computed in the store, with the same values from SQL and from memory.
@Suite struct AggregateFetchTests {
    static func aggregate(_ name: String, _ function: String, _ keyPath: String,
                          _ type: NSAttributeType = .undefinedAttributeType) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
        description.expressionResultType = type
        return description
    }

    static func fill(_ stack: TestStack) throws {
        let people: [(String, Int, Bool, Double)] = [("Ada", 36, true, 1.65), ("Bo", 20, false, 1.80), ("Cy", 50, true, 1.70),
                                                     ("Di", 41, true, 1.60)]
        for (name, age, active, height) in people {
            _ = stack.insert("Person", ["name": name, "age": age, "active": active, "height": height,
                                        "born": Date(timeIntervalSinceReferenceDate: Double(age) * 1000)])
        }
        try stack.context.save()
    }

    static func request(_ properties: [Any], groupBy: [Any]? = nil) -> NSFetchRequest<NSDictionary> {
        let request = NSFetchRequest<NSDictionary>(entityName: "Person")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = properties
        request.propertiesToGroupBy = groupBy
        request.sortDescriptors = groupBy == nil ? nil : [NSSortDescriptor(key: "active", ascending: true)]
        return request
    }

    @Test(arguments: StoreKind.allCases)
    func aggregatesPerGroup(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.fill(stack)
        try stack.reopen()
        let request = Self.request(["active", Self.aggregate("people", "count:", "name"), Self.aggregate("years", "sum:", "age"),
                                    Self.aggregate("meanHeight", "average:", "height"), Self.aggregate("youngest", "min:", "age"),
                                    Self.aggregate("last", "max:", "name"), Self.aggregate("earliest", "min:", "born")],
                                   groupBy: ["active"])
        let rows = try stack.context.fetch(request)
        #expect(rows.count == 2)
        let inactive = try #require(rows.first { $0["active"] as? Bool == false })
        let active = try #require(rows.first { $0["active"] as? Bool == true })
        #expect(inactive["people"] as? Int == 1)
        #expect(active["people"] as? Int == 3)
        #expect(active["years"] as? Int == 127)
        #expect(abs((active["meanHeight"] as? Double ?? 0) - (1.65 + 1.70 + 1.60) / 3) < 1e-9)
        #expect(active["youngest"] as? Int == 36)
        #expect(active["last"] as? String == "Di")
        #expect(active["earliest"] as? Date == Date(timeIntervalSinceReferenceDate: 36_000))
    }

    @Test(arguments: StoreKind.allCases)
    func aggregatesWithoutGroupingCoverEveryRowEvenNone(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let empty = try stack.context.fetch(Self.request([Self.aggregate("n", "count:", "name"), Self.aggregate("total", "sum:", "age"),
                                                          Self.aggregate("mean", "average:", "age")]))
        #expect(empty.count == 1)
        #expect(empty.first?["n"] as? Int == 0)
        #expect(empty.first?["total"] as? Int == 0)
        #expect(empty.first?["mean"] == nil)
        try Self.fill(stack)
        let all = try stack.context.fetch(Self.request([Self.aggregate("n", "count:", "name"),
                                                        Self.aggregate("mean", "average:", "age", .integer64AttributeType)]))
        #expect(all.first?["n"] as? Int == 4)
        #expect(all.first?["mean"] as? Int == 36)   // 36.75 as an integer, as asked
    }

    @Test(arguments: StoreKind.allCases)
    func groupingByAToOneKeyPathAndKeepingGroupsWithHaving(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try Self.fill(stack)
        let people = try stack.fetch("Person", sortedBy: "name")
        for (owner, count) in zip(people, [3, 1, 2, 0]) {
            for index in 0..<count { _ = stack.insert("Pet", ["name": "pet \(index)", "owner": owner, "weight": Double(index + 1)]) }
        }
        try stack.context.save()
        let request = NSFetchRequest<NSDictionary>(entityName: "Pet")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["owner.name", Self.aggregate("pets", "count:", "name"), Self.aggregate("weight", "sum:", "weight")]
        request.propertiesToGroupBy = ["owner.name"]
        request.sortDescriptors = [NSSortDescriptor(key: "owner.name", ascending: true)]
        let rows = try stack.context.fetch(request)
        #expect(rows.map { $0["owner.name"] as? String } == ["Ada", "Bo", "Cy"])
        #expect(rows.map { $0["pets"] as? Int } == [3, 1, 2])
        #expect(rows.map { $0["weight"] as? Double } == [6, 1, 3])
        request.havingPredicate = NSComparisonPredicate(key: "pets", .greaterThan, 1)
        #expect(try stack.context.fetch(request).map { $0["owner.name"] as? String } == ["Ada", "Cy"])
    }

    @Test func whatCannotBeComputedIsAClearError() throws {
        let stack = try TestStack(.sqlite)
        let root = NSExpressionDescription()
        root.name = "root"
        root.expression = NSExpression(forFunction: "sqrt:", arguments: [NSExpression(forKeyPath: "age")])
        let error = try #require(throws: CocoaError.self) { try stack.context.fetch(Self.request([root])) }
        #expect(error.message.hasPrefix("The expression description 'root' computes"))
        let unknown = try #require(throws: CocoaError.self) {
            try stack.context.fetch(Self.request([Self.aggregate("x", "sum:", "nope")]))
        }
        #expect(unknown.message.contains("keypath nope not found in entity Person"))
    }
}
