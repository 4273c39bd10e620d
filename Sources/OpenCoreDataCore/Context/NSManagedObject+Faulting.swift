import Foundation

extension NSManagedObject {
    /// Loads the object's values if it is still a fault. Every property access goes through here.
    @inline(__always)
    func willAccess() {
        // Decided from the state alone: the values live in an allocation of their own, which a
        // pass over many objects (delete rules, say) need not otherwise touch.
        if contents.state.contains(.fault) {
            fulfillFault()
        } else if contents.state.contains(.needsDefaultValues) {
            contents.fillWithDefaults(entity.layout.defaultValues)
        }
    }


    /// Whether the object has a snapshot; checked in place (comparing the optional with nil
    /// would copy the snapshot).
    var hasSnapshot: Bool {
        if case .some = contents.snapshot { return true }
        return false
    }

    /// Turns a fault into a realized object: from the snapshot the fetch brought along when there
    /// is one (no I/O), otherwise from the store.
    func fulfillFault() {
        if !hasSnapshot, let context, let (batch, index) = contents.faultBatch {
            batch.loadBatch(containing: index, into: context)
        }
        if !hasSnapshot || hasStaleSnapshot, let context {
            do {
                contents.snapshot = try context.fetchSnapshot(for: objectID)
            } catch {
                becomeUnreadable(error)
                return
            }
            if storedObjectID?.isTemporaryID == true, hasSnapshot { context.adoptPermanentIDOfSnapshot(of: self) }
        }
        if let values = contents.snapshot?.values {
            contents.fill(with: values)
            if entity.layout.hasTransientAttributes { applyTransientDefaults() }
        } else {
            // The row is gone (deleted elsewhere): as Core Data with shouldDeleteInaccessibleFaults,
            // the object reads as deleted, with nil properties. Filled before the context is
            // asked, so that an override reading the object does not fire it again.
            contents.fillAsInaccessible(attributeCount: entity.layout.attributes.count)
            if let context, !context.shouldHandleInaccessibleFault(self, for: objectID, triggeredByProperty: nil) {
                // Where Core Data raises (an exception Swift cannot catch), the object reads nil
                // and a save refuses it, naming why.
                contents.state.remove(.inaccessible)
                becomeUnreadable(reason: Self.vanishedRowReason)
            }
        }
        withTrackingSuspended { awakeFromFetch() }
    }

    /// What a fault whose row could not be read (an I/O error, a store gone) becomes: an object
    /// reading nil, which a save refuses (a validation error carrying the reason) rather than
    /// write values that were never read. `refresh(_:mergeChanges: false)` makes it a fault
    /// again, to try once more. Core Data stops the program here instead.
    private func becomeUnreadable(_ error: Error) {
        becomeUnreadable(reason: "its values could not be read from the store: \((error as NSError).localizedDescription)")
    }

    /// Why an object whose row is gone, and which its context did not let pass as deleted, is
    /// unreadable (see `shouldHandleInaccessibleFault(_:for:triggeredByProperty:)`).
    static let vanishedRowReason = "its row is no longer in the store"

    /// Whether the object is unreadable because its row is gone (not for a failed read).
    var isUnreadableForVanishedRow: Bool {
        // Asked of every object a parent hands a child: most have no refused values at all.
        !contents.rejectedValues.isEmpty && contents.rejectedValues[ObjectContents.unreadableKey] == Self.vanishedRowReason
    }

    private func becomeUnreadable(reason: String) {
        contents.fillAsUnreadable(attributeCount: entity.layout.attributes.count, reason: reason)
    }


    /// Whether the object's row could not be read when it was last fired.
    var isUnreadable: Bool { contents.rejectedValues[ObjectContents.unreadableKey] != nil }

    /// Whether the row this fault carries is older than its context allows. Reads only the
    /// interval in the usual case (no limit), without copying the snapshot.
    private var hasStaleSnapshot: Bool {
        guard NSManagedObjectContext.stalenessLimitsInUse.load(ordering: .relaxed) else { return false }
        let interval = context?.stalenessInterval ?? -1
        guard interval >= 0, case .some(let snapshot) = contents.snapshot else { return false }
        return snapshot.isStale(after: interval)
    }

    private func applyTransientDefaults() {
        for attribute in entity.layout.attributes where attribute.isTransient {
            contents.values[attribute.attributeSlot] = attribute.defaultPrimitive
        }
    }

    /// Runs `body` with change tracking off, as Core Data does around `awakeFromFetch`.
    func withTrackingSuspended<T>(_ body: () throws -> T) rethrows -> T {
        let wasSuspended = contents.state.contains(.trackingSuspended)
        contents.state.insert(.trackingSuspended)
        defer { if !wasSuspended { contents.state.remove(.trackingSuspended) } }
        return try body()
    }

    /// Turns the object back into a fault, dropping its values (and, unless `keepingChanges`, its
    /// unsaved changes). Used by `refresh(_:mergeChanges:)` and after a save.
    func turnIntoFault(snapshot newSnapshot: RowSnapshot?, clearingFlags: Bool = false) {
        willTurnIntoFault()
        keepIdentityOfSnapshot()
        contents.enterFault(of: newSnapshot, clearingFlags: clearingFlags)
        didTurnIntoFault()
    }
}
