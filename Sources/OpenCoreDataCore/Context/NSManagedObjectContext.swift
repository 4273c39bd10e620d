import Dispatch
import Foundation
import Synchronization

/// A scratch pad of managed objects: fetch them, change them, and save the changes together.
///
/// ```swift
/// let context = container.viewContext
/// let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
/// entry.setValue(42, forKey: "age")
/// try context.save()
/// ```
/// A context and its objects belong to one queue: the main queue (`.mainQueueConcurrencyType`)
/// or a private one (`.privateQueueConcurrencyType`). Use `perform` or `performAndWait` to work
/// on a private-queue context. In debug builds a private-queue context used outside its queue
/// stops the program with a message (set `OCD_CONCURRENCY_DEBUG=1` to check main-queue
/// contexts too, like Core Data's `-com.apple.CoreData.ConcurrencyDebug 1`).
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the context may be handed to any thread, but its state is only read
    // and written on its own queue (`perform`, `performAndWait`), which the debug check enforces.

    /// Where a context runs its work, as Apple's Swift overlay spells it since iOS 15:
    /// `NSManagedObjectContext(.privateQueue)`.
    public struct ConcurrencyType: Hashable, Sendable, RawRepresentable {
        public var rawValue: NSManagedObjectContextConcurrencyType

        public init(rawValue: NSManagedObjectContextConcurrencyType) {
            self.rawValue = rawValue
        }

        /// A private serial queue; use `perform` / `performAndWait`.
        public static let privateQueue = ConcurrencyType(rawValue: .privateQueueConcurrencyType)
        /// The main queue.
        public static let mainQueue = ConcurrencyType(rawValue: .mainQueueConcurrencyType)
    }

    /// When an async `perform` runs its block.
    public enum ScheduledTaskType: Sendable {
        /// As soon as possible.
        case immediate
        /// After the work already queued.
        case enqueued
    }

    public let concurrencyType: NSManagedObjectContextConcurrencyType
    /// A name for debugging, recorded as `contextName` in the persistent history of its saves.
    public var name: String?
    /// Whatever the application keeps with the context; used, as the context, on its queue.
    ///
    /// ```swift
    /// context.userInfo["importBatch"] = 7
    /// ```
    public private(set) lazy var userInfo = NSMutableDictionary()
    /// Who makes this context's saves and batch requests, as persistent history records it
    /// (`NSPersistentHistoryTransaction.author`): set it to tell your own changes from those of
    /// other contexts or processes when you read history.
    ///
    /// ```swift
    /// context.transactionAuthor = "importer"
    /// ```
    public var transactionAuthor: String?
    /// How a save settles rows changed in the store since this context read them: an
    /// `NSMergePolicy` (or one of the `NSErrorMergePolicy`… constants). The default fails the
    /// save with every conflict listed.
    ///
    /// ```swift
    /// context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    /// ```
    /// A value that is not an `NSMergePolicy` is treated as the error policy.
    public var mergePolicy: Any = NSErrorMergePolicy
    /// The coordinator whose stores this context fetches from and saves to. For a child context
    /// (one with a `parent`), the coordinator at the root of its chain of parents.
    public var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        didSet { model = persistentStoreCoordinator?.managedObjectModel }
    }
    /// The context this one reads from and saves to in place of a coordinator: its save pushes
    /// its changes into the parent (nothing reaches a store until the parent saves), and its
    /// fetches and faults see the parent's unsaved state.
    ///
    /// ```swift
    /// let editor = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    /// editor.parent = container.viewContext
    /// try editor.performAndWait {
    ///     let entry = try editor.existingObject(with: entryID)
    ///     entry.setValue("Edited", forKey: "title")
    ///     try editor.save()           // the view context now has the change, unsaved
    /// }
    /// try container.viewContext.save() // and this writes it
    /// ```
    /// Setting a parent makes the context use the parent's coordinator (set the parent's
    /// coordinator or parent first). Differences from Core Data: setting both a parent and a
    /// coordinator is not an error (the parent's coordinator wins), and a child's save gives its
    /// new objects permanent IDs before it pushes them, so the parent never holds the child's
    /// temporary IDs (see `Docs/Differences.md`).
    public var parent: NSManagedObjectContext? {
        didSet {
            var ancestor = parent
            while let context = ancestor {
                precondition(context !== self, "A context can't be its own ancestor")
                ancestor = context.parent
            }
            if let parent { persistentStoreCoordinator = parent.persistentStoreCoordinator }
            if automaticallyMergesChangesFromParent { observeSiblingSaves(true) }
        }
    }
    /// Whether the context merges, on its own queue, what other contexts of its coordinator save.
    ///
    /// ```swift
    /// container.viewContext.automaticallyMergesChangesFromParent = true
    /// container.performBackgroundTask { background in /* …changes… */ try? background.save() }
    /// // once the main queue has run the merge, the view context's objects show the save
    /// ```
    /// The context follows the saves of its parent (a child merges what its parent context
    /// saves) and the saves of its siblings (the other contexts saving to the same parent
    /// context, or to the same coordinator for a context without a parent), as
    /// `mergeChanges(fromContextDidSave:)` merges them.
    ///
    /// Merges run on the context's queue. Difference from Core Data: a main-queue context whose
    /// queue nothing services (no run loop, no async main) also merges them the next time it
    /// fetches, counts, saves or processes pending changes (see `Docs/Differences.md`).
    public var automaticallyMergesChangesFromParent = false {
        didSet { if automaticallyMergesChangesFromParent != oldValue { observeSiblingSaves(automaticallyMergesChangesFromParent) } }
    }
    /// The observation of other contexts' saves while `automaticallyMergesChangesFromParent` is on.
    var siblingSaveObserver: NSObjectProtocol?
    /// The observation of saves other processes made, announced by a store, while
    /// `automaticallyMergesChangesFromParent` is on.
    var remoteSaveObserver: NSObjectProtocol?
    /// Whether the context keeps every registered object alive (default false: only changed
    /// objects are kept; unchanged ones go away when the application lets go of them).
    @exclusivity(unchecked) public var retainsRegisteredObjects = false {
        didSet { retainedObjects = retainsRegisteredObjects ? Set(registeredObjects) : [] }
    }
    /// Whether delete rules run at the end of each event (`processPendingChanges`); when false
    /// they run at save.
    public var propagatesDeletesAtEndOfEvent = true
    /// Whether a fault whose row has disappeared reads as a deleted object with nil values
    /// (what `shouldHandleInaccessibleFault(_:for:triggeredByProperty:)` answers unless
    /// overridden).
    ///
    /// Difference from Core Data: with `false` Core Data raises `NSObjectInaccessibleException`,
    /// which Swift cannot catch; OpenCoreData makes the object unreadable instead: it is not
    /// deleted, reads nil, and a save that includes it fails with a validation error (1550)
    /// saying that its row is gone. Use `existingObject(with:)` to get a thrown error for a
    /// missing row up front.
    public var shouldDeleteInaccessibleFaults = true
    /// How old, in seconds, the row data a fault carries may be before firing the fault reads
    /// the row again from the store; negative (the default) means any age, 0 always rereads.
    ///
    /// ```swift
    /// context.stalenessInterval = 0   // faults always show what the store holds now
    /// ```
    /// The age counts from when a fetch (or this context's save) read or wrote the row.
    @exclusivity(unchecked) public final var stalenessInterval: TimeInterval = -1 {
        didSet { if stalenessInterval >= 0 { Self.stalenessLimitsInUse.store(true, ordering: .relaxed) } }
    }
    /// Whether any context has ever set a staleness limit: until one has, firing a fault skips
    /// the check (reading the context's interval per fault costs a retain of the context).
    static let stalenessLimitsInUse = Atomic<Bool>(false)

    var model: NSManagedObjectModel?
    let queue: DispatchQueue?
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    // `@exclusivity(unchecked)` on the fields touched for every fetched, inserted or changed
    // object: a context is confined to its queue, so they are never accessed concurrently, and
    // the dynamic check cost as much as the registration itself. `final`, so that they are read
    // directly rather than through overridable accessors.

    /// Every registered object by ID. Unowned: objects remove themselves when they go away.
    @exclusivity(unchecked) final var registry = ObjectRegistry()
    @exclusivity(unchecked) final var inserted = ChangeList(.inserted)
    @exclusivity(unchecked) final var updated = ChangeList(.updated)
    @exclusivity(unchecked) final var deleted = ChangeList(.deleted)
    /// Deleted objects whose delete rules have not run yet.
    @exclusivity(unchecked) final var pendingDeletions: [NSManagedObject] = []
    /// Whether an object inserted since the last save may have been deleted again: only then do
    /// the inserted objects need a pass to let such objects go.
    @exclusivity(unchecked) final var mayHaveInsertedThenDeleted = false
    @exclusivity(unchecked) final var retainedObjects: Set<NSManagedObject> = []
    /// Faults made by `object(with:)` for temporary IDs of other contexts.
    @exclusivity(unchecked) final var strayFaults: [NSManagedObject] = []
    /// The permanent IDs of objects first known here by a temporary ID that became permanent
    /// without a save of this context: a parent's new objects a child read, or a child's
    /// faults for them. `object(with:)` of the temporary ID finds the object again.
    final var permanentIDsOfTemporaryIDs: [NSManagedObjectID: NSManagedObjectID] = [:]
    /// Saves this context follows (`automaticallyMergesChangesFromParent`) that arrived from
    /// other queues and are not merged yet.
    let arrivedSaves = ArrivedSaves()
    var isMergingArrivedSaves = false
    /// Ends the sequences of `changes` when the context goes away.
    let changeStreamEnds = ChangeStreamEnds()
    /// Records changes so that `undo()` and `redo()` can take them back and apply them again;
    /// nil (the default, as on iOS) records nothing.
    ///
    /// ```swift
    /// context.undoManager = UndoManager()
    /// ```
    /// Changes are recorded as they are made (attributes, to-one and to-many relationships on
    /// both sides, insertions, deletions with what their delete rules did), into the undo
    /// manager's open group. Setting it does not record what happened before. Differences from
    /// Core Data: on macOS Core Data gives each context one; here every context starts without.
    /// An object whose changes were all undone may stay listed as updated (with its saved
    /// values: saving it writes nothing).
    @exclusivity(unchecked) public final var undoManager: UndoManager? {
        didSet { observeUndoCheckpoints() }
    }
    /// The objects inserted in the undo group being recorded (see `recordInsertion(of:)`).
    let undoInsertions = UndoInsertions()
    /// What undo and redo reset in objects, told to them at the end of the event.
    let pendingSnapshotEvents = PendingSnapshotEvents()
    /// Processes pending changes at each checkpoint of `undoManager`, as Core Data does, so that
    /// delete rules land in the group of the deletion.
    var undoCheckpointObserver: NSObjectProtocol?
    var isProcessingUndoCheckpoint = false
    /// While positive, changes are not recorded for undo: they are not the application's (a
    /// refresh keeping changes, a merge policy settling, a child's save applied).
    @exclusivity(unchecked) final var undoRecordingSuspensions = 0
    /// The generation of the stores the context reads (`setQueryGenerationFrom(_:)`).
    let queryGenerationSetting = QueryGenerationSetting()
    /// Objects changed since the last `processPendingChanges` (for ObjectsDidChange).
    @exclusivity(unchecked) final var eventInserted: [NSManagedObject] = []
    @exclusivity(unchecked) final var eventUpdated: [NSManagedObject] = []
    @exclusivity(unchecked) final var eventDeleted: [NSManagedObject] = []
    /// Objects refreshed since the last `processPendingChanges` (NSRefreshedObjectsKey).
    @exclusivity(unchecked) final var eventRefreshed: [NSManagedObject] = []
    /// What objects that were already changed (or inserted) before the current event held when
    /// it began, kept at their first change in it (`changedValuesForCurrentEvent()`); objects
    /// unchanged since their last save start from their snapshot and are not kept here.
    @exclusivity(unchecked) final var eventBases: [ObjectIdentifier: EventBase] = [:]
    /// The event `NSManagedObjectContextObjectsDidChange` is being posted for, while it is.
    @exclusivity(unchecked) final var postingEvent: (changes: PostedChangeSets, bases: [ObjectIdentifier: EventBase])?
    /// What follows the change events in this process: fetched results controllers, and the
    /// feeds of `fetchedResultsUpdates(for:)`.
    final var changeObservers: [WeakChangeObserver] = []
    /// The sets the save's ObjectsDidChange carried, for its DidSave to reuse (see `save()`).
    @exclusivity(unchecked) final var postedChanges: PostedChangeSets?
    @exclusivity(unchecked) final var keepsPostedChanges = false
    /// New objects' stores chosen with `assign(_:to:)`, by object.
    final var storeAssignments: [ObjectIdentifier: StoreAssignment] = [:]
    /// The lock of `lock()`, `unlock()` and `tryLock()`.
    final let clientLock = NSRecursiveLock()
    /// Objects marked with `detectConflicts(for:)` since the last save, by identity.
    final var conflictDetectionMarks: [ObjectIdentifier: NSManagedObject] = [:]
    var isSaving = false
    /// Whether `save()` validates the changed objects; a migration's destination context saves
    /// objects in batches before their relationships exist, and validates them itself.
    package var validatesChangesOnSave = true
    /// Counts objects entering the inserted, updated and deleted sets (to notice changes made by
    /// `willSave`).
    var changeGeneration = 0

    /// Creates a context of the confinement type (`.confinementConcurrencyType`), used on the
    /// thread that made it: Core Data's oldest initializer, deprecated by Apple for
    /// `init(concurrencyType:)`.
    ///
    /// ```swift
    /// let context = NSManagedObjectContext()   // NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
    /// ```
    public override convenience init() {
        self.init(concurrencyType: .confinementConcurrencyType)
    }

    /// Creates a context of the given type: `NSManagedObjectContext(.mainQueue)`.
    public convenience init(_ type: ConcurrencyType) {
        self.init(concurrencyType: type.rawValue)
    }

    /// Creates a context of the given type. Attach a coordinator before using it.
    public init(concurrencyType: NSManagedObjectContextConcurrencyType) {
        self.concurrencyType = concurrencyType
        self.queue = Self.queue(for: concurrencyType)
        super.init()
        markOwnQueue()
    }

    /// The queue a context of `concurrencyType` runs on: its own, the main queue, or none.
    private static func queue(for concurrencyType: NSManagedObjectContextConcurrencyType) -> DispatchQueue? {
        switch concurrencyType {
        case .privateQueueConcurrencyType:
            return DispatchQueue(label: "OpenCoreData.NSManagedObjectContext")
        case .mainQueueConcurrencyType:
            MainQueue.mark()
            return DispatchQueue.main
        case .confinementConcurrencyType:
            return nil
        }
    }

    /// Marks a private queue as this context's, so that work on it is known to be the context's.
    private func markOwnQueue() {
        if concurrencyType == .privateQueueConcurrencyType { queue?.setSpecific(key: queueKey, value: ObjectIdentifier(self)) }
    }

    // MARK: Coding

    /// Decodes a context that `encode(with:)` archived (`NSCoding`): a new context of the
    /// archived concurrency type with the archived settings — name, transaction author, merge
    /// policy, staleness interval, and the switches — and, like any new context, no coordinator
    /// and no objects. Nil when the coder holds no context, or a concurrency type or merge type
    /// that is not one (an unarchiver then reports that the class failed to decode).
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: context, requiringSecureCoding: false)
    /// ```
    /// Difference from Core Data: Apple does not document what a context archives; these are the
    /// settings OpenCoreData archives. A merge policy comes back as the standard policy of its
    /// merge type, even when it was an instance of an application's own subclass.
    public required init?(coder: NSCoder) {
        guard let settings = ContextSettingsArchive(coder: coder) else { return nil }
        concurrencyType = settings.concurrencyType
        queue = Self.queue(for: settings.concurrencyType)
        super.init()
        markOwnQueue()
        settings.apply(to: self)
    }

    /// Archives the context's settings (`NSCoding`); see `init(coder:)`. Its objects and its
    /// coordinator are not archived.
    open func encode(with coder: NSCoder) { ContextSettingsArchive(self).encode(into: coder) }

    deinit {
        if let siblingSaveObserver { NotificationCenter.default.removeObserver(siblingSaveObserver) }
        if let remoteSaveObserver { NotificationCenter.default.removeObserver(remoteSaveObserver) }
        if let undoCheckpointObserver { NotificationCenter.default.removeObserver(undoCheckpointObserver) }
        if IncrementalStores.mayBeInUse { noteUnregistered(registeredIncrementalStoreIDs(among: registry.objects)) }
        for object in registry.objects { object.context = nil }
        for object in inserted.allCandidates where object.belongs(to: self) { object.context = nil }
        for object in strayFaults where object.belongs(to: self) { object.context = nil }
        // Last: ending a sequence may let go of the last references to objects, which must not
        // find this context deinitializing.
        changeStreamEnds.endAll()
    }

    // MARK: Queues

    /// Runs `block` on the context's queue, asynchronously.
    ///
    /// As in Apple's SDK, `block` is not `@Sendable`: what it touches belongs to the context's
    /// queue, which is Core Data's contract rather than the compiler's.
    public func perform(_ block: @escaping () -> Void) {
        guard let queue else { return ContextsOnThisThread.running(self, block()) }
        let queued = QueuedBlock(block: block)
        queue.async { ContextsOnThisThread.running(self, self.withProcessedChanges(queued.block)) }
    }

    /// Runs `block` on the context's queue and waits for it; runs it at once when already there.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        try runAndWait(block)
    }

    /// Runs `block` on the context's queue and waits for it; runs it at once when already there.
    /// Apple's SDK has this form beside the generic one, and code passes it as a function value:
    ///
    /// ```swift
    /// let run: (() -> Void) -> Void = context.performAndWait
    /// ```
    public func performAndWait(_ block: () -> Void) {
        runAndWait(block)
    }

    private func runAndWait<T>(_ block: () throws -> T) rethrows -> T {
        // Listed for the thread even when run in place, so that `NSFetchRequest.execute()`
        // finds the context whose block it is in.
        guard let queue, !isOnOwnQueue else { return try ContextsOnThisThread.running(self, try block()) }
        // Remembered for the thread, so that a nested call (a child's fetch reaching this
        // context while this block runs) runs in place instead of waiting for this very block.
        let fromMainQueue = MainQueue.isCurrent
        return try queue.sync { try ContextsOnThisThread.running(self, fromMainQueue: fromMainQueue, try block()) }
    }

    /// Runs `block` on the context's queue and returns its result.
    ///
    /// ```swift
    /// let count = try await context.perform { try context.count(for: request) }
    /// ```
    public func perform<T: Sendable, E: Error>(schedule: ScheduledTaskType = .immediate,
                                              _ block: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        if schedule == .immediate, isOnOwnQueue {
            let result = ContextsOnThisThread.running(self, Result { () throws(E) -> T in try block() })
            return try result.get()
        }
        return try await awaitedResult(of: block, scheduledBy: { self.perform($0) })
    }

    private func withProcessedChanges(_ block: () -> Void) {
        block()
        processPendingChanges()
    }

    /// True when the caller runs on the queue this context belongs to.
    var isOnOwnQueue: Bool {
        switch concurrencyType {
        case .privateQueueConcurrencyType:
            DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self) || ContextsOnThisThread.contains(self)
        case .mainQueueConcurrencyType: MainQueue.isCurrent
        case .confinementConcurrencyType: true
        }
    }

    /// Stops the program when the context is used off its queue (debug builds only).
    @inline(__always)
    func checkQueue(_ function: StaticString = #function) {
        #if DEBUG
            guard ConcurrencyDebug.isEnabled(for: concurrencyType), !isOnOwnQueue else { return }
            preconditionFailure("NSManagedObjectContext.\(function) called outside the context's queue (\(concurrencyType)); use perform or performAndWait")
        #endif
    }

    // MARK: Registered objects

    /// Every object registered in the context (fetched, inserted, or reached through a relationship).
    public var registeredObjects: Set<NSManagedObject> {
        Set(registry.objects).union(temporaryObjects)
    }

    /// Objects inserted since the last save.
    public var insertedObjects: Set<NSManagedObject> { Set(inserted.members) }
    /// Objects changed since the last save (not counting inserted or deleted ones).
    public var updatedObjects: Set<NSManagedObject> { Set(updated.members) }
    /// Objects marked for deletion in the next save.
    public var deletedObjects: Set<NSManagedObject> { Set(deleted.members) }

    /// Registered objects that still have temporary IDs. They are not in `registry`: new objects
    /// are found through the inserted list, which saves a hash insert per new object and a
    /// re-keying per saved one.
    var temporaryObjects: [NSManagedObject] {
        (inserted.allCandidates + strayFaults).filter { $0.context === self && $0.storedObjectID?.isTemporaryID ?? !$0.hasSnapshot }
    }

    /// Whether the context has unsaved changes.
    public var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }

    /// The registered object for `objectID`, or nil. Never does I/O.
    public func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? {
        if objectID.isTemporaryID {
            if let object = temporaryObjects.first(where: { $0.storedObjectID == objectID }) { return object }
            return permanentID(ofTemporaryID: objectID).flatMap { registry[$0] }
        }
        return registry[objectID]
    }

    /// Decides what becomes of `fault` when it fires and its row is no longer in the store:
    /// true, it reads as a deleted object with nil values; false, it becomes unreadable — not
    /// deleted, reading nil, refused by a save with a validation error (1550) naming why. The
    /// default answers `shouldDeleteInaccessibleFaults`. Override it to decide per object.
    ///
    /// ```swift
    /// final class StrictContext: NSManagedObjectContext {
    ///     override func shouldHandleInaccessibleFault(_ fault: NSManagedObject, for oid: NSManagedObjectID,
    ///                                                 triggeredByProperty property: NSPropertyDescription?) -> Bool {
    ///         fault.entity.name != "Invoice"   // a vanished invoice must not pass as deleted
    ///     }
    /// }
    /// ```
    ///
    /// Differences from Core Data: where it answers false Core Data raises
    /// `NSObjectInaccessibleException`, which Swift cannot catch. `property` is always nil:
    /// a fault fires as a whole, not for one property. Not asked by `existingObject(with:)`,
    /// which throws for a missing row, as in Core Data.
    open func shouldHandleInaccessibleFault(_ fault: NSManagedObject, for oid: NSManagedObjectID,
                                            triggeredByProperty property: NSPropertyDescription?) -> Bool {
        shouldDeleteInaccessibleFaults
    }

    /// The object for `objectID`: the registered one, or a fault that loads on first use.
    /// Never does I/O; if the object does not exist, the fault reads as deleted when fired.
    public func object(with objectID: NSManagedObjectID) -> NSManagedObject {
        if let object = registeredObject(for: objectID) { return object }
        // A parent's new object: registered under the permanent ID `registeredObject` found.
        if objectID.isTemporaryID, let permanentID = permanentIDsOfTemporaryIDs[objectID] {
            return register(objectID: permanentID, snapshot: nil)
        }
        return register(objectID: objectID, snapshot: nil)
    }

    /// The object for `objectID`, loaded: throws when it exists neither in the context nor in
    /// the store (code 133000, `NSManagedObjectReferentialIntegrityError`).
    public func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        checkQueue()
        if let object = registeredObject(for: objectID) {
            if object.isFault { object.fulfillFault() }
            if !object.contents.state.contains(.inaccessible) && !object.isUnreadableForVanishedRow { return object }
        } else if let snapshot = try fetchSnapshot(for: objectID) {
            // A parent's new object, asked for by its temporary ID, comes with its permanent one.
            let permanentID = objectID.isTemporaryID ? snapshot.objectID : objectID
            if objectID.isTemporaryID { permanentIDsOfTemporaryIDs[objectID] = permanentID }
            let object = registeredObject(for: permanentID) ?? register(objectID: permanentID, snapshot: snapshot)
            if object.isFault { object.fulfillFault() }
            return object
        }
        throw CoreDataError.make(.managedObjectReferentialIntegrity,
                                 "No object with ID \(objectID.uriRepresentation().absoluteString) exists",
                                 [NSAffectedObjectsErrorKey: [objectID]])
    }

    /// Registers a new fault for `objectID`, carrying `snapshot` when the caller has one.
    func register(objectID: NSManagedObjectID, snapshot: consuming RowSnapshot?) -> NSManagedObject {
        let object = makeFault(for: objectID)
        object.contents.snapshot = snapshot
        if objectID.isTemporaryID {
            // Another context's unsaved object: no row to load (it reads as deleted), and no
            // registry entry; kept here so that it is found again and let go with the context.
            strayFaults.append(object)
        } else {
            registry.insert(object, for: objectID)
            if IncrementalStores.mayBeInUse { noteRegistered([objectID]) }
        }
        return object
    }

    /// A fault for `objectID` in this context, not yet registered.
    private func makeFault(for objectID: NSManagedObjectID) -> NSManagedObject {
        let object = makeFault(of: objectID.entity)
        object.storedObjectID = objectID
        return object
    }

    /// A fault of `entity` in this context, not yet registered, which has yet to be given its
    /// identity: an ID, or a snapshot.
    private func makeFault(of entity: NSEntityDescription) -> NSManagedObject {
        let object = entity.layout.objectClass.init(entity: entity, insertInto: nil)
        object.context = self
        object.contents.enterFaultFromDetached()
        if retainsRegisteredObjects { retainedObjects.insert(object) }
        return object
    }

    /// The registered object for a fetched row (uniquing), or a new fault carrying the row. The
    /// new fault makes its object ID only when asked for it.
    func object(for snapshot: consuming RowSnapshot) -> NSManagedObject {
        let slot = registry.slot(at: snapshot.rowLocation)
        if let object = slot.object {
            if object.isFault && !object.hasSnapshot { object.contents.snapshot = consume snapshot }
            return object
        }
        let object = makeFault(of: snapshot.entity)
        registry.fill(slot, with: object)
        object.contents.snapshot = consume snapshot
        return object
    }

    /// Called by an object going away.
    func forget(_ location: RowLocation, object: NSManagedObject) {
        registry.remove(location, ifMatching: object)
        // An incremental store's objects always hold their ID (they are made from it): a
        // fetched object without one needs no look at the process-wide flag.
        if object.storedObjectID != nil, IncrementalStores.mayBeInUse { noteUnregistered(object) }
    }

    /// Re-keys an object whose ID became permanent.
    func changeID(of object: NSManagedObject, to newID: NSManagedObjectID) {
        if let old = object.rowLocation { registry.remove(old, ifMatching: object) }
        object.storedObjectID = newID
        registry.insert(object, for: newID)
        if IncrementalStores.mayBeInUse { noteRegistered([newID]) }
    }

    /// Called when a registered object first changes.
    func noteUpdated(_ object: NSManagedObject) {
        guard !object.contents.state.contains(.deleted) else { return }
        changeGeneration &+= 1
        updated.add(object)
        noteInEvent(object, updated: true)
    }

    /// Called when an object changes in an event after the one it was inserted or first changed in.
    func noteChangedAgain(_ object: NSManagedObject) {
        guard !object.contents.state.contains(.deleted) else { return }
        noteInEvent(object, updated: true)
    }

    /// Lists `object` among the current event's inserted or updated objects.
    func noteInEvent(_ object: NSManagedObject, updated: Bool) {
        if updated { eventUpdated.append(object) } else { eventInserted.append(object) }
        object.contents.state.insert(.changedInEvent)
    }

    // MARK: Loading through the coordinator

    func coordinatorOrThrow() throws -> NSPersistentStoreCoordinator {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(.coreData, "The context has no persistent store coordinator")
        }
        return coordinator
    }

    /// What this context reads from and saves to: its parent context, or its coordinator.
    func parentStoreOrThrow() throws -> any ParentObjectStore {
        if let parent { return parent }
        return try coordinatorOrThrow()
    }

    /// The saved state of `objectID` as the parent has it. A temporary ID has none, unless it is
    /// one of a parent context's new objects: the answer then carries the object's permanent ID.
    func fetchSnapshot(for objectID: NSManagedObjectID) throws -> RowSnapshot? {
        guard objectID.persistentStore != nil || parent != nil else { return nil }
        return try parentStoreOrThrow().snapshot(for: objectID, context: self)
    }

    /// The saved state of an object being refreshed; nil when the row is gone or cannot be read
    /// (the object then becomes a fault that tries again when used).
    func loadSnapshot(for objectID: NSManagedObjectID) -> RowSnapshot? {
        (try? fetchSnapshot(for: objectID)) ?? nil
    }

    /// Loads a to-many relationship of several objects at once (fault firing and prefetching).
    func loadToMany(_ relationship: NSRelationshipDescription, of objects: [NSManagedObject]) {
        let pending = objects.filter { !$0.toManyStorage(relationship).isLoaded }
        let byStore = Dictionary(grouping: pending.filter { !$0.objectID.isTemporaryID }) { ObjectIdentifier($0.objectID.persistentStore!) }
        for group in byStore.values {
            var related: RelatedMembers
            do {
                related = try parentStoreOrThrow().relatedMembers(of: group.map(\.objectID), through: relationship, context: self)
            } catch {
                // Left unloaded (a later access tries again), and recorded, so that no save
                // writes a membership that was never read.
                for object in group {
                    object.contents.rejectedValues[relationship.name] = "the relationship could not be loaded from the store: \((error as NSError).localizedDescription)"
                }
                continue
            }
            // Taken out of the answer, so that the rows can move into their objects uncopied.
            var snapshots = related.takeSnapshots() ?? [:]
            var relatedIDs: [NSManagedObjectID: [NSManagedObjectID]]?
            if case .objectIDs(let ids) = related { relatedIDs = ids }
            if let first = snapshots.values.first(where: { !$0.isEmpty })?.first {
                registry.reserveCapacity(snapshots.values.reduce(0) { $0 + $1.count }, besideRowAt: first.rowLocation)
            }
            for object in group {
                if !object.contents.rejectedValues.isEmpty { object.contents.rejectedValues[relationship.name] = nil }
                // An object listed twice was loaded the first time; nothing to read again.
                if object.toManyStorage(relationship).isLoaded { continue }
                if let relatedIDs {
                    object.installToMany(relationship, members: (relatedIDs[object.objectID] ?? []).map { self.object(with: $0) })
                    continue
                }
                var rows = snapshots.removeValue(forKey: object.objectID) ?? []
                object.installToMany(relationship, members: objectsConsuming(&rows))
            }
        }
        for object in pending where object.objectID.isTemporaryID {
            object.installToMany(relationship, members: [])
        }
    }
}

