import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// The expression language beyond key paths and constants: arithmetic, functions, TERNARY,
/// SUBQUERY, indexing, set operations, CAST and FUNCTION, parsed, printed and evaluated.
@Suite struct ExpressionFormatTests {
    /// What each format parses to prints as `printed`, which parses back to itself.
    @Test(arguments: [
        ("a + 2 * 3", "a + (2 * 3)"),
        ("(a + 2) * 3", "(a + 2) * 3"),
        ("a - b - c", "(a - b) - c"),
        ("a / b ** 2", "a / (b ** 2)"),
        ("2 ** 3 ** 2", "2 ** (3 ** 2)"),
        ("-a", "0 - a"),
        ("- 3", "-3"),
        ("(-2) ** 2", "(-2) ** 2"),
        ("1 * -1", "1 * -1"),
        ("sum(scores)", "sum:(scores)"),
        ("SUM(scores)", "sum:(scores)"),
        ("count:(pets)", "count:(pets)"),
        ("now()", "now()"),
        ("modulus:by:(age, 7)", "modulus:by:(age, 7)"),
        ("uppercase(name)", "uppercase:(name)"),
        ("TERNARY(age > 17, 'adult', 'minor')", "TERNARY(age > 17, \"adult\", \"minor\")"),
        ("SUBQUERY(pets, $p, $p.weight > 5 AND name == 'x').@count", "SUBQUERY(pets, $p, $p.weight > 5 AND name == \"x\").@count"),
        ("tags[FIRST]", "tags[FIRST]"),
        ("tags[last]", "tags[LAST]"),
        ("tags[SIZE]", "tags[SIZE]"),
        ("tags[#size]", "tags[#size]"),
        ("tags[2].name", "tags[2].name"),
        ("(SELF.h)['A']", "h[\"A\"]"),
        ("(a + b)[0]", "(a + b)[0]"),
        ("$x.name.length", "$x.name.length"),
        ("{1, 2} UNION {3}", "{1, 2} UNION {3}"),
        ("a INTERSECT b MINUS c", "(a INTERSECT b) MINUS c"),
        ("CAST(age, 'NSString')", "CAST(age, \"NSString\")"),
        ("CAST(0, 'NSDate')", "CAST(0.0, \"NSDate\")"),
        ("FUNCTION(now(), 'dateByAddingTimeInterval:', -86400)", "FUNCTION(now(), \"dateByAddingTimeInterval:\", -86400)"),
        ("FUNCTION(SELF, 'valueForKey:', 'name')", "name"),
        ("size + first + last + minus", "((size + first) + last) + minus"),
        ("TERNARY(a == 1, b, c).length", "TERNARY(a == 1, b, c).length"),
    ])
    func expressionsParseAndPrintBack(format: String, printed: String) throws {
        let expression = try NSExpression(validatingFormat: format)
        #expect(expression.description == printed)
        #expect(try NSExpression(validatingFormat: printed).description == printed)
    }

