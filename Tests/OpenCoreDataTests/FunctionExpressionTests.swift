import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Function expressions: how compiled models archive `$FETCH_SOURCE.alias` (a key path read
/// from a variable) and functions such as `now()`.
@Suite struct FunctionExpressionTests {
    private let fetchSourceAlias = NSExpression(forFunction: NSExpression(forVariable: "FETCH_SOURCE"),
                                                selectorName: "valueForKeyPath:", arguments: [NSExpression(forKeyPath: "alias")])

    @Test func keyPathOfAVariable() {
        #expect(fetchSourceAlias.expressionType == .function)
        #expect(fetchSourceAlias.function == "valueForKeyPath:")
        #expect(fetchSourceAlias.operand?.variable == "FETCH_SOURCE")
        #expect(fetchSourceAlias.arguments?.map(\.keyPath) == ["alias"])
        #expect(fetchSourceAlias.description == "$FETCH_SOURCE.alias")
        #expect(fetchSourceAlias.expressionValue(with: nil, context: nil) == nil)
        #expect(NSExpression(forKeyPath: "alias").arguments == nil)
    }

    @Test func substitutingTheVariableMakesAConstant() {
        let predicate = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "authorAlias"), rightExpression: fetchSourceAlias,
                                              modifier: .direct, type: .equalTo)
        #expect(predicate.predicateFormat == "authorAlias == $FETCH_SOURCE.alias")
        let bound = predicate.withSubstitutionVariables(["FETCH_SOURCE": ["alias": "ale"]])
        #expect(bound.predicateFormat == "authorAlias == \"ale\"")
        #expect(bound.evaluate(with: ["authorAlias": "ale"]))
        #expect(!bound.evaluate(with: ["authorAlias": "bob"]))
        #expect(predicate.evaluate(with: ["authorAlias": "ale"], substitutionVariables: ["FETCH_SOURCE": ["alias": "ale"]]))
    }

    @Test func namedFunctions() {
        let now = NSExpression(forFunction: "now", arguments: [])
        #expect(now.description == "now()")
        #expect(now.expressionValue(with: nil, context: nil) is Date)
        let count = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "items")])
        #expect(count.description == "count:(items)")
        #expect(count.expressionValue(with: ["items": [1, 2, 3]], context: nil) as? Int == 3)
        #expect(NSExpression(forFunction: "unknown:", arguments: [1]).expressionValue(with: nil, context: nil) == nil)
        let method = NSExpression(forFunction: NSExpression(forConstantValue: "x"), selectorName: "uppercaseString", arguments: nil)
        #expect(method.description == "FUNCTION(\"x\", \"uppercaseString\")")
    }
}
