import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Predicates that once went wrong: nil arguments, right-hand key paths in ANY, printing, dates,
/// bad substitutions, deep nesting, argument order around sub-selects, NOT over unknowns.
@Suite struct PredicateRegressionTests {
    private func people(_ kind: StoreKind) throws -> TestStack {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada", "age": 36, "email": "ada@x.org"])
        let bob = stack.insert("Person", ["name": "Bob", "age": 12])
        _ = stack.insert("Person", ["name": "Cy", "age": 50, "email": "cy@x.org"])
        for (name, weight, owner) in [("Ada", 10.0, ada), ("Tom", 2.0, ada), ("Max", 20.0, bob)] {
            stack.insert("Pet", ["name": name, "weight": weight]).setValue(owner, forKey: "owner")
        }
        try stack.context.save()
        try stack.reopen()
        return stack
    }

    private func results(_ predicate: NSPredicate) throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        for kind in StoreKind.allCases {
            let stack = try people(kind)
            do {
                out["\(kind) fetch"] = try stack.fetch("Person", predicate, sortedBy: "name").map { $0.value(forKey: "name") as! String }
            } catch {
                out["\(kind) fetch"] = ["ERROR \(error.message)"]
            }
            out["\(kind) filtered"] = try stack.fetch("Person", nil, sortedBy: "name").filtered(using: predicate)
                .map { $0.value(forKey: "name") as! String }
        }
        return out
    }

    /// A Swift nil given for `%@` matches nil values (`email == %@` with nil finds the people
    /// without an email), in SQL and in memory.
    @Test func nilArgumentMatchesNilValues() throws {
        let missing: String? = nil
        let predicate = NSPredicate(format: "email == %@", missing)
        #expect(predicate.evaluate(with: ["email": NSNull()]))
        for (source, names) in try results(predicate) { #expect(names == ["Bob"], "\(source)") }
        let notNil = NSPredicate(format: "email != %@", missing)
        for (source, names) in try results(notNil) { #expect(names == ["Ada", "Cy"], "\(source)") }
    }

    /// In `ANY pets.name == name` the right-hand key path is the fetched person's, in SQL as in
    /// memory.
    @Test func anyRightHandKeyPathIsTheOwnersKey() throws {
        let predicate = NSPredicate(format: "ANY pets.name == name")
        for (source, names) in try results(predicate) { #expect(names == ["Ada"], "\(source)") }
        let all = NSPredicate(format: "ALL pets.name != name")
        for (source, names) in try results(all) { #expect(names == ["Bob", "Cy"], "\(source)") }
    }

    /// A parsed compound inside a compound built in code keeps its parentheses when printed, so
    /// the printed form means the same.
    @Test func wrappedCompoundKeepsItsParentheses() throws {
        let inner = NSPredicate(format: "a == 1 OR b == 2")
        let and = NSCompoundPredicate(andPredicateWithSubpredicates: [inner, NSPredicate(format: "c == 3")])
        #expect(and.predicateFormat == "(a == 1 OR b == 2) AND c == 3")
        let not = NSCompoundPredicate(notPredicateWithSubpredicate: inner)
        #expect(not.predicateFormat == "NOT (a == 1 OR b == 2)")
        // The printed form selects different objects than the predicate.
        let object: [String: Any] = ["a": 1, "b": 0, "c": 0]
        #expect(and.evaluate(with: object) == NSPredicate(format: and.predicateFormat).evaluate(with: object))
    }

    /// Date constants print as CAST(…, "NSDate") and parse back.
    @Test func dateConstantPrintsBackToSomethingParseable() throws {
        let predicate = NSPredicate(format: "born < %@", Date(timeIntervalSinceReferenceDate: 100))
        #expect(throws: Never.self) { try NSPredicate(validatingFormat: predicate.predicateFormat) }
    }

    /// `%d` with a Double that is no integer (too large, NaN) is an error, not a crash.
    @Test func integerSubstitutionOfAHugeDoubleDoesNotCrash() async {
        await #expect(processExitsWith: .success) {
            _ = try? NSPredicate(validatingFormat: "age == %d", 1e30)
        }
    }

    /// Deeply nested parentheses or NOTs are an error, not a stack overflow.
    @Test func deepNestingIsAnErrorNotACrash() async {
        await #expect(processExitsWith: .success) {
            let depth = 100_000
            _ = try? NSPredicate(validatingFormat: String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth))
        }
        await #expect(processExitsWith: .success) {
            _ = try? NSPredicate(validatingFormat: String(repeating: "NOT ", count: 100_000) + "a == 1")
        }
    }

    /// Bound arguments keep their order around sub-selects and collection operators.
    @Test func boundArgumentOrderAroundSubselects() throws {
        let predicate = NSPredicate(format: "name == %@ AND ANY pets.name == %@ AND %d < pets.@count AND pets.@sum.weight > %f AND age > %d AND NONE pets.weight > %f",
                                    "Ada", "Tom", 1, 11.5, 30, 100.0)
        for (source, names) in try results(predicate) { #expect(names == ["Ada"], "\(source)") }
    }

    /// NOT over a comparison with an empty relationship's @avg: the unknown comparison counts as
    /// false before it is negated, in SQL as in memory. (`!=` against the aggregate of nothing
    /// keeps SQL's three-valued answer, as `!=` against nil does: §7.5.)
    @Test func notOverEmptyAverageAgrees() throws {
        let predicate = NSPredicate(format: "NOT (pets.@avg.weight > 5)")
        for (source, names) in try results(predicate) { #expect(names == ["Cy"], "\(source)") }
    }

    /// A NOT built in code with more than one subpredicate negates the first, as memory does;
    /// the SQL binds only the values of what it runs (it once bound the others' too, which
    /// shifted every later argument).
    @Test func notWithSeveralSubpredicatesNegatesTheFirst() throws {
        let not = NSCompoundPredicate(type: .not, subpredicates: [NSPredicate(format: "age > %d", 20),
                                                                  NSPredicate(format: "name == %@", "Bob")])
        let predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [not, NSPredicate(format: "name != %@", "Zed")])
        for (source, names) in try results(predicate) { #expect(names == ["Bob"], "\(source)") }
    }

    /// A dictionary fetch whose column binds a value (a string's length is computed by a
    /// function the store names as a bound value) and whose predicate binds values: each value
    /// goes to its own parameter, whatever order the clauses were compiled in.
    @Test(arguments: StoreKind.allCases)
    func dictionaryColumnsBindBeforeTheWhereClause(kind: StoreKind) throws {
        let stack = try people(kind)
        let request = NSFetchRequest<NSDictionary>(entityName: "Person")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name", "name.length"]
        request.predicate = NSPredicate(format: "age > %d AND name != %@", 20, "Cy")
        let rows = try stack.context.fetch(request)
        #expect(rows.count == 1)
        #expect(rows.first?["name"] as? String == "Ada")
    }
}

@Suite struct PredicatePrintingTests {
    /// UUIDs, URLs and sets print in a form that parses back and still matches (UUID and URI
    /// attributes accept their string forms), in SQL and in memory.
    @Test(arguments: StoreKind.allCases)
    func uuidURLAndSetConstantsPrintBack(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let id = UUID()
        _ = stack.insert("Person", ["name": "Ada", "id": id, "website": URL(string: "https://a.example")!])
        _ = stack.insert("Person", ["name": "Bob", "id": UUID()])
        try stack.context.save()
        for predicate in [
            NSPredicate(format: "id == %@", id),
            NSPredicate(format: "website == %@", URL(string: "https://a.example")!),
            NSPredicate(format: "name IN %@", Set(["Ada", "Zed"])),
        ] {
            let printed = try NSPredicate(validatingFormat: predicate.predicateFormat)
            for candidate in [predicate, printed] {
                let names = try stack.fetch("Person", candidate).map { $0.value(forKey: "name") as! String }
                #expect(names == ["Ada"], "\(candidate.predicateFormat)")
                #expect(try stack.fetch("Person").filtered(using: candidate).map { $0.value(forKey: "name") as! String } == ["Ada"])
            }
        }
    }
}