    /// Malformed expressions are errors naming what was expected and where.
    @Test(arguments: [
        ("a +", 3, "expected an expression"),
        ("frobnicate(1)", 0, "unknown function frobnicate"),
        ("sum(1, 2)", 0, "unknown function sum with 2 arguments"),
        ("sum(1", 5, "expected , or )"),
        ("SUBQUERY(pets, p, p.weight > 1)", 15, "iterator variable"),
        ("SUBQUERY(pets, $p)", 17, ", after the SUBQUERY variable"),
        ("TERNARY(a == 1, 2)", 17, ", before the TERNARY false expression"),
        ("tags[1", 6, "expected ]"),
        ("CAST(1)", 4, "CAST needs a value and a type name string"),
        ("FUNCTION(SELF)", 8, "FUNCTION needs a receiver and a selector name string"),
        ("count:", 6, "( after the function name count:"),
        ("a ** ", 5, "expected an expression"),
        ("FETCH($r, $c, 3)", 14, "YES or NO"),
        ("FETCH($r, $c)", 12, ", after the FETCH context"),
        ("FETCH($r $c, NO)", 9, ", after the FETCH request"),
    ])
    func malformedExpressionsAreErrors(format: String, position: Int, reason: String) {
        do {
            _ = try NSExpression(validatingFormat: format)
            Issue.record("\(format) should not parse")
        } catch let error as PredicateFormatError {
            #expect(error.position == position, "\(error)")
            #expect(error.reason.contains(reason), "\(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// `%a` (a hexadecimal floating-point argument in C) takes a number, like `%f`; anything
    /// else is a clear error.
    @Test func percentATakesANumber() throws {
        #expect(try NSPredicate(validatingFormat: "age <= %a", 2.5).predicateFormat == "age <= 2.5")
        #expect(throws: PredicateFormatError.self) { try NSPredicate(validatingFormat: "age <= %a", "x") }
    }

    /// `$FETCH_SOURCE.%K`: a key path read from a variable.
    @Test func variableKeyPath() throws {
        let predicate = try NSPredicate(validatingFormat: "%K == $FETCH_SOURCE.%K", "authorAlias", "alias")
        #expect(predicate.predicateFormat == "authorAlias == $FETCH_SOURCE.alias")
        #expect(predicate.evaluate(with: ["authorAlias": "ale"], substitutionVariables: ["FETCH_SOURCE": ["alias": "ale"]]))
        #expect(predicate.withSubstitutionVariables(["FETCH_SOURCE": ["alias": "bo"]]).predicateFormat == "authorAlias == \"bo\"")
    }

    /// Deep chains of operators are an error, not a stack overflow when printed or evaluated.
    @Test func longOperatorChainsAreBounded() async {
        await #expect(processExitsWith: .success) {
            let formats = [Array(repeating: "a", count: 100_000).joined(separator: " + "),
                           "a" + String(repeating: "[0]", count: 100_000),
                           String(repeating: "-", count: 100_000) + "a",
                           String(repeating: "sum(", count: 100_000)]
            for format in formats {
                // Each must be refused with a positioned error (exit 2 if one is taken).
                if (try? NSExpression(validatingFormat: format)) != nil { exit(2) }
            }
        }
        #expect(throws: PredicateFormatError.self) {
            try NSExpression(validatingFormat: Array(repeating: "a", count: 1_000).joined(separator: " * "))
        }
        #expect(throws: Never.self) {
            try NSExpression(validatingFormat: Array(repeating: "a", count: 100).joined(separator: " * "))
        }
    }
}

@Suite struct ExpressionObjectModelTests {
    @Test func conditional() {
        let condition = NSPredicate(format: "age > 17")
        let expression = NSExpression(forConditional: condition, trueExpression: NSExpression(forConstantValue: "adult"),
                                      falseExpression: NSExpression(forKeyPath: "guardian"))
        #expect(expression.expressionType == .conditional)
        #expect(expression.expressionType.rawValue == 20)
        #expect(expression.predicate == condition)
        #expect(expression.trueExpression.constantValue as? String == "adult")
        #expect(expression.falseExpression.keyPath == "guardian")
        #expect(expression.description == "TERNARY(age > 17, \"adult\", guardian)")
        #expect(expression.expressionValue(with: ["age": 30], context: nil) as? String == "adult")
        #expect(expression.expressionValue(with: ["age": 3, "guardian": "Bo"], context: nil) as? String == "Bo")
    }

