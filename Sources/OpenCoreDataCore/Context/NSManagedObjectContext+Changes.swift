import Foundation

extension NSEntityDescription {
    /// Creates an object of the entity named `entityName` and inserts it into `context`.
    ///
    /// ```swift
    /// let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
    /// ```
    /// The model must have such an entity; a missing one stops the program as in Core Data
    /// (use `entity(forEntityName:in:)` to check first).
    public class func insertNewObject(forEntityName entityName: String, into context: NSManagedObjectContext) -> NSManagedObject {
        guard let entity = entity(forEntityName: entityName, in: context) else {
            preconditionFailure("The model of the context has no entity named '\(entityName)'")
        }
        return entity.layout.objectClass.init(entity: entity, insertInto: context)
    }

    /// The entity named `entityName` in the model of `context`'s coordinator.
    public class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.model?.entity(named: entityName)
    }
}

extension NSManagedObjectContext {
    // MARK: Inserting and deleting

    /// Registers a new object to be saved with the next save.
    public func insert(_ object: NSManagedObject) {
        checkQueue()
        if object.context === self {
            // Re-inserting a deleted object undeletes it.
            if object.contents.state.contains(.deleted) {
                undelete(object)
                if object.contents.snapshot == nil { inserted.add(object) }
                noteListedUnchanged(object)
                if object.contents.state.contains(.inserted) { eventInserted.append(object) } else { eventUpdated.append(object) }
            }
            return
        }
        precondition(object.context == nil, "An object can't be inserted into a second context")
        if model == nil { model = object.entity.managedObjectModel }
        if object.contents.values.isEmpty { object.becomeNew() }
        object.contents.state.insert(.inserted)
        object.context = self
        changeGeneration &+= 1
        inserted.add(object)
        noteInEvent(object, updated: false)
        if undoManager != nil { recordInsertion(of: object) }
        object.withTrackingSuspended { object.awakeFromInsert() }
    }

    /// Marks `object` for deletion. Delete rules run at the end of the event
    /// (`processPendingChanges()`, which `save()` calls); the row goes with the next save.
    /// Deleting an object that was never saved just forgets it.
    public func delete(_ object: NSManagedObject) {
        checkQueue()
        guard object.context === self, !object.contents.state.contains(.deleted) else { return }
        // A fault stays a fault: delete rules load what they need, and the save reads the
        // version from the snapshot the fetch brought along.
        if undoManager != nil && undoRecordingSuspensions == 0 {
            // Realized now, so that bringing it back after its deletion is saved has its values.
            object.willAccess()
            recordUndo { context in context.takeBackDeletion(of: object) }
        }
        object.contents.state.insert(.deleted)
        changeGeneration &+= 1
        if !object.contents.state.contains(.inserted) {
            deleted.add(object)
        } else {
            mayHaveInsertedThenDeleted = true
        }
        // A new object deleted again is announced too (it leaves lists showing it), though it
        // never reaches `deletedObjects` or a save's notification (§1.13).
        eventDeleted.append(object)
        pendingDeletions.append(object)
    }

    /// Runs pending delete rules and posts `NSManagedObjectContextObjectsDidChange` for the
    /// changes since the last call. First merges the saves that arrived for
    /// `automaticallyMergesChangesFromParent` and are not merged yet.
    public func processPendingChanges() {
        mergeArrivedSaves()
        if propagatesDeletesAtEndOfEvent {
            propagateDeletions()
            detachInsertedThenDeletedObjects()
        }
        // Before the notification: what observers read is computed again already.
        pendingSnapshotEvents.deliver()
        postObjectsDidChange()
    }

    /// Applies delete rules to the objects deleted since the last call, including the objects
    /// cascades delete in turn.
    func propagateDeletions() {
        while !pendingDeletions.isEmpty {
            // Objects undeleted (re-inserted or refreshed) since `delete(_:)` keep their relationships.
            let batch = pendingDeletions.filter { $0.context === self && $0.contents.state.contains(.deleted) }
            pendingDeletions = []
            for object in batch { object.prepareForDeletion() }
            for relationship in Self.toManyRelationshipsWithRules(of: batch) {
                let owners = batch.filter { $0.entity.layout.relationships.contains { $0 === relationship } }
                loadToMany(relationship, of: owners)
            }
            for object in batch { applyDeleteRules(of: object) }
        }
    }

