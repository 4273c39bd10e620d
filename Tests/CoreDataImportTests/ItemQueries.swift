// A file in the style of an app's query helpers: it names the predicate and sort classes as
// types, extends them and constructs them, with Foundation imported beside CoreData.
import Foundation
import CoreData

extension NSPredicate {
    /// Items whose name starts with `prefix`, ignoring case.
    static func named(startingWith prefix: String) -> NSPredicate {
        NSPredicate(format: "name BEGINSWITH[c] %@", prefix)
    }
}

extension NSComparisonPredicate {
    /// `score > minimum`, built from expressions.
    static func score(above minimum: Int) -> NSComparisonPredicate {
        NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "score"),
                              rightExpression: NSExpression(forConstantValue: minimum),
                              modifier: .direct, type: .greaterThan, options: [])
    }
}

extension NSCompoundPredicate {
    convenience init(allOf predicates: [NSPredicate]) {
        self.init(andPredicateWithSubpredicates: predicates)
    }
}

extension NSExpression {
    static let score = NSExpression(forKeyPath: "score")
}

extension NSSortDescriptor {
    static let byScoreDescending = NSSortDescriptor(key: "score", ascending: false)
}

enum ItemQueries {
    static func request(matching predicate: NSPredicate?, sortedBy sortDescriptors: [NSSortDescriptor]) -> NSFetchRequest<Item> {
        let request = Item.fetchRequest()
        request.predicate = predicate
        request.sortDescriptors = sortDescriptors
        return request
    }

    static func goodItems(startingWith prefix: String) -> NSCompoundPredicate {
        NSCompoundPredicate(allOf: [.named(startingWith: prefix), NSComparisonPredicate.score(above: 10)])
    }

    static func total(of expression: NSExpression = .score) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = "total"
        description.expression = NSExpression(forFunction: "sum:", arguments: [expression])
        description.expressionResultType = .integer64AttributeType
        return description
    }
}
