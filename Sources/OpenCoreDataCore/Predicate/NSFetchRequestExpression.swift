import Foundation

/// Core Data's `NSFetchRequestExpressionType`: the type of a fetch expression.
public let NSFetchRequestExpressionType = NSExpression.ExpressionType.fetchRequest

/// A fetch inside an expression: `FETCH(request, context, countOnly)` evaluates `request` to a
/// fetch request and `context` to a managed object context, and is the objects the context
/// fetches with it (or, counting only, their number). Mapping models use it to choose the
/// source instances of an entity mapping.
///
/// ```swift
/// let adults = NSExpression(format: """
///     FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Person", "age >= 18"),
///           $manager.sourceContext, NO)
///     """)
/// let count = NSFetchRequestExpression.expression(forFetch: NSExpression(forConstantValue: request),
///                                                 context: NSExpression(forConstantValue: context), countOnly: true)
/// count.expressionValue(with: nil, context: nil)   // the number of objects request finds
/// ```
/// Evaluated in memory: the fetch runs on the thread that evaluates the expression, which must be
/// one the context may be used on (inside its `perform` for a queue context), and not while a
/// store the context fetches from is busy with the evaluation (a fetch predicate of the
/// in-memory store with a FETCH into the same coordinator). Differences from Core Data: a request or context that is not one, or a fetch that fails,
/// evaluates to nil (Core Data raises an exception); a predicate fetched from a SQLite store
/// cannot contain one (134091); `NSExpression(format:)` returns an `NSExpression` of type
/// `.fetchRequest`, not an instance of this class.
open class NSFetchRequestExpression: NSExpression, @unchecked Sendable {
    // @unchecked Sendable: immutable once built, as every expression.

    init(request: NSExpression, context: NSExpression, countOnly: Bool) {
        super.init(type: .fetchRequest, constant: countOnly, elements: [request, context])
    }

    /// `FETCH(fetch, context, countFlag)`.
    open class func expression(forFetch fetch: NSExpression, context: NSExpression, countOnly countFlag: Bool) -> NSExpression {
        NSFetchRequestExpression(request: fetch, context: context, countOnly: countFlag)
    }

    /// The expression that evaluates to the fetch request.
    open var requestExpression: NSExpression { fetchParts!.request }

    /// The expression that evaluates to the managed object context.
    open var contextExpression: NSExpression { fetchParts!.context }

    /// Whether the expression is the number of objects rather than the objects.
    open var isCountOnlyRequest: Bool { fetchParts!.countOnly }
}

/// A fetch request of any result type, run by a fetch expression.
protocol TypeErasedFetchRequest {
    /// What `context` fetches with the request.
    func results(in context: NSManagedObjectContext) throws -> [Any]
    /// How many objects `context` finds with the request.
    func count(in context: NSManagedObjectContext) throws -> Int
    /// The same request, answering object IDs.
    func objectIDRequest() -> NSFetchRequest<NSManagedObjectID>
}

extension NSFetchRequest: TypeErasedFetchRequest {
    func results(in context: NSManagedObjectContext) throws -> [Any] { try context.fetch(self).map { $0 as Any } }
    func count(in context: NSManagedObjectContext) throws -> Int { try context.count(for: self) }
    func objectIDRequest() -> NSFetchRequest<NSManagedObjectID> {
        let request = copy(as: NSManagedObjectID.self)
        request.resultType = .managedObjectIDResultType
        return request
    }
}

extension NSExpression {
    /// The value of a fetch expression: the objects or their count, nil when its parts are not
    /// a request and a context, or the fetch fails.
    func fetchValue(for object: Any?, variables: [String: Any]?) -> Any? {
        guard let (requestExpression, contextExpression, countOnly) = fetchParts,
              let request = requestExpression.value(for: object, variables: variables) as? TypeErasedFetchRequest,
              let context = contextExpression.value(for: object, variables: variables) as? NSManagedObjectContext else { return nil }
        if countOnly { return try? request.count(in: context) }
        return try? request.results(in: context)
    }
}