    /// The to-many relationships of `objects`' entities whose delete rule does something, each
    /// once: found entity by entity (objects come in runs of one entity), not object by object.
    private static func toManyRelationshipsWithRules(of objects: [NSManagedObject]) -> [NSRelationshipDescription] {
        var relationships: [NSRelationshipDescription] = []
        var lastEntity: NSEntityDescription?
        for object in objects where object.entity !== lastEntity {
            lastEntity = object.entity
            for relationship in object.entity.layout.relationships
            where relationship.isToMany && relationship.deleteRule != .noActionDeleteRule
                && !relationships.contains(where: { $0 === relationship }) {
                relationships.append(relationship)
            }
        }
        return relationships
    }

    private func applyDeleteRules(of object: NSManagedObject) {
        object.contents.state.insert(.deletionPropagated)
        for relationship in object.entity.layout.relationships {
            let rule = relationship.deleteRule
            guard rule == .cascadeDeleteRule || rule == .nullifyDeleteRule else { continue }  // deny: checked at save
            let inverse = object.inverse(of: relationship)
            if relationship.isToMany {
                for destination in object.toManyMembers(relationship).orderedMembers {
                    applyDeleteRule(rule, of: relationship, inverse: inverse, from: object, to: destination)
                }
            } else if let destination = object.toOneDestination(relationship) {
                applyDeleteRule(rule, of: relationship, inverse: inverse, from: object, to: destination)
            }
        }
    }

    @inline(__always)
    private func applyDeleteRule(_ rule: NSDeleteRule, of relationship: NSRelationshipDescription,
                                 inverse: NSRelationshipDescription?, from object: NSManagedObject,
                                 to destination: NSManagedObject) {
        if rule == .cascadeDeleteRule && !destination.contents.state.contains(.deleted) { delete(destination) }
        if let inverse { destination.detachInverse(inverse, from: object, relationship: relationship) }
    }

    // MARK: Discarding changes

    /// Discards every unsaved change: inserted objects leave the context, deleted ones come
    /// back, and changed ones return to their last saved values.
    public func rollback() {
        checkQueue()
        // As in Core Data, what the undo manager recorded goes too.
        undoManager?.removeAllActions()
        undoInsertions.clear()
        pendingSnapshotEvents.discard()
        pendingDeletions = []
        storeAssignments = [:]
        // Objects given permanent IDs but never saved. An object whose row could not be read has
        // no snapshot either, but its row exists: it becomes a fault again below.
        let isNeverSaved = { (object: NSManagedObject) in !object.hasSnapshot && !object.isFault && !object.isUnreadable }
        let neverSaved = registry.objects.filter(isNeverSaved)
        // Changed objects that stay (one whose row vanished, changed since, leaves with the new ones).
        let undeleted = deleted.members.filter { !isNeverSaved($0) }
        let reverted = updated.members.filter { !isNeverSaved($0) }
        let changed = undeleted + reverted
        var removed: [NSManagedObject] = []
        for object in inserted.allCandidates + neverSaved where object.context === self && !object.hasSnapshot {
            removed.append(object)
            object.contents.leaveContext()
            object.context = nil
            if let location = object.rowLocation {
                registry.remove(location, ifMatching: object)
                if IncrementalStores.mayBeInUse { noteUnregistered([object.objectID]) }
            }
        }
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        for object in changed {
            object.turnIntoFault(snapshot: object.contents.snapshot, clearingFlags: true)
        }
        // Objects touched only through inverse maintenance of an inserted object carry stale
        // relationship state; refaulting every realized object is the simple, safe answer.
        for object in registry.objects {
            if !object.isFault { object.turnIntoFault(snapshot: object.contents.snapshot) }
        }
        clearEvent()
        // Once every object is as it was saved: what an override computes again (and reads of
        // related objects) is kept, and a change it makes is a change of its own.
        for object in changed { object.awake(fromSnapshotEvents: .rollback) }
        // Lists showing the discarded changes follow: new objects go, deleted ones come back,
        // changed ones show their saved values again.
        postObjectsDidChange(merged: MergedChanges(inserted: undeleted, refreshed: reverted, deleted: removed))
    }

