import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import OpenCoreDataPostgres

/// Two back ends, one meaning (issue 3 §3): predicates generated at random over every kind of
/// attribute, operator, option, to-many modifier and compound give the same objects through
/// SQL in the SQLite store, through the in-memory store, and through `filtered(using:)` on the
/// fetched objects. Deterministic: the same predicates on every run.
///
/// `!=` is generated only for keys that are never nil here: a NULL never satisfies `!=` in the
/// SQLite store, while it does in memory, as with Core Data (see Docs/Differences.md).
@Suite struct PredicateEquivalenceTests {
    /// People whose values cover the awkward cases: nil, case and accents, equal values, empty
    /// strings, negative and fractional numbers, no pets and no clubs.
    private static func fill(_ stack: TestStack, saving: Bool = true) throws {
        let people: [(String, Int, Double?, Double?, Bool, String?)] = [
            ("Ada", 36, 1.70, 0, true, "ada@x.org"), ("ada", 12, nil, -86_400, false, nil), ("Élodie", 50, 1.62, 1e9, true, "e@x.org"),
            ("Bob", 36, 1.80, nil, false, "bob@x.org"), ("bob", 0, 0.5, 500.5, true, "b@y.org"), ("Cy", 99, -1, 3e8, false, "cy@y.org"),
            ("Zoë", 7, 2.01, 86_400, true, nil), ("Al", 150, 1.70, -1e6, true, "al@x.org"),
        ]
        var persons: [NSManagedObject] = []
        for (name, age, height, born, active, email) in people {
            var values: [String: Any] = ["name": name, "age": age, "active": active]
            if let height { values["height"] = height }
            if let born { values["born"] = Date(timeIntervalSinceReferenceDate: born) }
            if let email { values["email"] = email }
            persons.append(stack.insert("Person", values))
        }
        let pets: [(String, Double, Int)] = [("Rex", 10, 0), ("Tom", 2, 0), ("Max", 20, 3), ("rex", 5, 3), ("Émile", 5, 5), ("Fido", 0.5, 6)]
        for (name, weight, owner) in pets {
            stack.insert("Pet", ["name": name, "weight": weight]).setValue(persons[owner], forKey: "owner")
        }
        let chess = stack.insert("Club", ["name": "Chess"])
        let golf = stack.insert("Club", ["name": "golf"])
        for index in [0, 3, 5] { chess.mutableSetValue(forKey: "members").add(persons[index]) }
        for index in [0, 6] { golf.mutableSetValue(forKey: "members").add(persons[index]) }
        guard saving else { return }
        try stack.context.save()
        try stack.reopen()
    }

    private struct Generator {
        var random: SplitMix

        mutating func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }

        mutating func stringComparison(_ key: String, nullable: Bool) -> String {
            let options = pick(["", "[c]", "[d]", "[cd]"])
            let value = pick(["'ada'", "'Ada'", "'bob'", "'e'", "'É'", "'o'", "''", "'x.org'", "'Zoe'", "'zoë'", "'élodie'"])
            switch pick([0, 1, 2, 3, 4, 5, 6]) {
            case 0: return "\(key) ==\(options) \(value)"
            case 1 where !nullable: return "\(key) !=\(options) \(value)"
            case 1: return "\(key) ==\(options) nil"
            case 2: return "\(key) BEGINSWITH\(options) \(value)"
            case 3: return "\(key) ENDSWITH\(options) \(value)"
            case 4: return "\(key) CONTAINS\(options) \(value)"
            case 5: return "\(key) LIKE\(options) \(pick(["'a*'", "'?o?'", "'*o*'", "'*'", "'b?b'"]))"
            default: return "\(key) \(pick(["<", "<=", ">", ">="])) \(value)"
            }
        }

        mutating func numberComparison(_ key: String, _ values: [String], nullable: Bool) -> String {
            switch pick([0, 1, 2, 3]) {
            case 0: return "\(key) BETWEEN {\(pick(values)), \(pick(values))}"
            case 1: return "\(key) IN {\(pick(values)), \(pick(values))}"
            case 2: return "\(key) \(nullable ? "==" : pick(["==", "!="])) \(pick(values + ["nil"]))"
            default: return "\(key) \(pick(["<", "<=", ">", ">="])) \(pick(values))"
            }
        }