    @Test func subquery() throws {
        let expression = NSExpression(forSubquery: NSExpression(forKeyPath: "pets"), usingIteratorVariable: "pet",
                                      predicate: NSPredicate(format: "$pet.weight > limit"))
        #expect(expression.expressionType == .subquery)
        #expect(expression.expressionType.rawValue == 13)
        #expect((expression.collection as? NSExpression)?.keyPath == "pets")
        #expect(expression.variable == "pet")
        #expect(expression.predicate.predicateFormat == "$pet.weight > limit")
        // `limit` belongs to the evaluated object, `$pet` to each member.
        let owner: [String: Any] = ["limit": 5, "pets": [["weight": 3], ["weight": 9], ["weight": 12]]]
        let matches = try #require(expression.expressionValue(with: owner, context: nil) as? [Any])
        #expect(matches.count == 2)
        #expect(NSPredicate(format: "SUBQUERY(pets, $pet, $pet.weight > limit).@count == 2").evaluate(with: owner))
        // The iterator variable is never substituted; other variables are.
        let withVariable = NSPredicate(format: "SUBQUERY(pets, $pet, $pet.weight > $LIMIT).@count == 1")
        #expect(withVariable.withSubstitutionVariables(["LIMIT": 10, "pet": 0]).predicateFormat
                == "SUBQUERY(pets, $pet, $pet.weight > 10).@count == 1")
        #expect(withVariable.evaluate(with: owner, substitutionVariables: ["LIMIT": 10]))
    }

    @Test func setExpressions() throws {
        let union = NSExpression(forUnionSet: NSExpression(format: "{1, 2}"), with: NSExpression(format: "{2, 3.0}"))
        #expect(union.expressionType == .unionSet)
        #expect(union.left.description == "{1, 2}")
        #expect(union.right.description == "{2, 3.0}")
        #expect((union.expressionValue(with: nil, context: nil) as? [Any])?.count == 3)
        let intersect = NSExpression(forIntersectSet: NSExpression(forKeyPath: "a"), with: NSExpression(forKeyPath: "b"))
        #expect(intersect.description == "a INTERSECT b")
        #expect((intersect.expressionValue(with: ["a": [1, 2, 3], "b": [3, 1]], context: nil) as? [Int]) == [1, 3])
        let minus = NSExpression(forMinusSet: NSExpression(forKeyPath: "a"), with: NSExpression(forKeyPath: "b"))
        #expect((minus.expressionValue(with: ["a": [1, 2, 3], "b": [3, 1]], context: nil) as? [Int]) == [2])
        #expect(NSPredicate(format: "(a UNION b).@count == 4").evaluate(with: ["a": [1, 2], "b": [3, 4, 1]]))
    }

    @Test func functionParts() {
        let expression = NSExpression(format: "add:to:(age, 2)")
        #expect(expression.expressionType == .function)
        #expect(expression.function == "add:to:")
        #expect(expression.arguments?.map(\.description) == ["age", "2"])
        #expect(expression.operand == nil)
        #expect(expression.description == "age + 2")
        let method = NSExpression(format: "FUNCTION(name, 'uppercaseString')")
        #expect(method.operand?.keyPath == "name")
        #expect(method.function == "uppercaseString")
        #expect(method.expressionValue(with: ["name": "zoë"], context: nil) as? String == "ZOË")
    }

    /// Variables come from the evaluation context.
    @Test func contextVariables() {
        let context = NSMutableDictionary()
        context["RATE"] = 3
        #expect(NSExpression(format: "price * $RATE").expressionValue(with: ["price": 2], context: context) as? Int == 6)
    }

    /// `NSExpression(format:)` stops the program on a malformed format, as Core Data does.
    @Test func malformedFormatTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = NSExpression(format: "1 +")
        }
    }
}

@Suite struct ExpressionEvaluationTests {
    private static var object: [String: Any] { [
        "age": 36, "height": 1.5, "name": "Zoë", "nothing": NSNull(), "balance": Decimal(string: "10.10")!,
        "scores": [3, 1, 4, 1, 5], "weights": [2.5, 3.5], "tags": ["a", "b", "c"], "h": ["A": 1, "B": 2],
        "flag": true, "emoji": "a😀",
    ] }

    /// Each expression's value for the object above, printed; `nil` for no value.
    @Test(arguments: [
        ("age + 2", "38"), ("age - 40", "-4"), ("age * 2", "72"), ("age / 4", "9"), ("age / 5", "7.2"),
        ("modulus:by:(age, 5)", "1"), ("modulus:by:(-7, 3)", "-1"), ("age ** 2", "1296"), ("2 ** -1", "0.5"),
        ("height * 2", "3.0"), ("age + height", "37.5"), ("9223372036854775807 + 1", "9.223372036854776e+18"),
        ("balance * 3", "30.3"), ("balance + 0.1", "10.2"), ("age / 0", "nil"), ("height / 0", "nil"),
        ("modulus:by:(age, 0)", "nil"), ("nothing + 1", "nil"), ("missing * 2", "nil"), ("name + 1", "nil"),
        ("flag + 1", "2"), ("-age", "-36"),
        ("sum(scores)", "14"), ("sum(weights)", "6.0"), ("count(scores)", "5"), ("min(scores)", "1"), ("max(tags)", "c"),
        ("average(scores)", "2.8"), ("median(scores)", "3"), ("median({1, 2, 4, 8})", "3"), ("median({1, 2})", "1.5"),
        ("mode(scores)", "[1]"), ("stddev({2, 4, 4, 4, 5, 5, 7, 9})", "2.0"), ("average({})", "nil"), ("sum({})", "0"),
        ("sum(age)", "36"), ("count(nothing)", "0"),
        ("sqrt(16)", "4.0"), ("log(1000)", "3.0"), ("ln(1)", "0.0"), ("exp(0)", "1.0"), ("abs(-3)", "3"), ("abs(-2.5)", "2.5"),
        ("ceiling(1.2)", "2.0"), ("floor(-1.2)", "-2.0"), ("trunc(-1.7)", "-1.0"), ("ceiling(7)", "7"),
        ("trunc(balance)", "10"), ("raise:toPower:(2, 10)", "1024"),
        ("bitwiseAnd:with:(12, 10)", "8"), ("bitwiseOr:with:(12, 10)", "14"), ("bitwiseXor:with:(12, 10)", "6"),
        ("leftshift:by:(1, 4)", "16"), ("rightshift:by:(16, 2)", "4"), ("onesComplement(0)", "-1"),
        ("uppercase(name)", "ZOË"), ("lowercase('ÀB')", "àb"), ("length(emoji)", "3"), ("emoji.length", "3"),
        ("name.length", "3"), ("uppercase(age)", "nil"), ("noindex(age)", "36"),
        ("tags[0]", "a"), ("tags[FIRST]", "a"), ("tags[LAST]", "c"), ("tags[SIZE]", "3"), ("tags[3]", "nil"),
        ("tags[-1]", "nil"), ("h['B']", "2"), ("h[SIZE]", "2"), ("h['Z']", "nil"), ("SELF['age']", "36"),
        ("scores[1 + 1]", "4"),
        ("CAST('42', 'NSNumber')", "42"), ("CAST('4.5', 'NSNumber')", "4.5"), ("CAST(age, 'NSString')", "36"),
        ("CAST(height, 'NSString')", "1.5"), ("CAST(CAST(60, 'NSDate'), 'NSNumber')", "60.0"),
        ("CAST(age, 'NSWidget')", "nil"),
        ("TERNARY(age > 30, 'old', 'young')", "old"), ("TERNARY(nothing == nil, 1, 2)", "1"),
        ("TERNARY(missing > 1, 1, 2)", "2"),
        ("FUNCTION(name, 'length')", "3"), ("FUNCTION(age, 'stringValue')", "36"),
        ("FUNCTION(height, 'intValue')", "1"), ("FUNCTION(name, 'frobnicate')", "nil"),
        ("FUNCTION(SELF, 'uppercase:', name)", "ZOË"),
        ("distanceToLocation:fromLocation:(1, 2)", "nil"),
    ])
    func values(format: String, expected: String) throws {
        let value = try NSExpression(validatingFormat: format).expressionValue(with: Self.object, context: nil)
        #expect(Self.text(value) == expected, "\(format)")
    }

