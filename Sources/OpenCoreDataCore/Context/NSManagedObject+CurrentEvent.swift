import Foundation

/// What an object held when the current change event began (the values and relationships
/// `changedValuesForCurrentEvent()` compares with), for an object already changed or inserted
/// before it. Kept by its context at the object's first change in the event, forgotten when the
/// event ends (`processPendingChanges()`).
struct EventBase {
    let values: [PrimitiveValue]
    let relations: [RelationshipState]
}

extension NSManagedObjectContext {
    /// An object listed among the event's updated or inserted objects without a change of its
    /// own (brought back from deletion): the event begins where it is now.
    func noteListedUnchanged(_ object: NSManagedObject) {
        guard !object.contents.state.contains(.changedInEvent), !object.contents.state.contains(.fault) else { return }
        eventBases[ObjectIdentifier(object)] = EventBase(values: object.contents.values, relations: object.contents.relations)
    }
}

extension NSManagedObject {
    /// The persistent attributes and to-one relationships changed since the last
    /// `NSManagedObjectContextObjectsDidChange` (the last `processPendingChanges()`), each with
    /// the value it had then: nil values as `NSNull`, a to-one's destination as the object.
    ///
    /// ```swift
    /// item.setValue("Draft", forKey: "title")
    /// context.processPendingChanges()
    /// item.setValue("Final", forKey: "title")
    /// item.changedValuesForCurrentEvent()    // ["title": "Draft"]
    /// item.changedValues()                   // ["title": "Final"] (since the last save)
    /// ```
    /// An object inserted in the current event reports what differs from its entity's defaults.
    /// An observer of `NSManagedObjectContextObjectsDidChange` is told the changes of the event
    /// being posted.
    ///
    /// Differences from Core Data: Apple's documentation gives the old values in its
    /// Objective-C reference and is unclear in its Swift one; these are the old values. To-many
    /// relationships are not reported. Not exact yet (see Docs/Differences.md): what a merge
    /// policy writes while settling a save's conflicts, an object first changed in `willSave()`
    /// during the save's own post, and an object an earlier observer changed during a post.
    public func changedValuesForCurrentEvent() -> [String: Any] {
        guard let context, !contents.state.contains(.fault) else { return [:] }
        let base: EventBase?
        if contents.state.contains(.changedInEvent) {
            base = context.eventBases[ObjectIdentifier(self)]
        } else if let posting = context.postingEvent,
                  posting.changes.updated?.set.contains(self) == true || posting.changes.inserted?.set.contains(self) == true {
            // Asked by an observer of the event being posted.
            base = posting.bases[ObjectIdentifier(self)]
        } else {
            return [:]
        }
        let layout = entity.layout
        let snapshot = contents.snapshot
        var changes: [String: Any] = [:]
        for attribute in layout.attributes where !attribute.isTransient {
            let slot = attribute.attributeSlot
            // A base kept while the object was still a fault holds no values: it started from its snapshot.
            let old = Self.value(at: slot, of: base?.values) ?? Self.value(at: slot, of: snapshot?.values) ?? layout.defaultValues[slot]
            if contents.values[slot] != old {
                changes[attribute.name] = old.objectValue(for: attribute.attributeType) ?? NSNull()
            }
        }
        for relationship in layout.relationships where !relationship.isToMany && !relationship.isTransient {
            let slot = relationship.relationshipSlot
            let oldID: NSManagedObjectID?
            let oldObject: NSManagedObject?
            if let base, slot < base.relations.count, case .toOne(let destination) = base.relations[slot] {
                (oldID, oldObject) = (destination?.objectID, destination)
            } else {
                oldID = snapshot?.toOne[slot] ?? nil
                oldObject = oldID.map { context.object(with: $0) }
            }
            let current = slot < contents.relations.count ? contents.relations[slot] : .unresolved
            guard case .toOne(let destination) = current, destination?.objectID != oldID else { continue }
            changes[relationship.name] = oldObject ?? NSNull()
        }
        return changes
    }

    private static func value(at slot: Int, of values: [PrimitiveValue]?) -> PrimitiveValue? {
        guard let values, slot < values.count else { return nil }
        return values[slot]
    }
}
