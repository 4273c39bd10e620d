import Foundation

/// A context as the parent store of its child contexts (Core Data's nested contexts).
///
/// A child sees this context's unsaved changes over what this context's own parent has: its
/// fetches (predicates, sorts, counts and limits) and faults include this context's pending
/// inserts, updates and deletes, and a child's save becomes this context's unsaved changes.
/// Objects this context has not changed are read from below it, as if it were not there, so
/// that a child of a context without changes reads straight from the stores.
///
/// Every call runs on this context's queue (`performAndWait`), as Core Data's do: a child on
/// another queue waits for it.
extension NSManagedObjectContext: ParentObjectStore {
    func stores(for entity: NSEntityDescription, affectedStores: [NSPersistentStore]?) -> [NSPersistentStore] {
        persistentStoreCoordinator?.stores(for: entity, affectedStores: affectedStores) ?? []
    }

    func execute(_ fetch: StoreFetch, in stores: [NSPersistentStore]) throws -> StoreFetchResult {
        try performAndWait {
            let below = try parentStoreOrThrow()
            // As in a context's own dictionary fetches, dictionaries reflect the stores only.
            if case .dictionaries = fetch.result { return try below.execute(fetch, in: stores) }
            guard hasPendingChanges(affecting: fetch.entity) else { return try below.execute(fetch, in: stores) }
            var objects = try fetchObjects(Self.request(for: fetch, in: stores), entity: fetch.entity)
            if objects.contains(where: \.isInserted) {
                // New objects match whatever store they will go to; named now, each goes to one.
                try makeNewObjectsPermanent()
                objects.removeAll { object in !stores.contains { $0 === object.objectID.persistentStore } }
            }
            switch fetch.result {
            case .count:
                return .count(objects.count)
            case .objectIDs:
                return .objectIDs(objects.map(\.objectID))
            case .keys:
                let family = fetch.includesSubentities ? fetch.entity.selfAndDescendants : [fetch.entity]
                let keys = objects.compactMap(\.objectID.primaryKey)
                let indexes = family.count > 1 ? objects.map { object in UInt16(family.firstIndex { $0 === object.entity } ?? 0) } : []
                return .keys(keys, indexes)
            case .snapshots, .dictionaries:
                return .snapshots(try snapshotsForChild(of: objects, context: fetch.context))
            }
        }
    }

    func snapshot(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot? {
        try performAndWait {
            guard let object = registeredObject(for: objectID), object.hasChanges else {
                return try parentStoreOrThrow().snapshot(for: objectID, context: context)
            }
            // A row gone from below is gone for the child too, whatever this context made of it.
            if object.isDeleted || object.isUnreadableForVanishedRow { return nil }
            try makeNewObjectsPermanent()
            return object.currentSnapshot(readAt: SnapshotClock.now())
        }
    }

    func snapshots(for objectIDs: [NSManagedObjectID], context: NSManagedObjectContext?) throws -> [RowSnapshot] {
        try performAndWait {
            guard hasChanges else { return try parentStoreOrThrow().snapshots(for: objectIDs, context: context) }
            let objects = objectIDs.compactMap { id in registeredObject(for: id) ?? (id.isTemporaryID ? nil : object(with: id)) }
            return try snapshotsForChild(of: objects.filter { !$0.isDeleted }, context: context)
        }
    }

    func relatedMembers(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                        context: NSManagedObjectContext?) throws -> RelatedMembers {
        try performAndWait {
            guard hasChanges else { return try parentStoreOrThrow().relatedMembers(of: sources, through: relationship, context: context) }
            let owners = sources.map { object(with: $0) }
            loadToMany(relationship, of: owners.filter { !$0.isDeleted })
            var membersByOwner: [(NSManagedObjectID, [NSManagedObject])] = []
            var allMembers: [NSManagedObject] = []
            for (id, owner) in zip(sources, owners) where !owner.isDeleted {
                let members = owner.toManyMembers(relationship).orderedMembers.filter { !$0.isDeleted }
                membersByOwner.append((id, members))
                allMembers += members
            }
            let snapshots = try snapshotsForChild(of: allMembers, context: context)
            var byID: [NSManagedObjectID: RowSnapshot] = [:]
            for snapshot in snapshots { byID[snapshot.objectID] = snapshot }
            var related: [NSManagedObjectID: [RowSnapshot]] = [:]
            for (id, members) in membersByOwner { related[id] = members.compactMap { byID[$0.objectID] } }
            return .snapshots(related)
        }
    }

    /// A child's save: its changes become this context's unsaved changes, with the IDs the child
    /// gave its new objects (permanent: see `save()`). Nothing is compared with what this
    /// context has (a child's save never conflicts with its parent, as in Core Data); an object
    /// the child changed or deleted that this context has deleted fails the save, changing
    /// nothing.
    func save(_ plan: SavePlan) throws -> [SaveOutcome] {
        try performAndWait {
            try checkChildSave(plan)
            // As a merge is, a child's save applied is not an undoable change of the parent's.
            withoutRecordingUndo { ChildSaveApplication(parent: self).apply(plan) }
            processPendingChanges()
            return plan.changesByStore.map { SaveOutcome(insertedIDs: $0.changes.inserted.map(\.objectID)) }
        }
    }

    func newPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        // Only the coordinator hands out keys; nothing of this context is read.
        try parentStoreOrThrow().newPermanentIDs(for: objects)
    }

