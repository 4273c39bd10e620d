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
        if owner.acceptsDestination(object, of: relationship) { owner.addToMany(relationship, object) }
    }

    public func addObjects(from objects: [NSManagedObject]) { objects.forEach(add) }

    public func remove(_ object: NSManagedObject) { owner.removeFromToMany(relationship, object) }

    public func removeAllObjects() { owner.replaceToMany(relationship, with: []) }

    public func contains(_ object: NSManagedObject) -> Bool { members.contains(object) }

    public var count: Int { members.count }

    public var allObjects: [NSManagedObject] { Array(members) }

    public func makeIterator() -> Set<NSManagedObject>.Iterator { members.makeIterator() }

    private var members: Set<NSManagedObject> { owner.toManyMembers(relationship).members }

    // MARK: `NSMutableSet`'s signatures, for code written against Core Data's proxy

    /// Adds `object`; a value that is not a managed object is not added, and the owner then
    /// fails validation at save with code 1550 naming the relationship (Core Data raises here).
    ///
    /// ```swift
    /// for tag in tags as NSSet { item.mutableSetValue(forKey: "tags").add(tag) }
    /// ```
    public func add(_ object: Any) {
        guard let managed = owner.managedObject(object, for: relationship) else { return }
        add(managed)
    }

    /// Adds every object of `objects` (see `add(_:)`).
    public func addObjects(from objects: [Any]) {
        for object in objects { add(object) }
    }

    /// Removes `object`; a value that is not a member changes nothing.
    public func remove(_ object: Any) {
        if let managed = object as? NSManagedObject { remove(managed) }
    }

    /// Whether `object` is a member.
    public func contains(_ object: Any) -> Bool {
        (object as? NSManagedObject).map { contains($0) } ?? false
    }

    /// Adds the members of `other`, as `NSMutableSet.union(_:)` does.
    public func union(_ other: Set<AnyHashable>) {
        for object in other { add(object.base) }
    }

    /// Removes the members of `other`, as `NSMutableSet.minus(_:)` does.
    public func minus(_ other: Set<AnyHashable>) {
        for object in other { remove(object.base) }
    }
}

/// A live, mutable, ordered view of an ordered to-many relationship, returned by
/// `mutableOrderedSetValue(forKey:)` in place of Core Data's `NSMutableOrderedSet` proxy.
public struct NSManagedObjectOrderedSet: RandomAccessCollection {
    let owner: NSManagedObject
    let relationship: NSRelationshipDescription

    public var startIndex: Int { 0 }
    public var endIndex: Int { ordered.count }
    public subscript(position: Int) -> NSManagedObject { ordered[position] }

    /// Appends `object`, unless it is in the relationship already.
    public func add(_ object: NSManagedObject) { insert(object, at: count) }

    /// Inserts `object` at `index` (0…`count`). As with `NSMutableOrderedSet`, an object already
    /// in the relationship stays where it is; `moveObjects(at:to:)` moves one.
    public func insert(_ object: NSManagedObject, at index: Int) {
        let current = ordered
        precondition(index >= 0 && index <= current.count, "index \(index) is beyond the ordered relationship's \(current.count) objects")
        guard !current.contains(where: { $0 === object }) else { return }
        if owner.acceptsDestination(object, of: relationship) { owner.insertToMany(relationship, object, at: index) }
    }

    /// Inserts `objects` so that they end up at `indexes` (in ascending order), as
    /// `NSMutableOrderedSet.insert(_:at:)` does.
    public func insert(_ objects: [NSManagedObject], at indexes: IndexSet) {
        precondition(objects.count == indexes.count, "insert(_:at:) needs as many indexes (\(indexes.count)) as objects (\(objects.count))")
        for (object, index) in zip(objects, indexes) { insert(object, at: index) }
    }

    /// Appends each of `objects` that is not in the relationship already.
    public func addObjects(from objects: [NSManagedObject]) { objects.forEach(add) }

    public func remove(_ object: NSManagedObject) { owner.removeFromToMany(relationship, object) }

    public func removeObject(at index: Int) { remove(ordered[checked: index]) }

    /// Removes the objects at `indexes`.
    public func removeObjects(at indexes: IndexSet) {
        let current = ordered
        for index in indexes { _ = current[checked: index] }
        for index in indexes { remove(current[index]) }
    }

    /// Empties the relationship.
    public func removeAllObjects() { owner.replaceToMany(relationship, with: []) }

