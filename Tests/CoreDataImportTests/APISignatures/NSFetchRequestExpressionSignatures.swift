import Foundation
import CoreData

extension APISignatures {
    static func nsFetchRequestExpression(_ check: inout Checks) {
        check("NSFetchRequestExpressionType") {
            let _: NSExpression.ExpressionType = NSFetchRequestExpressionType
        }
        check("NSFetchRequestExpression") {
            let _: NSExpression.Type = NSFetchRequestExpression.self
            let expression = NSFetchRequestExpression.expression(forFetch: NSExpression(forConstantValue: nil),
                                                                 context: NSExpression(forConstantValue: nil), countOnly: true)
            let _: NSFetchRequestExpression? = expression as? NSFetchRequestExpression
        }
        check("NSFetchRequestExpression.expression(forFetch:context:countOnly:)") {
            let _: (NSExpression, NSExpression, Bool) -> NSExpression = NSFetchRequestExpression.expression(forFetch:context:countOnly:)
        }
        check("NSFetchRequestExpression.requestExpression") {
            let _: KeyPath<NSFetchRequestExpression, NSExpression> = \.requestExpression
        }
        check("NSFetchRequestExpression.contextExpression") {
            let _: KeyPath<NSFetchRequestExpression, NSExpression> = \.contextExpression
        }
        check("NSFetchRequestExpression.isCountOnlyRequest") {
            let _: KeyPath<NSFetchRequestExpression, Bool> = \.isCountOnlyRequest
        }
    }
}
