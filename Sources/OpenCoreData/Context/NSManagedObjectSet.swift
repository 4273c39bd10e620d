import Foundation

/// A live, mutable view of a to-many relationship, returned by `mutableSetValue(forKey:)`.
///
/// ```swift
/// person.mutableSetValue(forKey: "pets").add(rex)    // rex.owner is now person
/// ```
/// It takes the place of the `NSMutableSet` proxy Core Data returns, with the same method
/// names (`add`, `remove`, `contains`, `count`, `allObjects`). Adding and removing do not load
/// the relationship from the store; reading does.
public struct NSManagedObjectSet: Sequence {
    let owner: NSManagedObject
    let relationship: NSRelationshipDescription

    /// Adds `object`. An object of the wrong entity or context is not added; the owner then
    /// fails validation at save with code 1550 naming the relationship (Core Data raises here).
    public func add(_ object: NSManagedObject) {
        do {
            try owner.checkDestination(object, of: relationship)
            owner.addToMany(relationship, object)
        } catch {
            owner.rejectedValues[relationship.name] = (error as NSError).localizedDescription
        }
    }

    public func addObjects(from objects: [NSManagedObject]) { objects.forEach(add) }

    public func remove(_ object: NSManagedObject) { owner.removeFromToMany(relationship, object) }

    public func removeAllObjects() { owner.replaceToMany(relationship, with: []) }

    public func contains(_ object: NSManagedObject) -> Bool { members.contains(object) }

    public var count: Int { members.count }

    public var allObjects: [NSManagedObject] { Array(members) }

    public func makeIterator() -> Set<NSManagedObject>.Iterator { members.makeIterator() }

    private var members: Set<NSManagedObject> { owner.toManyMembers(relationship).members }
}

/// A live, mutable, ordered view of an ordered to-many relationship, returned by
/// `mutableOrderedSetValue(forKey:)` in place of Core Data's `NSMutableOrderedSet` proxy.
public struct NSManagedObjectOrderedSet: RandomAccessCollection {
    let owner: NSManagedObject
    let relationship: NSRelationshipDescription

    public var startIndex: Int { 0 }
    public var endIndex: Int { ordered.count }
    public subscript(position: Int) -> NSManagedObject { ordered[position] }

    public func add(_ object: NSManagedObject) { insert(object, at: count) }

    public func insert(_ object: NSManagedObject, at index: Int) {
        do {
            try owner.checkDestination(object, of: relationship)
            owner.insertToMany(relationship, object, at: index)
        } catch {
            owner.rejectedValues[relationship.name] = (error as NSError).localizedDescription
        }
    }

    public func remove(_ object: NSManagedObject) { owner.removeFromToMany(relationship, object) }

    public func removeObject(at index: Int) { remove(ordered[index]) }

    public func object(at index: Int) -> NSManagedObject { ordered[index] }

    public func index(of object: NSManagedObject) -> Int? { ordered.firstIndex { $0 === object } }

    public var array: [NSManagedObject] { ordered }

    private var ordered: [NSManagedObject] { owner.toManyMembers(relationship).orderedMembers }
}