    /// Puts `object` in place of the object at `index`, which leaves the relationship. An object
    /// already in the relationship moves to that place (so the relationship gets one shorter).
    public func replaceObject(at index: Int, with object: NSManagedObject) {
        let current = ordered
        let replaced = current[checked: index]
        guard replaced !== object, owner.acceptsDestination(object, of: relationship) else { return }
        // An object already in the relationship moves to the replaced one's place.
        var objects = current.filter { $0 !== object }
        if let position = objects.firstIndex(where: { $0 === replaced }) { objects[position] = object }
        owner.replaceToMany(relationship, with: objects)
    }

    /// Swaps the objects at two positions.
    public func exchangeObject(at first: Int, withObjectAt second: Int) {
        var objects = ordered
        _ = objects[checked: first]
        _ = objects[checked: second]
        guard first != second else { return }
        objects.swapAt(first, second)
        owner.replaceToMany(relationship, with: objects)
    }

    /// Moves the objects at `indexes` (keeping their order) so that the first of them ends up
    /// at `index` of the result, as `NSMutableOrderedSet.moveObjects(at:to:)` does.
    public func moveObjects(at indexes: IndexSet, to index: Int) {
        var objects = ordered
        for position in indexes { _ = objects[checked: position] }
        let moving = indexes.map { objects[$0] }
        for position in indexes.reversed() { objects.remove(at: position) }
        precondition(index >= 0 && index <= objects.count, "moveObjects(at:to:): index \(index) is beyond the \(objects.count) objects left")
        objects.insert(contentsOf: moving, at: index)
        guard !zip(objects, ordered).allSatisfy({ $0 === $1 }) else { return }  // nothing moves
        owner.replaceToMany(relationship, with: objects)
    }

    /// Whether `object` is in the relationship.
    public func contains(_ object: NSManagedObject) -> Bool { ordered.contains { $0 === object } }

    public func object(at index: Int) -> NSManagedObject { ordered[checked: index] }

    public func index(of object: NSManagedObject) -> Int? { ordered.firstIndex { $0 === object } }

    public var array: [NSManagedObject] { ordered }

    // MARK: `NSMutableOrderedSet`'s signatures, for code written against Core Data's proxy

    /// Appends `object`; a value that is not a managed object is not added, and the owner then
    /// fails validation at save with code 1550 naming the relationship (Core Data raises here).
    public func add(_ object: Any) {
        guard let managed = owner.managedObject(object, for: relationship) else { return }
        add(managed)
    }

    /// Appends every object of `objects` (see `add(_:)`).
    public func addObjects(from objects: [Any]) {
        for object in objects { add(object) }
    }

    /// Removes `object`; a value that is not a member changes nothing.
    public func remove(_ object: Any) {
        if let managed = object as? NSManagedObject { remove(managed) }
    }

    /// Whether `object` is a member.
    public func contains(_ object: Any) -> Bool {
        (object as? NSManagedObject).map { contains($0) } ?? false
    }

    private var ordered: [NSManagedObject] { owner.toManyMembers(relationship).orderedMembers }
}

private extension NSManagedObject {
    /// `value` as a managed object to add to `relationship`; a value of another kind is recorded
    /// and reported at save as 1550, as an object of the wrong entity is.
    func managedObject(_ value: Any, for relationship: NSRelationshipDescription) -> NSManagedObject? {
        if let managed = value as? NSManagedObject { return managed }
        contents.rejectedValues[relationship.name] =
            "A \(type(of: value)) can't be a member of the relationship \(relationship.name), which holds \(relationship.destinationEntity?.name ?? "?") objects"
        // Changed, so that its next save validates it and reports the value.
        markUpdated()
        return nil
    }

    /// Whether `object` may join `relationship`. One that may not (wrong entity or context) is
    /// recorded and reported at save as 1550, as with `setValue` (Core Data raises here).
    func acceptsDestination(_ object: NSManagedObject, of relationship: NSRelationshipDescription) -> Bool {
        do {
            try checkDestination(object, of: relationship)
            return true
        } catch {
            contents.rejectedValues[relationship.name] = CoreDataError.validationReason(of: error, object: self, key: relationship.name)
            markUpdated()
            return false
        }
    }
}

private extension Array {
    /// The element at `index`; stops the program with the index and the count when it is out
    /// of range, as `NSMutableOrderedSet` raises `NSRangeException`.
    subscript(checked index: Int) -> Element {
        precondition(indices.contains(index), "index \(index) is beyond the ordered relationship's \(count) objects")
        return self[index]
    }
}