    static func text(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: "nil"
        case let array as [Any]: "[" + array.map { text($0) }.joined(separator: ", ") + "]"
        default: "\(value!)"
        }
    }

    /// Integer arithmetic stays integral, as NSNumber does; exact quotients are integers.
    @Test func resultTypes() {
        #expect(NSExpression(format: "4 + 5 - 2**3").expressionValue(with: nil, context: nil) as? Int == 1)
        #expect(NSExpression(format: "6 / 3").expressionValue(with: nil, context: nil) as? Int == 2)
        #expect(NSExpression(format: "7 / 2").expressionValue(with: nil, context: nil) as? Double == 3.5)
        #expect(NSExpression(format: "%@ * 3", Decimal(string: "0.1")!).expressionValue(with: nil, context: nil) as? Decimal
                == Decimal(string: "0.3"))
        #expect(NSExpression(format: "now()").expressionValue(with: nil, context: nil) is Date)
        let random = NSExpression(format: "random()").expressionValue(with: nil, context: nil) as? Double
        #expect(random.map { $0 >= 0 && $0 < 1 } == true)
        let member = NSExpression(format: "random:({7, 8})").expressionValue(with: nil, context: nil) as? Int
        #expect(member == 7 || member == 8)
        let below = NSExpression(format: "randomn:(3)").expressionValue(with: nil, context: nil) as? Int
        #expect(below.map { (0..<3).contains($0) } == true)
    }

    /// Predicates with the new expressions, evaluated in memory.
    @Test(arguments: [
        ("age + 94 < 200", true), ("age * 2 == 72", true), ("nothing + 1 == nil", true), ("nothing + 1 > 0", false),
        ("sum(scores) == 14", true), ("scores[SIZE] == 5", true), ("tags[LAST] == 'c'", true),
        ("(SELF.h)['A'] == 1", true), ("TERNARY(flag == YES, YES, NO) == YES", true),
        ("TERNARY(TERNARY(nothing != nil, nothing.length, nil) != nil, 1, 1 * -1) > 0", false),
        ("TERNARY(name != NULL, name, '').length == 3", true),
        ("SUBQUERY(scores, $s, $s > 2).@count == 3", true), ("SUBQUERY(scores, $s, $s == age).@count == 0", true),
        ("SUBQUERY(scores, $s, NOT ($s == 1)).@count == 3", true), ("uppercase(name) == 'ZOË'", true),
        ("name.length == 3", true), ("'b' IN tags UNION {'z'}", true),
    ])
    func predicates(format: String, expected: Bool) throws {
        #expect(try NSPredicate(validatingFormat: format).evaluate(with: Self.object) == expected, "\(format)")
    }
}