    // MARK: Helpers

    /// The request this context runs for a child's fetch: the fetch's settings, over `stores`.
    private static func request(for fetch: StoreFetch, in stores: [NSPersistentStore]) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entity: fetch.entity)
        request.predicate = fetch.predicate
        request.sortDescriptors = fetch.sortDescriptors.isEmpty ? nil : fetch.sortDescriptors
        request.includesSubentities = fetch.includesSubentities
        request.fetchLimit = fetch.fetchLimit
        request.fetchOffset = fetch.fetchOffset
        request.returnsDistinctResults = fetch.returnsDistinctResults
        request.affectedStores = stores
        return request
    }

    /// What a child reads for `objects` (none deleted), in their order: the current state of
    /// those this context changed, and what is below this context for the others.
    private func snapshotsForChild(of objects: [NSManagedObject], context: NSManagedObjectContext?) throws -> [RowSnapshot] {
        try makeNewObjectsPermanent()
        let readAt = SnapshotClock.now()
        var snapshots: [RowSnapshot?] = []
        snapshots.reserveCapacity(objects.count)
        var unread: [Int] = []
        for object in objects {
            if object.isUnreadableForVanishedRow {
                continue  // its row is gone: the child reads nothing for it
            } else if object.hasChanges {
                snapshots.append(object.currentSnapshot(readAt: readAt))
            } else {
                // Unchanged here: read from below, as every other path reads such objects.
                unread.append(snapshots.count)
                snapshots.append(nil)
            }
        }
        if !unread.isEmpty {
            let read = try parentStoreOrThrow().snapshots(for: unread.map { objects[$0].objectID }, context: context)
            var byID: [NSManagedObjectID: RowSnapshot] = [:]
            for snapshot in read { byID[snapshot.objectID] = snapshot }
            for index in unread { snapshots[index] = byID[objects[index].objectID] }
        }
        return snapshots.compactMap { $0 }
    }

    /// Gives this context's new objects permanent IDs, so that a child can name them (a row
    /// snapshot names a saved row). Their temporary IDs keep finding them.
    private func makeNewObjectsPermanent() throws {
        if !inserted.isEmpty { _ = try givePermanentIDs(to: inserted.members) }
    }

    /// Refuses a child's save that changes or deletes objects this context has deleted, or that
    /// relates objects to them.
    private func checkChildSave(_ plan: SavePlan) throws {
        func isDeletedHere(_ id: NSManagedObjectID) -> Bool {
            registeredObject(for: id)?.contents.state.contains(.deleted) ?? false
        }
        func refusal(_ id: NSManagedObjectID, _ what: String) -> CocoaError {
            CoreDataError.make(.managedObjectReferentialIntegrity,
                               "The child context saved \(what) \(id.entity.name ?? "an object") \(id.uriRepresentation().absoluteString), which its parent context has deleted",
                               [NSAffectedObjectsErrorKey: [id]])
        }
        for entry in plan.changesByStore {
            for row in entry.changes.updated + entry.changes.deleted where isDeletedHere(row.objectID) {
                throw refusal(row.objectID, "a change to")
            }
            for row in entry.changes.inserted + entry.changes.updated {
                if let id = row.toOne.lazy.compactMap({ $0 }).first(where: isDeletedHere) { throw refusal(id, "a relationship to") }
            }
            for change in entry.changes.toMany {
                if let id = change.members.first(where: isDeletedHere) { throw refusal(id, "a relationship to") }
            }
        }
    }

    /// The permanent ID a temporary one became without a save of this context: one of its
    /// parents' new objects that a child read (their IDs become permanent then).
    func permanentID(ofTemporaryID id: NSManagedObjectID) -> NSManagedObjectID? {
        if let known = permanentIDsOfTemporaryIDs[id] { return known }
        guard let parent, let found = parent.performAndWait({ parent.permanentIDForChild(ofTemporaryID: id) }) else { return nil }
        permanentIDsOfTemporaryIDs[id] = found
        return found
    }

    /// The permanent ID of this context's object (or an ancestor's) known by the temporary `id`,
    /// giving this context's new objects permanent IDs if it is one of them; nil for an ID no
    /// context of the chain knows. A child then registers the object under its permanent ID, so
    /// that it has one object for it, however it reaches it.
    private func permanentIDForChild(ofTemporaryID id: NSManagedObjectID) -> NSManagedObjectID? {
        guard let object = registeredObject(for: id) else { return nil }
        if object.objectID.isTemporaryID { try? makeNewObjectsPermanent() }
        return object.objectID.isTemporaryID ? nil : object.objectID
    }

    /// A fault of the other contexts' temporary ID that turned out to be a parent's new object:
    /// it takes the permanent ID its snapshot carries.
    func adoptPermanentIDOfSnapshot(of object: NSManagedObject) {
        guard let temporaryID = object.storedObjectID, let permanentID = object.contents.snapshot?.objectID else { return }
        permanentIDsOfTemporaryIDs[temporaryID] = permanentID
        // Another object for the row keeps the row's place; this one stays a stray fault.
        guard registry[permanentID] == nil else { return }
        strayFaults.removeAll { $0 === object }
        changeID(of: object, to: permanentID)
    }
}