        mutating func comparison() -> String {
            switch pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) {
            case 0: return stringComparison("name", nullable: false)
            case 1: return stringComparison("email", nullable: true)
            case 2: return numberComparison("age", ["0", "12", "36", "36.5", "99", "-1", "150"], nullable: false)
            case 3: return numberComparison("height", ["0", "1.7", "-1", "2", "0.5"], nullable: true)
            case 4: return "born \(pick(["<", ">", "==", ">="])) \(pick(["CAST(0, 'NSDate')", "CAST(-86400, 'NSDate')", "nil", "CAST(1e9, 'NSDate')"]))"
            case 5: return "active == \(pick(["YES", "NO", "nil"]))"
            case 6:
                let (key, values) = pick([("name", ["'rex'", "'Rex'", "'Émile'", "'Max'"]), ("weight", ["5", "10", "0.5", "20"])])
                return "\(pick(["ANY", "ALL", "NONE"])) pets.\(key) \(pick(["==", "!=", "<", ">", ">="])) \(pick(values))"
            case 7: return "\(pick(["ANY", "NONE"])) pets.name \(pick(["BEGINSWITH", "CONTAINS", "==", "ENDSWITH"]))\(pick(["", "[c]", "[cd]"])) \(pick(["'r'", "'e'", "'EMILE'", "'x'"]))"
            case 8:
                // Counts and sums are never nil; the others are for a person without pets.
                let aggregate = pick(["count", "sum.weight", "max.weight", "min.weight", "avg.weight"])
                let operators = ["count", "sum.weight"].contains(aggregate) ? ["==", "<", ">", ">=", "!="] : ["==", "<", ">", ">="]
                return "pets.@\(aggregate) \(pick(operators)) \(pick(["0", "1", "2", "5", "10", "22"]))"
            default: return "\(pick(["ANY", "ALL", "NONE"])) clubs.name \(pick(["==", "==[c]", "BEGINSWITH[c]"])) \(pick(["'Chess'", "'golf'", "'GOLF'", "'c'"]))"
            }
        }

        mutating func predicate(depth: Int = 0) -> String {
            guard depth < 2, random.next() % 3 == 0 else { return comparison() }
            switch pick([0, 1, 2]) {
            case 0: return "(\(predicate(depth: depth + 1)) AND \(predicate(depth: depth + 1)))"
            case 1: return "(\(predicate(depth: depth + 1)) OR \(predicate(depth: depth + 1)))"
            default: return "NOT (\(predicate(depth: depth + 1)))"
            }
        }
    }

    @Test func generatedPredicatesAgreeInSQLInTheMemoryStoreAndInMemory() throws {
        let sqlite = try TestStack(.sqlite)
        let memory = try TestStack(.inMemory)
        try Self.fill(sqlite)
        try Self.fill(memory)
        let everyone = try sqlite.fetch("Person")
        var generator = Generator(random: SplitMix(seed: 7_777))
        var compared = 0
        for _ in 0..<600 {
            let format = generator.predicate()
            let predicate = NSPredicate(format: format)
            func names(_ objects: [NSManagedObject]) -> [String] { objects.compactMap { $0.value(forKey: "name") as? String }.sorted() }
            let inMemory = names(everyone.filtered(using: predicate))
            let fromMemoryStore = names(try memory.fetch("Person", predicate))
            let fromSQL = names(try sqlite.fetch("Person", predicate))
            #expect(fromSQL == inMemory, "SQL and memory differ for \(format)")
            #expect(fromMemoryStore == inMemory, "the in-memory store and memory differ for \(format)")
            compared += 1
        }
        #expect(compared == 600)
    }

    /// The same 600 predicates through the PostgreSQL store (issue 19 §3): what its SQL renders
    /// and what it answers in memory after a wider fetch give the same people as memory.
    @Test(.needsPostgres) func generatedPredicatesAgreeInPostgreSQLAndInMemory() throws {
        let postgres = try TestStack(.postgres)
        try Self.fill(postgres)
        let everyone = try postgres.fetch("Person")
        #expect(everyone.count == 8)
        var generator = Generator(random: SplitMix(seed: 7_777))
        for _ in 0..<600 {
            let format = generator.predicate()
            let predicate = NSPredicate(format: format)
            func names(_ objects: [NSManagedObject]) -> [String] { objects.compactMap { $0.value(forKey: "name") as? String }.sorted() }
            #expect(names(try postgres.fetch("Person", predicate)) == names(everyone.filtered(using: predicate)),
                    "PostgreSQL and memory differ for \(format)")
        }
    }

    /// A context's unsaved objects are judged by the same resolved predicate the store runs
    /// (`includesPendingChanges`), and agree with `filtered(using:)` on them.
    @Test func generatedPredicatesAgreeOnUnsavedObjects() throws {
        let stack = try TestStack(.sqlite)
        try Self.fill(stack, saving: false)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        let everyone = try stack.context.fetch(request)
        #expect(everyone.count == 8 && everyone.allSatisfy(\.isInserted))
        var generator = Generator(random: SplitMix(seed: 4_242))
        for _ in 0..<300 {
            let format = generator.predicate()
            let predicate = NSPredicate(format: format)
            request.predicate = predicate
            func names(_ objects: [NSManagedObject]) -> [String] { objects.compactMap { $0.value(forKey: "name") as? String }.sorted() }
            #expect(names(try stack.context.fetch(request)) == names(everyone.filtered(using: predicate)), "unsaved objects differ for \(format)")
        }
    }
}
