import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// The key-value coding collection operators `@unionOfObjects` and `@distinctUnionOfObjects` in
/// predicates evaluated in memory, and the SQLite store's clear refusal of them (Core Data's SQL
/// store supports only `@count`, `@sum`, `@avg`, `@min` and `@max` in fetch predicates).
@Suite struct CollectionOperatorTests {
    private let order: [String: Any] = ["lines": [["item": "pen"], ["item": "ink"], ["item": "pen"], ["note": "no item"]]]

    @Test func distinctUnionOfObjectsDropsRepeatsAndNils() {
        let distinct = NSExpression(format: "lines.@distinctUnionOfObjects.item").expressionValue(with: order, context: nil)
        #expect(distinct as? [String] == ["pen", "ink"])
        let union = NSExpression(format: "lines.@unionOfObjects.item").expressionValue(with: order, context: nil)
        #expect(union as? [String] == ["pen", "ink", "pen"])
    }

    @Test(arguments: [("'ink' IN lines.@distinctUnionOfObjects.item", true),
                      ("'paper' IN lines.@distinctUnionOfObjects.item", false),
                      ("ANY lines.@distinctUnionOfObjects.item == 'pen'", true),
                      ("ALL lines.@unionOfObjects.item BEGINSWITH 'p'", false),
                      ("ALL lines.@unionOfObjects.item MATCHES '[a-z]{3}'", true)])
    func predicatesOverTheUnionsEvaluateInMemory(format: String, expected: Bool) {
        #expect(NSPredicate(format: format).evaluate(with: order) == expected)
    }

    @Test func managedObjectsInMemoryAndTheSQLiteStoresRefusal() throws {
        let stack = try TestStack(.sqlite)
        let ada = stack.insert("Person", ["name": "Ada"])
        for name in ["Rex", "Tom", "Rex"] { stack.insert("Pet", ["name": name]).setValue(ada, forKey: "owner") }
        try stack.context.save()
        let predicate = NSPredicate(format: "'Tom' IN pets.@distinctUnionOfObjects.name")
        #expect(try stack.fetch("Person").filtered(using: predicate) == [ada])
        let error = #expect(throws: (any Error).self) { try stack.fetch("Person", predicate) }
        #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
        #expect(error?.message.contains("@distinctUnionOfObjects") == true)
    }
}