/// The main queue, as main-queue contexts recognise it: the main thread, or any thread running
/// a block of the main queue. In a program whose main is `async` (or that calls `dispatchMain()`),
/// the main thread leaves and the main queue's blocks run on another thread.
enum MainQueue {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

    /// Marks the main queue, once, so that its blocks can be recognised on any thread.
    static func mark() { _ = marked }

    static var isCurrent: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: key) == true || ContextsOnThisThread.holdsMainQueue
    }
}

/// Whether the debug queue check is on for a kind of context.
enum ConcurrencyDebug {
    static let everywhere: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return environment["OCD_CONCURRENCY_DEBUG"] == "1" || environment["com.apple.CoreData.ConcurrencyDebug"] == "1"
    }()

    static func isEnabled(for type: NSManagedObjectContextConcurrencyType) -> Bool {
        type == .privateQueueConcurrencyType || (everywhere && type == .mainQueueConcurrencyType)
    }
}

/// Core Data's top-level name for a context's concurrency type.
/// Where a context runs its work.
public enum NSManagedObjectContextConcurrencyType: UInt, Sendable {
    /// Core Data's deprecated thread confinement: the creating thread owns the context.
    case confinementConcurrencyType = 0
    /// A private serial queue; use `perform` / `performAndWait`.
    case privateQueueConcurrencyType = 1
    /// The main queue.
    case mainQueueConcurrencyType = 2
}

/// A block handed to a context's `perform(_:)`, carried to the context's queue.
/// `@unchecked Sendable`: it runs on that queue only, where Core Data's contract puts everything
/// it touches (Apple's `perform(_:)` takes the same non-`@Sendable` block).
struct QueuedBlock: @unchecked Sendable {
    let block: () -> Void
}

extension NSManagedObjectContext: NSCoding {}
