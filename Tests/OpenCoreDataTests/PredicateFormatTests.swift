import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

@Suite struct PredicateFormatTests {
    @Test(arguments: [
        ("age > 30", "age > 30"),
        ("age >= 18 AND name BEGINSWITH[c] 'a'", "age >= 18 AND name BEGINSWITH[c] \"a\""),
        ("name ==[cd] \"Zoë\" OR age < 4", "name ==[cd] \"Zoë\" OR age < 4"),
        ("NOT (age = 3)", "NOT age == 3"),
        ("age BETWEEN {4, 5}", "age BETWEEN {4, 5}"),
        ("name IN {'Anna', 'Zack'}", "name IN {\"Anna\", \"Zack\"}"),
        ("email == nil", "email == nil"),
        ("email != NULL", "email != nil"),
        ("active == YES", "active == 1"),
        ("TRUEPREDICATE", "TRUEPREDICATE"),
        ("owner.name LIKE 'A*'", "owner.name LIKE \"A*\""),
        ("ANY pets.name == 'Rex'", "ANY pets.name == \"Rex\""),
        ("NONE pets.name == 'Rex'", "NOT ANY pets.name == \"Rex\""),
        ("#in == 0x1F", "#in == 31"),
        ("size = $SIZE", "size == $SIZE"),
        ("(a = 1 || b = 2) && c = 3", "(a == 1 OR b == 2) AND c == 3"),
        ("age + 94 < 100", "age + 94 < 100"),
        ("a - 2 * -b >= 4", "a - (2 * (0 - b)) >= 4"),
        ("sum(scores) == 3 AND now() > born", "sum:(scores) == 3 AND now() > born"),
        ("TERNARY(f == YES, YES, NO) == YES", "TERNARY(f == 1, 1, 0) == 1"),
        ("SUBQUERY(pets, $p, $p.name BEGINSWITH 'R').@count > 0", "SUBQUERY(pets, $p, $p.name BEGINSWITH \"R\").@count > 0"),
        ("SELF[FIRST] = 1 OR tags[SIZE] > 2", "SELF[FIRST] == 1 OR tags[SIZE] > 2"),
        ("(SELF.h)['A'] == 1", "h[\"A\"] == 1"),
        ("authorAlias == $FETCH_SOURCE.alias", "authorAlias == $FETCH_SOURCE.alias"),
        ("3 IN {1, 2} UNION {3}", "3 IN {1, 2} UNION {3}"),
        ("CAST(age, 'NSString') == '3'", "CAST(age, \"NSString\") == \"3\""),
    ])
    func formatsParseAndPrintBack(format: String, printed: String) throws {
        let predicate = try NSPredicate(validatingFormat: format)
        #expect(predicate.predicateFormat == printed)
        // What it prints parses back to the same predicate.
        #expect(try NSPredicate(validatingFormat: printed).predicateFormat == printed)
    }

    @Test func substitutionsTakeTheArgumentsInOrder() throws {
        let predicate = try NSPredicate(validatingFormat: "%K > %d AND note CONTAINS[cd] %@ AND price < %f", "age", 30, "tea", 2.5)
        #expect(predicate.predicateFormat == "age > 30 AND note CONTAINS[cd] \"tea\" AND price < 2.5")
        #expect(try NSPredicate(validatingFormat: "name IN %@", ["a", "b"]).predicateFormat == "name IN {\"a\", \"b\"}")
    }

    /// Every printf-style conversion the format language takes, with the length modifiers:
    /// integers print as integers, floating-point ones as numbers, `%s` as a string.
    @Test(arguments: [
        ("age == %i", 7 as any Sendable, "age == 7"),
        ("age == %u", UInt(7), "age == 7"),
        ("age == %ld", -3, "age == -3"),
        ("age == %lld", Int64.max, "age == 9223372036854775807"),
        ("age == %lu", UInt64(5), "age == 5"),
        ("age == %hd", Int16(-2), "age == -2"),
        ("age == %qd", Int64(4), "age == 4"),
        ("age == %x", 255, "age == 255"),
        ("age == %o", 8, "age == 8"),
        ("price < %lf", 2.5, "price < 2.5"),
        ("price < %e", 1.5, "price < 1.5"),
        ("price < %g", Float(0.5), "price < 0.5"),
        ("name == %s", "Ada", "name == \"Ada\""),
        ("%K == 1", "age", "age == 1"),
    ])
    func everyConversionSubstitutesItsArgument(format: String, argument: any Sendable, printed: String) throws {
        #expect(try NSPredicate(validatingFormat: format, argument).predicateFormat == printed)
    }

