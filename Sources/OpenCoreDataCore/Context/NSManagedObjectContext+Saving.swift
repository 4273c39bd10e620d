import Foundation

extension NSManagedObjectContext {
    /// Writes every pending insert, update and delete to the persistent stores, atomically per
    /// store.
    ///
    /// Runs delete rules, calls `willSave` on changed objects, validates them (throwing
    /// Core Data's validation errors, several as `NSValidationMultipleErrorsError`), then writes.
    /// A failed save writes nothing and leaves every pending change in the context, so you can
    /// fix the problem and save again. Saving with no changes does nothing.
    public func save() throws {
        checkQueue()
        guard !isSaving else {
            throw CoreDataError.make(.coreData, "save() was called while the context was already saving (from willSave or a notification)")
        }
        // The sets the save's own ObjectsDidChange carries are kept for DidSave to reuse, and
        // only for the length of the save.
        defer { postedChanges = nil }
        keepsPostedChanges = true
        processPendingChanges()
        keepsPostedChanges = false
        propagateDeletions()  // when propagatesDeletesAtEndOfEvent is false, delete rules run now
        guard hasChanges else { return }
        isSaving = true
        defer { isSaving = false }
        let coordinator = try coordinatorOrThrow()
        let parentStore = try parentStoreOrThrow()

        NotificationCenter.default.post(name: .NSManagedObjectContextWillSave, object: self)
        callWillSave()
        // A child's new objects reach its parent with permanent IDs (where Core Data leaves them
        // temporary until the parent saves): every context then names them alike.
        // Their temporary IDs keep naming them, here and in the parent.
        let formerTemporaryIDs = parent == nil ? [] : try givePermanentIDs(to: inserted.members)
        var plan = try validatedPlan(coordinator: coordinator)
        plan.formerTemporaryIDs = formerTemporaryIDs
        // Saves to the stores are serialised in the process while they settle conflicts, so
        // that no other save commits between a policy's read of a row and the write it chose.
        let outcomes: [SaveOutcome]
        if parent == nil {
            (plan, outcomes) = try coordinator.withSavesSerialized {
                try write(plan, to: parentStore, coordinator: coordinator, formerTemporaryIDs: formerTemporaryIDs)
            }
        } else {
            (plan, outcomes) = try write(plan, to: parentStore, coordinator: coordinator, formerTemporaryIDs: formerTemporaryIDs)
        }
        // A context pinned to a query generation reads the state its save made, and after.
        if parent == nil { advanceQueryGeneration() }
        conflictDetectionMarks = [:]
        finishSave(plan: plan, outcomes: outcomes)
    }

    /// Writes `plan` to the parent; on conflicts, lets the merge policy settle them and writes
    /// what it chose (a few times, should the policy's choices conflict again). Returns the plan
    /// written.
    ///
    /// From a root save's first conflict on, its stores are held (`StoreWriteHold`): no other
    /// process writes between the policy's reading of the rows and the next try, so that
    /// several processes saving the same objects meet only what their policies decide.
    private func write(_ plan: SavePlan, to parentStore: any ParentObjectStore, coordinator: NSPersistentStoreCoordinator,
                       formerTemporaryIDs: [(temporary: NSManagedObjectID, permanent: NSManagedObjectID)]) throws -> (SavePlan, [SaveOutcome]) {
        var plan = plan
        var rounds = 0
        var hold = StoreWriteHold()
        defer { hold.abandon() }
        while true {
            let outcomes: [SaveOutcome]
            do {
                outcomes = try hold.tryWriting { try parentStore.save(plan) }
            } catch let failure as ParentSaveFailure {
                // Nothing was written: the merge policy settles the conflicts and the save is
                // tried again with what it chose. The conflicts are read, and settled, with the
                // stores held and as they are now, not as a pinned generation has them (a save
                // that meets conflicts moves its context to the newest generation, settled or not).
                if parent == nil && failure.incomplete == nil && failure.isConflict {
                    try translatingFailures { try hold.hold(plan.changesByStore.map(\.store)) }
                    advanceQueryGeneration()
                }
                let error = translate(failure)
                guard failure.incomplete == nil, rounds < Self.mergeRounds,
                      let conflicts = (error as NSError).userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [Any], !conflicts.isEmpty
                else { throw error }
                try (mergePolicy as? NSMergePolicy ?? NSMergePolicy.error).resolve(mergeConflicts: conflicts)
                rounds += 1
                // The policy may have deleted objects again (their rules run on the rows as they
                // are now) or changed them: rules and validation run again before the next try.
                propagateDeletions()
                plan = try validatedPlan(coordinator: coordinator)
                plan.formerTemporaryIDs = formerTemporaryIDs
                // A store the policy's choices reach only now is held too.
                if hold.isHolding { try translatingFailures { try hold.hold(plan.changesByStore.map(\.store)) } }
                continue
            }
            try translatingFailures { try hold.commit() }
            return (plan, outcomes)
        }
    }