    /// Forgets every registered object; objects you still hold become invalid (they no longer
    /// belong to a context). A context pinned to a query generation moves to the newest one.
    public func reset() {
        checkQueue()
        undoManager?.removeAllActions()
        undoInsertions.clear()
        pendingSnapshotEvents.discard()
        if IncrementalStores.mayBeInUse { noteUnregistered(registeredIncrementalStoreIDs(among: registry.objects)) }
        for object in registry.objects { object.context = nil }
        registry.removeAll()
        for object in inserted.allCandidates + strayFaults where object.context === self { object.context = nil }
        strayFaults = []
        permanentIDsOfTemporaryIDs = [:]
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        pendingDeletions = []
        retainedObjects = []
        storeAssignments = [:]
        conflictDetectionMarks = [:]
        advanceQueryGeneration()
        clearEvent()
    }

    /// Refreshes an object from its last saved state. With `mergeChanges` false the object
    /// becomes a fault and loses its unsaved changes; with true it takes the store's current
    /// values and keeps its own unsaved changes on top.
    public func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        checkQueue()
        guard object.context === self, !object.isInserted else { return }
        refresh(object, mergeChanges: flag, to: loadSnapshot(for: object.objectID))
        eventRefreshed.append(object)
    }

    /// Refreshes an object to `latest`, its saved state read already (nil: the row is gone).
    func refresh(_ object: NSManagedObject, mergeChanges flag: Bool, to latest: RowSnapshot?) {
        if flag && object.hasChanges && !object.isFault {
            let changes = object.changedValues()
            // Where the current event began for the object (`changedValuesForCurrentEvent()`):
            // its base, or its saved values when it changed first in this event; nil when it has
            // not changed in the event, which then begins where the refresh leaves it.
            let identifier = ObjectIdentifier(object)
            let eventBase = eventBases[identifier] ?? (object.contents.state.contains(.changedInEvent)
                ? EventBase(values: object.contents.snapshot?.values ?? [], relations: []) : nil)
            object.turnIntoFault(snapshot: latest)
            object.fulfillFault()
            object.contents.state.remove([.updated, .changedInEvent])
            // Putting the context's own changes back is not a new change.
            withoutRecordingUndo {
                for (key, value) in changes { object.setValue(value is NSNull ? nil : value, forKey: key) }
            }
            eventBases[identifier] = eventBase ?? EventBase(values: object.contents.values, relations: object.contents.relations)
            object.awake(fromSnapshotEvents: .refresh)
        } else {
            if object.contents.state.contains(.deleted) { undelete(object) }
            object.turnIntoFault(snapshot: latest)
        }
    }

    /// Refreshes every registered object, keeping unsaved changes.
    public func refreshAllObjects() {
        for object in registeredObjects { refresh(object, mergeChanges: true) }
    }

    /// Takes back a `delete(_:)` whose delete rules have not run yet.
    private func undelete(_ object: NSManagedObject) {
        object.contents.state.remove([.deleted, .deletionPropagated])
        eventDeleted.removeAll { $0 === object }
    }

    /// Objects inserted and deleted again before any save simply leave the context (§1.13).
    func detachInsertedThenDeletedObjects() {
        guard mayHaveInsertedThenDeleted else { return }
        // Objects whose delete rules have not run yet stay until they have.
        mayHaveInsertedThenDeleted = false
        for object in inserted.allCandidates
        where object.context === self && object.contents.state.contains(.inserted) && object.contents.state.contains(.deleted) {
            guard object.contents.state.contains(.deletionPropagated) else {
                mayHaveInsertedThenDeleted = true
                continue
            }
            // One with a permanent ID already (obtainPermanentIDs, or a failed save that gave
            // it one) is registered: forget it now, as it will not forget itself once detached.
            if let location = object.rowLocation {
                registry.remove(location, ifMatching: object)
                if IncrementalStores.mayBeInUse { noteUnregistered([object.objectID]) }
            }
            object.context = nil
            object.contents.leaveContext()
        }
    }

    func clearEvent() {
        for object in eventInserted { object.contents.state.remove(.changedInEvent) }
        for object in eventUpdated { object.contents.state.remove(.changedInEvent) }
        if !eventBases.isEmpty { eventBases = [:] }
        eventInserted = []
        eventUpdated = []
        eventDeleted = []
        eventRefreshed = []
        postedChanges = nil
    }
}