/// Applies a child context's save to its parent's objects.
private struct ChildSaveApplication {
    let parent: NSManagedObjectContext

    func apply(_ plan: SavePlan) {
        for (temporary, permanent) in plan.formerTemporaryIDs { parent.permanentIDsOfTemporaryIDs[temporary] = permanent }
        // New objects first, all of them, so that references among them find each other.
        var created: [(object: NSManagedObject, row: SaveChanges.Row)] = []
        for entry in plan.changesByStore {
            for row in entry.changes.inserted {
                let entity = row.objectID.entity
                // As in Core Data, the parent's instance is inserted, and awakes, as a new object.
                let object = entity.layout.objectClass.init(entity: entity, insertInto: parent)
                parent.changeID(of: object, to: row.objectID)
                copyAttributes(of: row, to: object, slots: entity.layout.persistentAttributeSlots)
                created.append((object, row))
            }
        }
        for (object, row) in created { copyToOnes(of: row, to: object, slots: object.entity.layout.persistentToOneSlots) }
        for entry in plan.changesByStore {
            for row in entry.changes.updated {
                let object = parent.object(with: row.objectID)
                copyAttributes(of: row, to: object, slots: row.changedAttributeSlots)
                copyToOnes(of: row, to: object, slots: row.changedRelationshipSlots)
            }
            for change in entry.changes.toMany {
                parent.object(with: change.source).replaceToMany(change.relationship, with: change.members.map { parent.object(with: $0) })
            }
            for row in entry.changes.deleted { parent.delete(parent.object(with: row.objectID)) }
        }
    }

    private func copyAttributes(of row: SaveChanges.Row, to object: NSManagedObject, slots: [Int]) {
        for slot in slots where slot < row.values.count { object.setPrimitive(row.values[slot], at: slot) }
    }

    private func copyToOnes(of row: SaveChanges.Row, to object: NSManagedObject, slots: [Int]) {
        let relationships = object.entity.layout.relationships
        for slot in slots where slot < row.toOne.count {
            object.setToOne(relationships[slot], to: row.toOne[slot].map { parent.object(with: $0) })
        }
    }
}

extension NSManagedObject {
    /// The object's current persistent state as a snapshot (for a child context reading it).
    /// The object has a permanent ID; a fault is loaded first.
    func currentSnapshot(readAt: UInt64) -> RowSnapshot {
        willAccess()
        return RowSnapshot(objectID: objectID, version: contents.snapshot?.version ?? 0, values: SavePlan.persistentValues(of: self),
                    toOne: SavePlan.toOneIDs(of: self), readAt: readAt)
    }
}