    @Test(arguments: [("age == %d", "seven" as any Sendable, "%d needs an integer, got seven"),
                      ("age == %f", "x", "%f needs a number, got x"),
                      ("age == %d", Double.infinity, "%d needs an integer, got inf"),
                      ("age == %z", 1, "unknown format specifier %z"),
                      ("age == %lz", 1, "unknown format specifier")])
    func aConversionOfTheWrongKindIsAnError(format: String, argument: any Sendable, reason: String) {
        #expect {
            _ = try NSPredicate(validatingFormat: format, argument)
        } throws: { error in
            (error as? PredicateFormatError)?.reason.contains(reason) == true && (error as? PredicateFormatError)?.position == 7
        }
    }

    @Test(arguments: [
        ("age >", 5, "expected an expression"),
        ("age > 3 AND", 11, "expected an expression"),
        ("age ~ 3", 4, "unexpected character '~'"),
        ("name == 'unterminated", 8, "unterminated string"),
        ("age 3", 4, "expected a comparison operator"),
        ("name ==[x] 'a'", 8, "comparison options"),
        ("age > %d", 6, "missing argument for %d"),
        ("(age > 3", 8, "expected )"),
        ("# == 1", 0, "expected a key after #"),
        ("pets.@count > %@", 14, "missing argument for %@"),
    ])
    func malformedFormatsNameWhatWasExpectedAndWhere(format: String, position: Int, reason: String) {
        do {
            _ = try NSPredicate(validatingFormat: format)
            Issue.record("\(format) should not parse")
        } catch let error as PredicateFormatError {
            #expect(error.position == position, "\(error)")
            #expect(error.reason.contains(reason), "\(error)")
            #expect(error.description.contains("at character \(position)"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// The same parsed predicate selects the same objects through SQL and in memory.
    @Test(arguments: [
        "age > 3", "name BEGINSWITH[c] 'z'", "name ==[cd] 'zoe'", "age BETWEEN {3, 4} AND NOT name ENDSWITH 'k'",
        "name IN {'Anna', 'hannah'} OR age == 0", "email == nil", "name LIKE '?a*'", "name CONTAINS[c] 'AN'",
        "age + 1 > 4", "uppercase(name) == 'ZOË'", "name.length == 4", "TERNARY(age > 3, 1, 0) == 1",
        "modulus:by:(age, 2) == 0 AND age / 2 >= 2",
        // [n] supersedes [c] and [d] (Apple: the strings are already normalized): these compare exactly.
        "name ==[cn] 'zoe'", "name ==[n] 'Zoë'", "name BEGINSWITH[cdn] 'Za'", "name !=[c] 'zoe'",
        // Numeric functions run in SQL by the in-memory code.
        "sqrt(age) > 1.9 AND floor(age / 3) == 1", "age ** 2 > 20", "bitwiseAnd:with:(age, 1) == 1", "ln(exp(age)) > 3.5",
        // Two key paths, both nil for some rows: nil == nil, in SQL as in memory.
        "email == website OR age == 3",
    ])
    func parsedPredicatesGiveTheSameObjectsInSQLAndInMemory(format: String) throws {
        let sqlite = try TestStack(.sqlite)
        let memory = try TestStack(.inMemory)
        for stack in [sqlite, memory] {
            for name in ["Zoë", "zoe", "Zack", "Anna", "hannah", "Nobody"] {
                _ = stack.insert("Person", ["name": name, "age": name == "Nobody" ? 0 : name.count])
            }
            try stack.context.save()
            try stack.reopen()
        }
        let predicate = NSPredicate(format: format)
        let viaSQL = try sqlite.fetch("Person", predicate, sortedBy: "name").map { $0.value(forKey: "name") as! String }
        let inMemoryStore = try memory.fetch("Person", predicate, sortedBy: "name").map { $0.value(forKey: "name") as! String }
        let filtered = try sqlite.fetch("Person", nil, sortedBy: "name").filtered(using: predicate).map { $0.value(forKey: "name") as! String }
        #expect(viaSQL == inMemoryStore)
        #expect(viaSQL == filtered)
        #expect(!viaSQL.isEmpty)
    }

    /// The real-world format strings of the corpus: how many the parser takes (all of them), and
    /// that any other one is refused with a positioned error rather than a crash; each parsed
    /// one prints back to itself.
    @Test(.needsCorpus) func corpusFormatStrings() throws {
        let corpus = Corpus.url("predicates/predicates.jsonl")
        let lines = try String(contentsOf: corpus, encoding: .utf8).split(separator: "\n")
        var parsed = 0
        for line in lines {
            guard let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let format = row["format"] as? String else { continue }
            let arguments = Self.syntheticArguments(for: format)
            do {
                let predicate = try NSPredicate(validatingFormat: format, argumentArray: arguments)
                parsed += 1
                let printed = predicate.predicateFormat
                #expect(try NSPredicate(validatingFormat: printed).predicateFormat == printed, "round trip of \(format)")
            } catch let error as PredicateFormatError {
                #expect(error.position >= 0 && error.position <= format.count)
            }
        }
        #expect(lines.count == 335)
        // A floor, raised as the parser grows: it fails if a change makes the parser refuse
        // corpus strings it took before.
        #expect(parsed >= 335, "parsed \(parsed) of \(lines.count)")
    }

    /// An argument for each substitution of `format`: a key for %K, a number for %d, %f and %a,
    /// a string otherwise.
    static func syntheticArguments(for format: String) -> [Any] {
        var arguments: [Any] = []
        var characters = format.makeIterator()
        while let character = characters.next() {
            guard character == "%", let next = characters.next() else { continue }
            switch next {
            case "K": arguments.append("key")
            case "d", "i", "u", "l", "q", "x": arguments.append(1)
            case "f", "g", "e", "a", "A": arguments.append(1.5)
            case "%": break
            default: arguments.append("value")
            }
        }
        return arguments
    }
}

@Suite struct ToManyPredicateTests {
    /// §7.7: ANY / ALL / NONE over to-many relationships, one-to-many (pets) and many-to-many
    /// (clubs), give the same people through SQL, through the in-memory store and in memory;
    /// a person without pets makes ANY false and ALL true.
    @Test(arguments: [
        ("ANY pets.name == 'Rex'", ["Ada"]),
        ("ANY pets.weight > 5", ["Ada", "Bob"]),
        ("ALL pets.weight > 5", ["Bob", "Cy"]),
        ("NONE pets.name BEGINSWITH[c] 'r'", ["Bob", "Cy"]),
        ("ANY clubs.name == 'Chess'", ["Ada", "Bob"]),
        ("ALL clubs.name == 'Chess'", ["Bob", "Cy"]),
        ("ANY pets.name IN {'Tom', 'Rex'} AND age > 20", ["Ada"]),
        ("pets.@count == 2", ["Ada"]),
        ("pets.@count == 0", ["Cy"]),
        ("clubs.@count >= 1", ["Ada", "Bob"]),
        ("pets.@sum.weight > 11", ["Ada", "Bob"]),
        ("pets.@sum.weight == 0", ["Cy"]),
        ("pets.@max.weight < 15", ["Ada"]),
        ("pets.@avg.weight == 6", ["Ada"]),
        ("pets.@min.name == 'Max'", ["Bob"]),
        ("SUBQUERY(pets, $p, $p.weight > 5).@count == 1", ["Ada", "Bob"]),
        ("SUBQUERY(pets, $p, $p.weight < age).@count == 2", ["Ada"]),
        ("SUBQUERY(clubs, $c, $c.name == 'Golf').@count > 0", ["Ada"]),
        // ANY / ALL over a SUBQUERY member's own to-many.
        ("SUBQUERY(clubs, $c, ANY $c.members.name == 'Bob').@count > 0", ["Ada", "Bob"]),
        ("SUBQUERY(clubs, $c, ALL $c.members.age > 20).@count > 0", ["Ada"]),
        ("SUBQUERY(pets, $p, NONE $p.owner.clubs.name == 'Golf').@count > 0", ["Bob"]),
        ("count:(pets) == 2 OR sum:(pets.weight) > 15", ["Ada", "Bob"]),
        // median: and stddev: (no SQLite built-in: run by the in-memory code inside SQLite).
        // Ada's pets weigh 10 and 2, Bob's 20, Cy has none (nil, which compares with nothing).
        ("median:(pets.weight) == 6", ["Ada"]),
        ("median:(pets.weight) > 5", ["Ada", "Bob"]),
        ("median:(pets.weight) == nil", ["Cy"]),
        ("stddev:(pets.weight) == 4", ["Ada"]),
        ("stddev:(pets.weight) == 0", ["Bob"]),
        ("median:(pets.weight) + stddev:(pets.weight) > 9", ["Ada", "Bob"]),
    ])
    func toManyPredicatesAgreeInSQLAndInMemory(format: String, expected: [String]) throws {
        var results: [[String]] = []
        for kind in StoreKind.allCases {
            let stack = try TestStack(kind)
            let ada = stack.insert("Person", ["name": "Ada", "age": 36, "email": "ada@x.org"])
            let bob = stack.insert("Person", ["name": "Bob", "age": 12, "email": "bob@x.org"])
            _ = stack.insert("Person", ["name": "Cy", "age": 50, "email": "cy@x.org"])
            for (name, weight, owner) in [("Rex", 10.0, ada), ("Tom", 2.0, ada), ("Max", 20.0, bob)] {
                stack.insert("Pet", ["name": name, "weight": weight]).setValue(owner, forKey: "owner")
            }
            let chess = stack.insert("Club", ["name": "Chess"])
            let golf = stack.insert("Club", ["name": "Golf"])
            chess.mutableSetValue(forKey: "members").add(ada)
            chess.mutableSetValue(forKey: "members").add(bob)
            golf.mutableSetValue(forKey: "members").add(ada)
            try stack.context.save()
            try stack.reopen()
            let predicate = NSPredicate(format: format)
            let fetched = try stack.fetch("Person", predicate, sortedBy: "name").map { $0.value(forKey: "name") as! String }
            let filtered = try stack.fetch("Person", nil, sortedBy: "name").filtered(using: predicate).map { $0.value(forKey: "name") as! String }
            results += [fetched, filtered]
        }
        for result in results { #expect(result == expected, "\(format)") }
    }
}

@Suite struct InvalidFetchPredicateTests {
    /// §6.9, §6.10: key paths the entity does not have, to-many keys used as scalars and
    /// collection operators in the wrong place are refused with an error naming them.
    @Test(arguments: [
        ("nickname2 == 'x'", "nickname2"),
        ("pets.name == 'Rex'", "to-many key not allowed"),
        ("name.@count > 1", "must follow a to-many relationship"),
        ("pets.@median.weight > 1", "@median"),
    ])
    func invalidKeyPathsAreRefusedWithTheirName(format: String, fragment: String) throws {
        let stack = try TestStack(.sqlite)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSPredicate(format: format)
        let error = #expect(throws: CocoaError.self) { try stack.context.fetch(request) }
        #expect(error?.code == 134091)
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
    }
}

/// `[n]` (NSNormalizedPredicateOption) supersedes `[c]` and `[d]`: the strings are taken as
/// already normalized, so the comparison is exact (Apple's documentation of the option).
@Suite struct NormalizedOptionTests {
    @Test(arguments: StoreKind.allCases)
    func normalizedComparisonsAreExact(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        for name in ["zoe", "Zoë"] { _ = stack.insert("Person", ["name": name]) }
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.fetch("Person", NSPredicate(format: "name ==[cn] 'ZOE'")).isEmpty)
        #expect(strings(try stack.fetch("Person", NSPredicate(format: "name ==[cdn] 'zoe'"))) == ["zoe"])
        #expect(strings(try stack.fetch("Person", NSPredicate(format: "name ==[cd] 'ZOE'"))) == ["Zoë", "zoe"])
    }
}

/// ANY / ALL / NONE through to-one relationships to a to-many (`owner.clubs.name`).
@Suite struct ToManyThroughToOneTests {
    @Test(arguments: [
        ("ANY owner.clubs.name == 'Golf'", ["Rex", "Tom"]),
        ("NONE owner.clubs.name == 'Golf'", ["Max", "Stray"]),
        ("ANY owner.pets.weight > 15", ["Max"]),
    ])
    func throughAToOneInSQLAndInMemory(format: String, expected: [String]) throws {
        for kind in StoreKind.allCases {
            let stack = try TestStack(kind)
            let ada = stack.insert("Person", ["name": "Ada", "email": "ada@x.org"])
            let bob = stack.insert("Person", ["name": "Bob", "email": "bob@x.org"])
            for (name, weight, owner) in [("Rex", 10.0, ada), ("Tom", 2.0, ada), ("Max", 20.0, bob)] {
                stack.insert("Pet", ["name": name, "weight": weight]).setValue(owner, forKey: "owner")
            }
            _ = stack.insert("Pet", ["name": "Stray"])
            stack.insert("Club", ["name": "Golf"]).mutableSetValue(forKey: "members").add(ada)
            try stack.context.save()
            try stack.reopen()
            let predicate = NSPredicate(format: format)
            let fetched = try stack.fetch("Pet", predicate, sortedBy: "name").map { $0.value(forKey: "name") as! String }
            let filtered = try stack.fetch("Pet", nil, sortedBy: "name").filtered(using: predicate).map { $0.value(forKey: "name") as! String }
            #expect(fetched == expected, "\(kind) \(format)")
            #expect(filtered == expected, "\(kind) \(format) in memory")
        }
    }
}