    /// Runs `body`, telling a `ParentSaveFailure` it throws as Core Data's error.
    private func translatingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as ParentSaveFailure {
            throw translate(failure)
        }
    }

    /// How many times a save lets its merge policy settle conflicts before it gives up with them.
    static let mergeRounds = 3

    /// The changes as they stand now (willSave or a merge policy may have made some), listed
    /// once for both validation and the plan.
    private func validatedPlan(coordinator: NSPersistentStoreCoordinator) throws -> SavePlan {
        let inserted = inserted.members, updated = updated.members, deleted = deleted.members
        if validatesChangesOnSave { try validatePendingChanges(inserted: inserted, updated: updated, deleted: deleted) }
        return try SavePlan(inserted: inserted, updated: updated, deleted: deleted, locked: objectsLockedBySave(),
                            coordinator: coordinator, context: self)
    }

    /// Saves only when there is something to save; the convenience every Core Data stack writes
    /// by hand. Returns whether anything was saved.
    @discardableResult
    public func saveIfChanged() throws -> Bool {
        processPendingChanges()
        guard hasChanges else { return false }
        try save()
        return true
    }

    /// Gives the objects permanent IDs now, without saving them (they stay inserted). Their
    /// temporary IDs keep finding them until the context saves to a store or is reset.
    public func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        checkQueue()
        _ = try givePermanentIDs(to: objects)
    }

    /// Gives the new objects among `objects` permanent IDs, remembering their temporary ones
    /// (which keep finding them): the temporary and permanent ID of each.
    func givePermanentIDs(to objects: [NSManagedObject]) throws -> [(temporary: NSManagedObjectID, permanent: NSManagedObjectID)] {
        let temporary = objects.filter { $0.context === self && $0.objectID.isTemporaryID }
        guard !temporary.isEmpty else { return [] }
        let ids = try parentStoreOrThrow().newPermanentIDs(for: temporary)
        var pairs: [(temporary: NSManagedObjectID, permanent: NSManagedObjectID)] = []
        pairs.reserveCapacity(ids.count)
        for (object, id) in zip(temporary, ids) {
            pairs.append((object.objectID, id))
            permanentIDsOfTemporaryIDs[object.objectID] = id
            changeID(of: object, to: id)
        }
        return pairs
    }

    // MARK: Steps

    private func callWillSave() {
        let generation = changeGeneration
        // Identities only: remembering the objects themselves would retain each one.
        var visited: [ObjectIdentifier] = []
        for list in [inserted, updated, deleted] {
            list.forEachMember { object in
                visited.append(ObjectIdentifier(object))
                object.willSave()
            }
        }
        propagateDeletions()
        guard changeGeneration != generation else { return }
        // willSave may insert, change or delete other objects; those get their willSave too, in a
        // bounded number of rounds so that a willSave that always changes something terminates.
        var called = Set(visited)
        for _ in 0..<10 {
            let pending = (inserted.members + updated.members + deleted.members).filter { !called.contains(ObjectIdentifier($0)) }
            if pending.isEmpty { break }
            for object in pending {
                called.insert(ObjectIdentifier(object))
                object.willSave()
            }
            propagateDeletions()
        }
    }

    /// Asks every changed object to validate itself, through the methods subclasses override
    /// (`validateForInsert`, `validateForUpdate`, `validateForDelete`), and throws what they
    /// found: the one error, or `NSValidationMultipleErrorsError` (1560) listing all of them, the
    /// lists of objects that found several flattened into it, as Core Data does.
    private func validatePendingChanges(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) throws {
        // Plain loops: a method reference passed as a closure would allocate a context per object.
        var errors: [Error] = []
        for object in inserted {
            do { try object.validateForInsert() } catch { errors += CoreDataError.individualErrors(in: error) }
        }
        for object in updated {
            do { try object.validateForUpdate() } catch { errors += CoreDataError.individualErrors(in: error) }
        }
        for object in deleted {
            do { try object.validateForDelete() } catch { errors += CoreDataError.individualErrors(in: error) }
        }
        if let error = CoreDataError.combine(errors) { throw error }
    }

    /// The Core Data error of a save the parent could not write, with this context's objects in
    /// its conflicts.
    private func translate(_ failure: ParentSaveFailure) -> Error {
        let cause = translateSaveError(failure.underlying, store: failure.store)
        guard let (message, stores) = failure.incomplete else { return cause }
        return CoreDataError.make(.persistentStoreIncompleteSave, message,
                                  [NSAffectedStoresErrorKey: stores, NSUnderlyingErrorKey: cause as NSError])
    }

    func translateSaveError(_ error: Error, store: NSPersistentStore) -> Error {
        // The conflict types here are those `ParentSaveFailure.isConflict` names.
        switch error {
        case let failure as OptimisticLockingFailure:
            return mergeError(for: [failure], store: store)
        case let failures as OptimisticLockingFailures:
            return mergeError(for: failures.failures, store: store)
        case let uniqueness as UniquenessConflicts:
            return constraintError(for: uniqueness.conflicts, store: store)
        case is CocoaError:
            return error
        default:
            return CoreDataError.store(.persistentStoreSave, "The save to \(store.url?.path ?? "the store") failed", url: store.url,
                                       underlying: error)
        }
    }

    /// The 133020 error for rows changed or deleted in the store since this context read them:
    /// one `NSMergeConflict` each, with the store's current values read back.
    private func mergeError(for failures: [OptimisticLockingFailure], store: NSPersistentStore) -> CocoaError {
        let conflicts: [NSMergeConflict] = failures.compactMap { failure in
            guard let object = registeredObject(for: failure.objectID) else { return nil }
            let persisted = failure.storeVersion == 0 ? nil : loadSnapshot(for: failure.objectID)
            return NSMergeConflict(source: object, newVersion: Int(failure.storeVersion), oldVersion: Int(object.contents.snapshot?.version ?? 0),
                                   cachedSnapshot: object.contents.snapshot.map(NSMergeConflict.values(of:)),
                                   persistedSnapshot: persisted.map(NSMergeConflict.values(of:)))
        }
        return NSMergePolicy.mergeError(for: conflicts)
    }

    /// The 133021 error for uniqueness constraints a save would break: one `NSConstraintConflict`
    /// each, with this context's objects and the saved object's values read back (the save was
    /// rolled back, so the store shows what was there before).
    private func constraintError(for found: [UniquenessConflicts.Conflict], store: NSPersistentStore) -> CocoaError {
        let conflicts = found.map { conflict in
            let objects = conflict.objectIDs.compactMap(registeredObject(for:))
            return NSConstraintConflict(constraint: conflict.properties, databaseObject: conflict.databaseObjectID.map { object(with: $0) },
                                        databaseSnapshot: conflict.databaseObjectID.flatMap(loadSnapshot(for:)).map(NSMergeConflict.values(of:)),
                                        conflictingObjects: objects, conflictingSnapshots: objects.map(NSMergeConflict.values(of:)))
        }
        return NSMergePolicy.constraintError(for: conflicts)
    }

    private func finishSave(plan: SavePlan, outcomes: [SaveOutcome]) {
        let savedAt = SnapshotClock.now()
        for (entry, outcome) in zip(plan.changesByStore, outcomes) {
            registry.reserveCapacity(forObjectsWith: outcome.insertedIDs)
            for (object, id) in zip(entry.changes.insertedObjects, outcome.insertedIDs) where object.storedObjectID !== id {
                changeID(of: object, to: id)
            }
        }
        for object in plan.insertedObjects {
            object.contents.commit(plan.committedSnapshot(of: object, version: 1, savedAt: savedAt))
            object.markRelationshipsCommitted()
        }
        // A save into a parent context leaves the versions as they were read: nothing reached a
        // store.
        let versionStep: Int64 = parent == nil ? 1 : 0
        for object in plan.updatedObjects {
            object.contents.commit(plan.committedSnapshot(of: object, version: (object.contents.snapshot?.version ?? 0) + versionStep, savedAt: savedAt))
            object.markRelationshipsCommitted()
        }
        if IncrementalStores.mayBeInUse { noteUnregistered(registeredIncrementalStoreIDs(among: plan.deletedObjects)) }
        for object in plan.deletedObjects {
            if let location = object.rowLocation { registry.remove(location, ifMatching: object) }
            object.context = nil
            object.contents.leaveContext()
        }
        detachInsertedThenDeletedObjects()
        if !storeAssignments.isEmpty { storeAssignments = [:] }
        // Once saved to a store, temporary IDs are spent, as in Core Data.
        if parent == nil, !permanentIDsOfTemporaryIDs.isEmpty { permanentIDsOfTemporaryIDs = [:] }
        // Every saved object's state was just cleared, listing flags included.
        inserted.removeAll(clearedMembers: plan.insertedObjects.count)
        updated.removeAll(clearedMembers: plan.updatedObjects.count)
        deleted.removeAll(clearedMembers: plan.deletedObjects.count)
        let posted = postedChanges
        // Changes made during the save (in willSave, by a merge policy) are announced before
        // DidSave. (Not cleared again afterwards: what observers change in response is the next
        // event's.)
        postObjectsDidChange()
        postedChanges = nil
        for object in plan.insertedObjects { object.didSave() }
        for object in plan.updatedObjects { object.didSave() }
        for object in plan.deletedObjects { object.didSave() }
        postDidSave(inserted: plan.insertedObjects, updated: plan.updatedObjects, deleted: plan.deletedObjects, reusing: posted,
                    ids: plan.savedObjectIDs(insertedIDs: outcomes.map(\.insertedIDs)))
    }
}

extension NSManagedObject {
    func markRelationshipsCommitted() {
        for case .toMany(let storage) in contents.relations { storage.hasChanges = false }
    }
}
