import Foundation

extension NSManagedObjectContext {
    /// Undoes the last group of changes recorded in `undoManager`: pending changes are
    /// processed first (delete rules run, and the changes join the group), then the group is
    /// undone, and the undo's own changes processed. Does nothing without an undo manager.
    ///
    /// ```swift
    /// context.undoManager = UndoManager()
    /// person.setValue("Ann", forKey: "name")
    /// context.undo()        // person's name is what it was
    /// context.redo()        // "Ann" again
    /// ```
    public func undo() {
        checkQueue()
        guard let undoManager else { return }
        processPendingChanges()
        undoManager.undo()
        processPendingChanges()
    }

    /// Redoes the last group of changes `undo()` undid.
    public func redo() {
        checkQueue()
        guard let undoManager else { return }
        processPendingChanges()
        undoManager.redo()
        processPendingChanges()
    }

    // MARK: Recording

    /// Follows the undo manager's checkpoints (posted before a group closes and when undo or
    /// redo begins): pending changes are processed then, so that delete rules run inside the
    /// group of the deletion, the undo's or the redo's included.
    func observeUndoCheckpoints() {
        if let undoCheckpointObserver {
            NotificationCenter.default.removeObserver(undoCheckpointObserver)
            self.undoCheckpointObserver = nil
        }
        undoInsertions.clear()
        guard let undoManager else { return }
        undoCheckpointObserver = NotificationCenter.default.addObserver(
            forName: .NSUndoManagerCheckpoint, object: undoManager, queue: nil
        ) { [weak self] _ in
            // Posted on the thread using the undo manager: the context's own.
            guard let self, !self.isProcessingUndoCheckpoint, !self.isSaving else { return }
            self.isProcessingUndoCheckpoint = true
            defer { self.isProcessingUndoCheckpoint = false }
            self.processPendingChanges()
        }
    }

    /// Runs `body` without recording its changes for undo.
    func withoutRecordingUndo<T>(_ body: () throws -> T) rethrows -> T {
        undoRecordingSuspensions += 1
        defer { undoRecordingSuspensions -= 1 }
        return try body()
    }

    /// Whether a change of `object` is recorded for undo now: an undo manager is set, the change
    /// is the application's (not a fault filling in, a merge, `awakeFromInsert`), and the object
    /// was not inserted in the group recording now (the innermost open one) — undoing that group takes the new object
    /// back whole, and redoing it brings it back as it was then.
    ///
    /// Relationship changes of new objects are recorded all the same (`attribute` false): a
    /// new object saved since its group is deleted, not taken back whole, when the group is
    /// undone, and its relationships must be as they were before then.
    @inline(__always)
    func recordsUndo(of object: NSManagedObject, attribute: Bool = true) -> Bool {
        guard let undoManager, undoRecordingSuspensions == 0, !object.contents.state.contains(.trackingSuspended) else { return false }
        guard attribute, object.contents.state.contains(.inserted), undoInsertions.contains(object) else { return true }
        return undoInsertions.groupNumber != undoManager.openGroupNumber
    }

    /// Registers `revert`, which reverts a change just being made.
    func recordUndo(_ revert: @escaping (NSManagedObjectContext) -> Void) {
        undoManager?.registerUndo(withTarget: self, handler: revert)
    }

    /// Records the insertion of `object`: the objects inserted in one group are taken back by
    /// one operation of the group.
    func recordInsertion(of object: NSManagedObject) {
        guard let undoManager, undoRecordingSuspensions == 0, undoManager.isUndoRegistrationEnabled else { return }
        let open = undoManager.openGroupNumber
        if open == nil || open != undoInsertions.groupNumber || undoInsertions.batch == nil {
            let batch = UndoInsertions.Batch()
            undoInsertions.batch = batch
            recordUndo { context in context.takeBackInsertions(batch.objects) }
            // Registering opened the group when none was (grouping by event).
            undoInsertions.groupNumber = undoManager.openGroupNumber
            undoInsertions.identities = []
        }
        undoInsertions.batch?.objects.append(object)
        undoInsertions.identities.insert(ObjectIdentifier(object))
    }

    /// Undoes insertions: new objects leave the context, keeping their values and relationships
    /// for a redo; an object saved since is deleted instead.
    private func takeBackInsertions(_ objects: [NSManagedObject]) {
        var leaving: [NSManagedObject] = []
        for object in objects.reversed() where object.context === self {
            if object.hasSnapshot {
                guard !object.isDeleted else { continue }
                delete(object)
                pendingSnapshotEvents.note(.undoInsertion, for: object)
            } else if object.contents.state.contains(.inserted) {
                leaving.append(object)
                pendingSnapshotEvents.note(.undoInsertion, for: object)
            }
        }
        guard !leaving.isEmpty else { return }
        let identities = Set(leaving.map(ObjectIdentifier.init))
        inserted.remove { identities.contains(ObjectIdentifier($0)) }
        for object in leaving {
            if let location = object.rowLocation {
                registry.remove(location, ifMatching: object)
                if IncrementalStores.mayBeInUse { noteUnregistered([object.objectID]) }
            }
            object.contents.leaveContext()
            object.context = nil
            eventDeleted.append(object)
        }
        changeGeneration &+= 1
        let brought = leaving
        recordUndo { context in context.bringBack(brought.reversed()) }
    }

    /// Redoes insertions (or undoes the saved deletion of objects): they come back as new
    /// objects, with the values and relationships they had, without a second `awakeFromInsert`.
    func bringBack(_ objects: [NSManagedObject]) {
        for object in objects where object.context == nil {
            // A stale candidate of the inserted list (an object inserted and deleted before a
            // save leaves it there) must not be listed twice.
            inserted.remove { $0 === object }
            object.context = self
            object.contents.comeBack()
            if object.rowLocation != nil, registry[object.objectID] == nil { registry.insert(object, for: object.objectID) }
            changeGeneration &+= 1
            inserted.add(object)
            noteInEvent(object, updated: false)
            recordInsertion(of: object)
            pendingSnapshotEvents.note(.undoDeletion, for: object)
        }
    }

    /// Undoes the deletion of `object`: it is no longer deleted (and comes back as a new object
    /// when the deletion was saved since).
    func takeBackDeletion(of object: NSManagedObject) {
        if object.context == nil {
            bringBack([object])
            return
        }
        guard object.context === self, object.contents.state.contains(.deleted) else { return }
        object.contents.state.remove([.deleted, .deletionPropagated])
        eventDeleted.removeAll { $0 === object }
        changeGeneration &+= 1
        // Listed without the event flag: the object's next change must still mark it updated.
        noteListedUnchanged(object)
        if object.contents.state.contains(.inserted) { eventInserted.append(object) } else { eventUpdated.append(object) }
        recordUndo { context in
            // Redoing the deletion: the object is gone again, as when an undo takes back an insertion.
            guard object.context === context, !object.isDeleted else { return }
            context.delete(object)
            context.pendingSnapshotEvents.note(.undoInsertion, for: object)
        }
        pendingSnapshotEvents.note(.undoDeletion, for: object)
    }
}

/// The objects a context inserted in the undo group being recorded.
final class UndoInsertions {
    /// The list one undo operation takes back.
    final class Batch {
        var objects: [NSManagedObject] = []
    }

    var groupNumber: Int?
    var batch: Batch?
    var identities: Set<ObjectIdentifier> = []

    /// Forgets the group being recorded (the undo manager was cleared or replaced).
    func clear() {
        groupNumber = nil
        batch = nil
        identities = []
    }

    func contains(_ object: NSManagedObject) -> Bool {
        identities.contains(ObjectIdentifier(object))
    }
}
