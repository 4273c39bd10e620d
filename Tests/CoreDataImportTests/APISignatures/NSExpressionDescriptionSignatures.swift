import Foundation
import CoreData

extension APISignatures {
    static func nsExpressionDescription(_ check: inout Checks) {
        check("NSExpressionDescription") {
            let _: NSPropertyDescription = NSExpressionDescription()
        }
        check("NSExpressionDescription.init()") {
            let _: NSExpressionDescription = NSExpressionDescription()
            let _: (String) -> NSExpressionDescription = NSExpressionDescription.init(name:)
        }
        check("NSExpressionDescription.expression") {
            let _: ReferenceWritableKeyPath<NSExpressionDescription, NSExpression?> = \.expression
        }
        check("NSExpressionDescription.expressionResultType") {
            let _: ReferenceWritableKeyPath<NSExpressionDescription, NSAttributeType> = \.expressionResultType
        }
        check("NSExpressionDescription.resultType") {
            let _: ReferenceWritableKeyPath<NSExpressionDescription, NSAttributeDescription.AttributeType> = \.resultType
        }
    }
}
