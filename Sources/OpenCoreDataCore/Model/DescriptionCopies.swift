import Foundation

/// The descriptions a copy made so far, each by the original it copies: copying a model or an
/// entity copies its descriptions one by one first, then points what refers to another
/// description (a relationship's destination and inverse, an index element's property, a
/// uniqueness constraint, a fetch request's entity) at that description's copy, when it has one.
///
/// ```swift
/// var copies = DescriptionCopies()
/// let copy = entity.copiedAlone(into: &copies)
/// copy.pointAtCopies(of: entity, in: copies)
/// ```
struct DescriptionCopies {
    private var entities: [ObjectIdentifier: NSEntityDescription] = [:]
    private var properties: [ObjectIdentifier: NSPropertyDescription] = [:]

    mutating func record(_ copy: NSEntityDescription, of original: NSEntityDescription) {
        entities[ObjectIdentifier(original)] = copy
    }

    mutating func record(_ copy: NSPropertyDescription, of original: NSPropertyDescription) {
        properties[ObjectIdentifier(original)] = copy
    }

    /// The copy of `entity`, or `entity` itself when it was not copied.
    func entity(_ entity: NSEntityDescription?) -> NSEntityDescription? {
        entity.map { entities[ObjectIdentifier($0)] ?? $0 }
    }

    /// The copy of `entity`, or nil when it was not copied.
    func copyOf(_ entity: NSEntityDescription) -> NSEntityDescription? {
        entities[ObjectIdentifier(entity)]
    }

    /// The copy of `property`, or `property` itself when it was not copied.
    func property(_ property: NSPropertyDescription?) -> NSPropertyDescription? {
        property.map { properties[ObjectIdentifier($0)] ?? $0 }
    }

    /// The copy of `relationship`, or `relationship` itself when it was not copied.
    func relationship(_ relationship: NSRelationshipDescription?) -> NSRelationshipDescription? {
        relationship.map { properties[ObjectIdentifier($0)] as? NSRelationshipDescription ?? $0 }
    }

    /// An element of a uniqueness constraint or compound index: a property description is
    /// replaced by its copy; a name stays.
    func element(_ element: Any) -> Any {
        (element as? NSPropertyDescription).flatMap { property($0) } ?? element
    }

    /// A copy of `request` whose entity is the copy of the original's.
    func request(_ request: NSFetchRequest<NSFetchRequestResult>?) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let request else { return nil }
        let copy = request.copy(as: NSFetchRequestResult.self)
        copy.entity = entity(request.entity)
        copy.propertiesToFetch = request.propertiesToFetch?.map(element)
        copy.propertiesToGroupBy = request.propertiesToGroupBy?.map(element)
        return copy
    }
}
