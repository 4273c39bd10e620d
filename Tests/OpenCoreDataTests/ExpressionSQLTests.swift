import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Arithmetic, functions, TERNARY and SUBQUERY in fetches: the SQLite store's SQL, the in-memory
/// store and `filtered(using:)` select the same objects.
@Suite struct ExpressionSQLTests {
    private func stack(_ kind: StoreKind) throws -> TestStack {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada", "age": 36, "height": 1.7, "born": Date(timeIntervalSinceReferenceDate: 0),
                                          "small": Int16(3), "balance": Decimal(string: "10.5")!])
        let bob = stack.insert("Person", ["name": "Bob", "age": 12, "height": 1.4, "born": Date(timeIntervalSinceReferenceDate: 31_536_000),
                                          "small": Int16(4), "active": false])
        _ = stack.insert("Person", ["name": "Cy", "age": 50])
        _ = stack.insert("Person", ["name": "Dee😀", "age": 20, "height": 1.9])
        _ = stack.insert("Person", ["name": "Zoë", "age": 7, "height": 1.2])
        for (name, weight, owner) in [("Rex", 10.0, ada), ("Tom", 2.0, ada), ("Max", 20.0, bob)] {
            stack.insert("Pet", ["name": name, "weight": weight]).setValue(owner, forKey: "owner")
        }
        _ = stack.insert("Pet", ["name": "Stray", "weight": 4.0])
        let chess = stack.insert("Club", ["name": "Chess"])
        let golf = stack.insert("Club", ["name": "Golf"])
        chess.mutableSetValue(forKey: "members").add(ada)
        chess.mutableSetValue(forKey: "members").add(bob)
        golf.mutableSetValue(forKey: "members").add(ada)
        try stack.context.save()
        try stack.reopen()
        return stack
    }

    /// The names `predicate` selects among `entity`'s objects: fetched from each store, and
    /// filtered in memory.
    private func results(_ entity: String, _ predicate: NSPredicate) throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        for kind in StoreKind.allCases {
            let stack = try stack(kind)
            do {
                out["\(kind) fetch"] = try stack.fetch(entity, predicate, sortedBy: "name").map { $0.value(forKey: "name") as! String }
            } catch {
                out["\(kind) fetch"] = ["ERROR \(error.message)"]
            }
            out["\(kind) filtered"] = try stack.fetch(entity, nil, sortedBy: "name").filtered(using: predicate)
                .map { $0.value(forKey: "name") as! String }
        }
        return out
    }

    @Test(arguments: [
        ("age + 94 < 120", ["Bob", "Dee😀", "Zoë"]),
        ("age * 2 - 10 == 62", ["Ada"]),
        ("age / 8 > 4.4", ["Ada", "Cy"]),
        ("(age + 4) / 2 == 20", ["Ada"]),
        ("modulus:by:(age, 5) == 0", ["Cy", "Dee😀"]),
        ("height * 10 >= 15", ["Ada", "Dee😀"]),
        ("height + small == nil", ["Cy", "Dee😀", "Zoë"]),
        ("small + 1 == 4", ["Ada"]),
        ("-age < -30", ["Ada", "Cy"]),
        ("age > 10 AND NOT (age + 1 > 40)", ["Ada", "Bob", "Dee😀"]),
        ("abs(age - 30) <= 6", ["Ada"]),
        ("uppercase(name) == 'ZOË'", ["Zoë"]),
        ("lowercase(name) BEGINSWITH 'd'", ["Dee😀"]),
        ("uppercase(name) ==[c] 'zoë'", ["Zoë"]),
        ("name.length == 5", ["Dee😀"]),
        ("length(name) < 3", ["Cy"]),
        ("'Ada Lovelace' BEGINSWITH name", ["Ada"]),
        ("TERNARY(age > 30, 'old', 'young') == 'old'", ["Ada", "Cy"]),
        ("TERNARY(height != nil, height, 0) < 1.5", ["Bob", "Cy", "Zoë"]),
        ("TERNARY(active == YES, 1, 0) == 1", ["Ada", "Cy", "Dee😀", "Zoë"]),
        ("TERNARY(height != nil, name, '').length == 3", ["Ada", "Bob", "Zoë"]),
        ("YES == YES AND age > 40", ["Cy"]),
        ("born < now()", ["Ada", "Bob"]),
        ("born > FUNCTION(now(), 'dateByAddingTimeInterval:', -86400 * 365 * 100)", ["Ada", "Bob"]),
        ("CAST(born, 'NSNumber') < 1000", ["Ada"]),
        ("SUBQUERY(pets, $p, $p.weight > 5).@count == 1", ["Ada", "Bob"]),
        ("ANY pets.weight > age - 30", ["Ada", "Bob"]),
        ("ALL pets.weight < age / 4", ["Cy", "Dee😀", "Zoë"]),
        ("SUBQUERY(pets, $p, $p.weight > 5 AND $p.name BEGINSWITH 'R').@count > 0", ["Ada"]),
        ("SUBQUERY(pets, $p, $p.weight * 2 > age).@count > 0", ["Bob"]),
        ("SUBQUERY(pets, $p, $p.weight > 1).@sum.weight > 11", ["Ada", "Bob"]),
        ("SUBQUERY(pets, $p, NOT ($p.name == 'Rex')).@count == 0", ["Cy", "Dee😀", "Zoë"]),
        ("count:(pets) == 2", ["Ada"]),
        ("sum:(pets.weight) > 11", ["Ada", "Bob"]),
        ("average:(pets.weight) == 6", ["Ada"]),
        ("pets[SIZE] == 0", ["Cy", "Dee😀", "Zoë"]),
        ("count:(SUBQUERY(clubs, $c, $c.name == 'Chess')) == 1", ["Ada", "Bob"]),
    ])
    func peopleAgree(format: String, expected: [String]) throws {
        for (source, names) in try results("Person", NSPredicate(format: format)) {
            #expect(names == expected, "\(format): \(source)")
        }
    }

    /// Core Data's comparison rules at their edges (§7.1–7.7, §7.11): wildcards, empty lists,
    /// numbers of different widths, nil, negation, booleans, options, and quantifiers over
    /// empty to-manys.
    @Test(arguments: [
        ("name LIKE[c] 'a*a'", ["Ada"]),
        ("name LIKE 'B?b'", ["Bob"]),
        ("name LIKE 'B*'", ["Bob"]),
        ("name IN {}", []),
        ("name IN {'Cy', 'Zed'}", ["Cy"]),
        ("small == 3.0", ["Ada"]),
        ("small > 3.5", ["Bob"]),
        ("height < 1.5", ["Bob", "Zoë"]),
        ("NOT (height < 1.5)", ["Ada", "Cy", "Dee😀"]),
        ("height == nil", ["Cy"]),
        ("height != nil AND height >= 1.7", ["Ada", "Dee😀"]),
        ("active == NO", ["Bob"]),
        ("active == YES AND age < 10", ["Zoë"]),
        ("name BEGINSWITH[cd] 'zo'", ["Zoë"]),
        ("name ==[d] 'Zoe'", ["Zoë"]),
        ("name CONTAINS[c] 'E'", ["Dee😀"]),
        ("name MATCHES '[A-C].*'", ["Ada", "Bob", "Cy"]),
        ("name ENDSWITH '😀'", ["Dee😀"]),
        ("age BETWEEN {12, 20}", ["Bob", "Dee😀"]),
        ("ANY pets.weight > 15", ["Bob"]),
        ("ALL pets.weight > 5", ["Bob", "Cy", "Dee😀", "Zoë"]),
        ("NONE pets.weight > 5", ["Cy", "Dee😀", "Zoë"]),
        ("ANY clubs.name == 'Golf'", ["Ada"]),
        ("born > CAST(0, 'NSDate')", ["Bob"]),
    ])
    func comparisonEdgesAgree(format: String, expected: [String]) throws {
        for (source, names) in try results("Person", NSPredicate(format: format)) {
            #expect(names == expected, "\(format): \(source)")
        }
    }

    /// To-one paths before a to-many relationship, and SUBQUERYs inside SUBQUERYs.
    @Test(arguments: [
        ("Pet", "owner.pets.@count == 2", ["Rex", "Tom"]),
        ("Pet", "SUBQUERY(owner.pets, $p, $p.weight > weight).@count == 0", ["Max", "Rex", "Stray"]),
        ("Pet", "owner.age + weight > 40", ["Rex"]),
        ("Pet", "owner.pets.@count == nil", ["Stray"]),
        ("Pet", "count:(owner.pets) == 0", ["Stray"]),
        ("Pet", "SUBQUERY(owner.pets, $p, $p.weight > 0).@count == 0", ["Stray"]),
        ("Pet", "sum:(owner.pets.weight) == 0", ["Stray"]),
        ("Club", "SUBQUERY(members, $m, $m.age < 20).@count > 0", ["Chess"]),
        ("Club", "SUBQUERY(members, $m, SUBQUERY($m.pets, $p, $p.weight > 15).@count > 0).@count > 0", ["Chess"]),
        ("Club", "SUBQUERY(members, $m, $m.pets.@count > 1).@count == members.@count", ["Golf"]),
        ("Club", "SUBQUERY(members, $m, $m.age > 30).@count == members.@count", ["Golf"]),
    ])
    func relationshipsAgree(entity: String, format: String, expected: [String]) throws {
        for (source, names) in try results(entity, NSPredicate(format: format)) {
            #expect(names == expected, "\(format): \(source)")
        }
    }

    /// What SQL cannot compute exactly as memory does is refused (134091) with a message naming
    /// it, never run with a different answer; the in-memory store evaluates it.
    @Test(arguments: [
        ("random:(age) > 1000", "random:"),
        ("balance * 2 > 1", "decimal"),
        ("modulus:by:(height, 1) > 0", "modulus:by: of a non-integer"),
        ("age + 1 == 'x'", "compares a number with \"x\""),
        ("age + 1 > height + name", "needs numbers"),
        ("SUBQUERY(pets, $p, $p.weight > 1) == nil", "a SUBQUERY is a collection"),
        ("tags[0] == 'a'", "indexing"),
        ("FUNCTION(name, 'uppercaseString') == 'X'", "methods are only called in memory"),
        ("uppercase(age) == 'X'", "uppercase: needs a string"),
        ("$LIMIT + age > 1", "$LIMIT has no value"),
        ("mode:(pets.weight) == 1", "mode:"),
        ("median:(pets.name) == 'a'", "median: needs numbers"),
        ("SUBQUERY(tags, $t, $t == 'a').@count > 0", "not a to-many relationship"),
        ("{1} UNION {2} CONTAINS age", "can't compute with"),
    ])
    func unsupportedInSQLIsAnError(format: String, fragment: String) throws {
        let predicate = NSPredicate(format: format)
        let sqlite = try stack(.sqlite)
        let error = #expect(throws: CocoaError.self) { try sqlite.fetch("Person", predicate) }
        #expect(error?.code == 134091)
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
        let memory = try stack(.inMemory)
        #expect(throws: Never.self) { try memory.fetch("Person", predicate) }
    }

    /// A function expression built in code with the wrong number of arguments, or one that is no
    /// built-in function, is an error in SQL; in memory it is nil.
    @Test func functionsBuiltInCodeWithTheWrongArguments() throws {
        let sqlite = try stack(.sqlite)
        for (expression, fragment) in [
            (NSExpression(forFunction: "add:to:", arguments: [NSExpression(forKeyPath: "age")]), "takes 2 arguments, not 1"),
            (NSExpression(forFunction: "frobnicate:", arguments: [NSExpression(forKeyPath: "age")]), "frobnicate: is only evaluated in memory"),
        ] {
            let predicate = NSComparisonPredicate(leftExpression: expression, rightExpression: NSExpression(forConstantValue: 1),
                                                  modifier: .direct, type: .equalTo)
            let error = #expect(throws: CocoaError.self) { try sqlite.fetch("Person", predicate) }
            #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
            #expect(expression.expressionValue(with: ["age": 3], context: nil) == nil)
        }
    }

    /// Values are bound, never spliced into the SQL; `now()` is computed once and bound.
    @Test func valuesAreBound() throws {
        let sqlite = try stack(.sqlite)
        let store = try #require(sqlite.coordinator.persistentStores.first as? SQLiteStore)
        let person = try #require(sqlite.model.entitiesByName["Person"])
        var compiler = PredicateSQLCompiler<SQLiteDialect>(schema: store.schema, mapping: try #require(store.schema.mapping(for: person)))
        let predicate = NSPredicate(format: "age * 7 + 1234567 > %d AND TERNARY(name == 'Quux', 1, 0) == 0 AND born < now()", 7654321)
        let fragment = try compiler.whereClause(for: predicate)
        let sql = fragment.text
        #expect(!sql.contains("1234567") && !sql.contains("7654321") && !sql.contains("Quux"), "\(sql)")
        #expect(sql.contains("CASE WHEN"))
        #expect(fragment.arguments.prefix(3) == [.integer(7), .integer(1234567), .integer(7654321)])
        #expect(fragment.arguments.contains(.text("Quux")))
        #expect(fragment.arguments.contains { if case .real = $0 { true } else { false } })
        #expect(fragment.arguments.count == sql.filter { $0 == "?" }.count)
    }
}
