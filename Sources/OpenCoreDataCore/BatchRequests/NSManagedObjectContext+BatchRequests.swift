import Foundation

extension NSManagedObjectContext {
    /// Executes a batch request (`NSBatchInsertRequest`, `NSBatchUpdateRequest`,
    /// `NSBatchDeleteRequest`) in the stores, and returns its result.
    ///
    /// ```swift
    /// let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Entry"))
    /// delete.resultType = .resultTypeCount
    /// let count = (try context.execute(delete) as? NSBatchDeleteResult)?.result as? Int
    /// ```
    /// The request runs in each store that holds its entity (or in `affectedStores`), one store
    /// at a time; in each, it writes everything or nothing. As in Core Data, this context's
    /// objects are left as they were; `executeAndMergeChanges(_:into:)` also brings them up to date.
    ///
    /// An `NSAsynchronousFetchRequest` returns at once with its `NSAsynchronousFetchResult`; the
    /// fetch runs later on this context's queue and calls the request's completion block. An
    /// `NSPersistentHistoryChangeRequest` reads persistent history; an
    /// `NSPersistentCloudKitContainerEventRequest` answers no events, as nothing is mirrored here.
    @discardableResult
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        if let asynchronous = request as? any AsynchronousFetchStarting {
            return asynchronous.start(in: self)
        }
        if let history = request as? NSPersistentHistoryChangeRequest {
            checkQueue()
            return try coordinatorOrThrow().executeHistory(history)
        }
        if let events = request as? NSPersistentCloudKitContainerEventRequest {
            checkQueue()
            _ = try coordinatorOrThrow()
            return events.resultWithoutMirroring()
        }
        return try executeBatch(request).result
    }

    /// Executes a batch request, then merges what it changed into this context and `contexts`:
    /// objects it deleted leave them (relationships pointing to them are refreshed), objects it
    /// updated are refreshed, keeping their unsaved changes.
    ///
    /// ```swift
    /// try context.executeAndMergeChanges(NSBatchDeleteRequest(fetchRequest: stale))
    /// // context.registeredObjects no longer holds the deleted objects
    /// ```
    /// An OpenCoreData extension: with Core Data this takes a `resultType` of object IDs and a
    /// call to `mergeChanges(fromRemoteContextSave:into:)`; here it is one call, whatever
    /// `resultType` the request has.
    @discardableResult
    public func executeAndMergeChanges(_ request: NSPersistentStoreRequest, into contexts: [NSManagedObjectContext] = [])
        throws -> NSPersistentStoreResult {
        let (result, outcome) = try executeBatch(request)
        let changes: [AnyHashable: Any] = [
            NSInsertedObjectsKey: outcome.inserted,
            NSUpdatedObjectsKey: outcome.updated + outcome.nullified,
            NSDeletedObjectsKey: outcome.deleted,
        ]
        mergeRemoteChanges(changes)
        Self.mergeChanges(fromRemoteContextSave: changes, into: contexts.filter { $0 !== self })
        return result
    }

    /// Brings `contexts` up to date with changes made elsewhere (another coordinator, another
    /// process, a batch request): `changeNotificationData` holds, under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey` (or the `…ObjectIDsKey` variants), the
    /// object IDs, their URIs, or objects. Each context merges on its own queue.
    ///
    /// Deleted objects leave each context (objects whose loaded relationships point to them are
    /// refreshed); updated objects are refreshed, keeping unsaved changes; inserted objects are
    /// faulted in; each context then posts `NSManagedObjectContextObjectsDidChange` for them.
    public class func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any],
                                   into contexts: [NSManagedObjectContext]) {
        for context in contexts {
            context.performAndWait { context.mergeRemoteChanges(changeNotificationData) }
        }
    }

    // MARK: Executing

    /// Runs a batch request through the coordinator, with store errors told as Core Data's.
    private func executeBatch(_ request: NSPersistentStoreRequest) throws -> (result: NSPersistentStoreResult, outcome: BatchOutcome) {
        checkQueue()
        do {
            return try coordinatorOrThrow().executeBatch(request, authorship: HistoryAuthorship(of: self),
                                                         entity: { try self.entity(of: $0) })
        } catch let failure as ParentSaveFailure {
            throw translateSaveError(failure.underlying, store: failure.store)
        }
    }

    // MARK: Merging

    /// Applies changes made outside this context (see `mergeChanges(fromRemoteContextSave:into:)`).
    func mergeRemoteChanges(_ changes: [AnyHashable: Any]) {
        checkQueue()
        var merged: MergedChanges?
        withoutRecordingUndo { merged = mergeRemoteChangesUnrecorded(changes) }
        // Announced once the merge is done: what observers change in response is theirs (recorded).
        if let merged {
            postObjectsDidChange(merged: merged)
            postDidMergeChanges(merged)
        }
    }

    private func mergeRemoteChangesUnrecorded(_ changes: [AnyHashable: Any]) -> MergedChanges {
        // A pinned context merges into the newest generation, as Core Data's does.
        advanceQueryGeneration()
        let deleted = Set(objectIDs(in: changes, keys: [NSDeletedObjectsKey, NSDeletedObjectIDsKey]))
        let updated = objectIDs(in: changes, keys: [NSUpdatedObjectsKey, NSUpdatedObjectIDsKey])
        var gone: [NSManagedObject] = []
        var refreshed: [NSManagedObject] = []
        for id in deleted {
            guard let object = registeredObject(for: id) else { continue }
            gone.append(object)
        }
        if !gone.isEmpty {
            let goneSet = Set(gone.map(ObjectIdentifier.init))
            for object in gone {
                registry.remove(object.objectID, ifMatching: object)
                object.context = nil
                object.contents.leaveContext()
            }
            // Objects whose loaded relationships still point to a deleted object read them again.
            for object in registeredObjects where !object.isInserted && object.references(anyOf: goneSet) {
                refresh(object, mergeChanges: true, to: loadSnapshot(for: object.objectID))
                refreshed.append(object)
            }
        }
        refreshed += refreshMerging(updated.filter { !deleted.contains($0) }.compactMap { registeredObject(for: $0) })
        let inserted = mergedInsertions(objectIDs(in: changes, keys: [NSInsertedObjectsKey, NSInsertedObjectIDsKey]))
        // The save's own set of updated IDs when it carries one (the object-ID notification
        // does), so that announcing the merge costs no second set of every updated ID.
        let updatedIDs = changes[NSUpdatedObjectsKey] == nil ? changes[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID> : nil
        return MergedChanges(inserted: inserted, refreshed: refreshed, deleted: gone, deletedIDs: deleted,
                             updatedIDs: updatedIDs ?? Set(updated))
    }

    /// The objects of another context's insertions, as faults in this one (Core Data "faults
    /// in" a merge's new objects, so that observers, such as fetched results controllers, see
    /// them). IDs of stores this context does not reach are left out.
    private func mergedInsertions(_ ids: [NSManagedObjectID]) -> [NSManagedObject] {
        guard !ids.isEmpty, let stores = persistentStoreCoordinator?.persistentStores else { return [] }
        let reachable = Set(stores.map(ObjectIdentifier.init))
        return ids.compactMap { id in
            guard let store = id.persistentStore, reachable.contains(ObjectIdentifier(store)) else { return nil }
            return object(with: id)
        }
    }

    /// Refreshes `objects`, keeping their unsaved changes, with their saved states read in one
    /// request rather than one per object (one per object if that request fails). Returns the
    /// objects refreshed.
    private func refreshMerging(_ objects: [NSManagedObject]) -> [NSManagedObject] {
        let objects = objects.filter { !$0.isInserted }
        guard !objects.isEmpty else { return [] }
        guard let rows = try? parentStoreOrThrow().snapshots(for: objects.map(\.objectID), context: self) else {
            for object in objects { refresh(object, mergeChanges: true, to: loadSnapshot(for: object.objectID)) }
            return objects
        }
        var latest: [NSManagedObjectID: RowSnapshot] = [:]
        latest.reserveCapacity(rows.count)
        for row in rows { latest[row.objectID] = row }
        for object in objects { refresh(object, mergeChanges: true, to: latest.removeValue(forKey: object.objectID)) }
        return objects
    }

    private func objectIDs(in changes: [AnyHashable: Any], keys: [String]) -> [NSManagedObjectID] {
        var result: [NSManagedObjectID] = []
        for key in keys {
            // Sets and arrays of IDs, as the object-ID notifications carry them, without a cast
            // of each element.
            if let ids = changes[key] as? Set<NSManagedObjectID> {
                result.append(contentsOf: ids)
                continue
            }
            if let ids = changes[key] as? [NSManagedObjectID] {
                result.append(contentsOf: ids)
                continue
            }
            let values: [Any] = (changes[key] as? [Any]) ?? (changes[key] as? Set<AnyHashable>).map { $0.map(\.base) } ?? []
            for value in values {
                switch value {
                case let id as NSManagedObjectID: result.append(id)
                case let object as NSManagedObject: result.append(object.objectID)
                case let url as URL:
                    if let id = persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url) { result.append(id) }
                default: break
                }
            }
        }
        return result
    }
}

extension NSManagedObject {
    /// Whether a loaded relationship of this object holds one of `objects`.
    func references(anyOf objects: Set<ObjectIdentifier>) -> Bool {
        for relation in contents.relations {
            switch relation {
            case .toOne(let destination?): if objects.contains(ObjectIdentifier(destination)) { return true }
            case .toMany(let storage): if storage.orderedMembers.contains(where: { objects.contains(ObjectIdentifier($0)) }) { return true }
            default: break
            }
        }
        return false
    }
}
