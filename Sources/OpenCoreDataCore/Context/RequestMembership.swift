/// Whether an object in memory belongs in a fetch request's results, judged on its current
/// values: what a fetch applies to unsaved changes (`includesPendingChanges`), and what fetched
/// results controllers apply to each change.
struct RequestMembership {
    let entity: NSEntityDescription
    private let includesSubentities: Bool
    private let predicate: NSPredicate?
    /// The predicate resolved for `entity`; nil when it has none or it could not be resolved
    /// (a store's fetch would have refused it), and the predicate is evaluated as it is.
    private let resolvedPredicate: ResolvedPredicate?
    private let affectedStores: Set<ObjectIdentifier>?

    init<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) {
        self.entity = entity
        includesSubentities = request.includesSubentities
        predicate = request.predicate
        resolvedPredicate = request.predicate.flatMap { try? $0.resolved(for: entity) }
        affectedStores = request.affectedStores.map { Set($0.map(ObjectIdentifier.init)) }
    }

    /// Whether `object` is of the request's entity (or a subentity, when the request includes them).
    func isOfEntity(_ object: NSManagedObject) -> Bool {
        includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity === entity
    }

    /// Whether `object` belongs in the results: of the entity, not deleted, in one of the
    /// request's stores (a new object, whose store is not chosen yet, is in any), and matching
    /// the predicate.
    func contains(_ object: NSManagedObject) -> Bool {
        isOfEntity(object) && !object.isDeleted && isInAffectedStores(object) && matchesPredicate(object)
    }

    private func isInAffectedStores(_ object: NSManagedObject) -> Bool {
        guard let affectedStores, let store = object.rowLocation?.store else { return true }
        return affectedStores.contains(store)
    }

    private func matchesPredicate(_ object: NSManagedObject) -> Bool {
        if let resolvedPredicate { return resolvedPredicate.evaluate(with: object) }
        return predicate?.evaluate(with: object) ?? true
    }
}
