/// The changes of one save, sorted by store and turned into rows, before anything is written.
struct SavePlan {
    let insertedObjects: [NSManagedObject]
    let updatedObjects: [NSManagedObject]
    let deletedObjects: [NSManagedObject]
    /// Per store: its changes (with the inserted objects in the order of `changes.inserted`).
    private(set) var changesByStore: [(store: NSPersistentStore, changes: SaveChanges)] = []
    /// For a child's save into its parent: the temporary IDs its new objects had, with the
    /// permanent ones they were given, so that the parent finds them by either.
    var formerTemporaryIDs: [(temporary: NSManagedObjectID, permanent: NSManagedObjectID)] = []

    init(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject], locked: [NSManagedObject] = [],
         coordinator: NSPersistentStoreCoordinator, context: NSManagedObjectContext) throws {
        insertedObjects = inserted
        updatedObjects = updated
        deletedObjects = deleted

        // Per store, found by a scan of the few stores a save touches (usually one) rather
        // than by hashing for every object; the last store found is tried first.
        var buckets: [(store: NSPersistentStore, changes: SaveChanges)] = []
        var lastEntity: ObjectIdentifier?
        var lastBucket = 0
        // Without `assign(_:to:)`, every new object of an entity goes to the same store.
        let assigns = !context.storeAssignments.isEmpty
        func bucket(for object: NSManagedObject) throws -> Int {
            // A saved object names its store; a new one goes to its entity's assigned store.
            let known = object.objectID.persistentStore
            if known == nil, !assigns, ObjectIdentifier(object.entity) == lastEntity { return lastBucket }
            let store = try known ?? coordinator.store(forNew: object)
            let index = buckets.firstIndex { $0.store === store } ?? {
                var changes = SaveChanges()
                changes.context = context
                changes.authorship = HistoryAuthorship(of: context)
                buckets.append((store, changes))
                return buckets.count - 1
            }()
            lastEntity = known == nil ? ObjectIdentifier(object.entity) : nil
            lastBucket = index
            return index
        }
        // A store's list is sized for the rest of its kind when its first row comes: a large
        // save's lists would otherwise be copied as they double, into memory never touched yet.
        for (position, object) in insertedObjects.enumerated() {
            let index = try bucket(for: object)
            if buckets[index].changes.inserted.isEmpty {
                buckets[index].changes.inserted.reserveCapacity(insertedObjects.count - position)
                buckets[index].changes.insertedObjects.reserveCapacity(insertedObjects.count - position)
            }
            buckets[index].changes.inserted.append(Self.row(for: object, onlyChanges: false))
            buckets[index].changes.insertedObjects.append(object)
            if !object.contents.relations.isEmpty { buckets[index].changes.toMany += Self.toManyChanges(of: object) }
        }
        for (position, object) in updatedObjects.enumerated() {
            let index = try bucket(for: object)
            if buckets[index].changes.updated.isEmpty { buckets[index].changes.updated.reserveCapacity(updatedObjects.count - position) }
            buckets[index].changes.updated.append(Self.row(for: object, onlyChanges: true))
            if !object.contents.relations.isEmpty { buckets[index].changes.toMany += Self.toManyChanges(of: object) }
        }
        for (position, object) in deletedObjects.enumerated() {
            let row = Self.versionRow(for: object)
            let index = try bucket(for: object)
            if buckets[index].changes.deleted.isEmpty { buckets[index].changes.deleted.reserveCapacity(deletedObjects.count - position) }
            buckets[index].changes.deleted.append(row)
        }
        // Unchanged objects whose versions the stores check all the same (`detectConflicts(for:)`).
        for object in locked {
            buckets[try bucket(for: object)].changes.locked.append(Self.versionRow(for: object))
        }
        // In the coordinator's order, so that concurrent saves take store locks in the same order.
        let order = coordinator.persistentStores.map(ObjectIdentifier.init)
        changesByStore = buckets
            .sorted { (order.firstIndex(of: ObjectIdentifier($0.store)) ?? 0) < (order.firstIndex(of: ObjectIdentifier($1.store)) ?? 0) }
        if let readOnly = changesByStore.first(where: { $0.store.isReadOnly })?.store {
            throw CoreDataError.store(.persistentStoreSave, "The store at \(readOnly.url?.path ?? "?") is read-only", url: readOnly.url)
        }
    }

    /// The row of an object the store only checks (deleted or locked): its ID and the version the
    /// context read, the row read first for a fault.
    private static func versionRow(for object: NSManagedObject) -> SaveChanges.Row {
        if !object.hasSnapshot { object.willAccess() }
        return SaveChanges.Row(objectID: object.objectID, values: [], toOne: [], changedAttributeSlots: [],
                               changedRelationshipSlots: [], expectedVersion: object.contents.snapshot?.version ?? 0)
    }

    /// The values a store writes for `object`: persistent attributes, to-one destinations, and
    /// (for updates) which of them changed.
    private static func row(for object: NSManagedObject, onlyChanges: Bool) -> SaveChanges.Row {
        let layout = object.entity.layout
        let values = persistentValues(of: object)
        let toOne = toOneIDs(of: object)
        var changedAttributes: [Int] = []
        var changedRelationships: [Int] = []
        if onlyChanges, let snapshot = object.contents.snapshot {
            // Only slots written since the snapshot can differ from it.
            if object.contents.changedAttributeMask != 0 {
                for slot in layout.persistentAttributeSlots
                where object.mayHaveChangedAttribute(slot) && values[slot] != snapshot.values[slot] {
                    changedAttributes.append(slot)
                }
            }
            for slot in layout.persistentToOneSlots where toOne[slot] != snapshot.toOne[slot] {
                changedRelationships.append(slot)
            }
        }
        return SaveChanges.Row(objectID: object.objectID, values: values, toOne: toOne,
                               changedAttributeSlots: changedAttributes, changedRelationshipSlots: changedRelationships,
                               expectedVersion: object.contents.snapshot?.version ?? 0)
    }

    static func persistentValues(of object: NSManagedObject) -> [PrimitiveValue] {
        let layout = object.entity.layout
        guard layout.hasTransientAttributes else { return object.contents.values }
        var values = object.contents.values
        for attribute in layout.attributes where attribute.isTransient { values[attribute.attributeSlot] = .null }
        return values
    }

    static func toOneIDs(of object: NSManagedObject) -> [NSManagedObjectID?] {
        let relationships = object.entity.layout.relationships
        if relationships.isEmpty { return [] }
        return relationships.map { relationship in
            relationship.isToMany || relationship.isTransient ? nil : object.toOneDestinationID(relationship)
        }
    }

    /// Full memberships of changed to-many relationships that the store keeps apart from the
    /// members' rows (ordered ones, many-to-many ones, ones without inverse).
    private static func toManyChanges(of object: NSManagedObject) -> [SaveChanges.ToMany] {
        guard !object.contents.relations.isEmpty else { return [] }
        var changes: [SaveChanges.ToMany] = []
        for relationship in object.entity.layout.relationships where relationship.isToMany && !relationship.isTransient {
            guard case .toMany(let storage) = object.contents.relations[relationship.relationshipSlot], storage.hasChanges,
                  relationship.needsOwnStorage else { continue }
            let members = object.toManyMembers(relationship).orderedMembers.filter { !$0.isDeleted }
            changes.append(SaveChanges.ToMany(source: object.objectID, relationship: relationship, members: members.map(\.objectID)))
        }
        return changes
    }

    /// The IDs the saved objects have after the save, read from the rows and the stores' answers
    /// (`insertedIDs`, one list per entry of `changesByStore`) rather than from the objects: the
    /// objects of a large save are no longer in the processor's caches.
    func savedObjectIDs(insertedIDs: [[NSManagedObjectID]]) -> SaveResultIDs {
        var ids = SaveResultIDs()
        for (index, entry) in changesByStore.enumerated() {
            // A store may answer fewer IDs than rows (none, for a failed save); the rest keep theirs.
            let answered = index < insertedIDs.count ? insertedIDs[index] : []
            ids.inserted += answered.prefix(entry.changes.inserted.count)
            if answered.count < entry.changes.inserted.count {
                ids.inserted += entry.changes.inserted[answered.count...].map(\.objectID)
            }
            ids.updated += entry.changes.updated.map(\.objectID)
            ids.deleted += entry.changes.deleted.map(\.objectID)
        }
        return ids
    }

    /// The snapshot an object has after the save (written at `savedAt`): its values, with
    /// permanent IDs.
    func committedSnapshot(of object: NSManagedObject, version: Int64, savedAt: UInt64) -> RowSnapshot {
        RowSnapshot(objectID: object.objectID, version: version, values: Self.persistentValues(of: object),
                    toOne: Self.toOneIDs(of: object), readAt: savedAt)
    }
}

/// The object IDs of one save's inserted, updated and deleted objects, as DidSave reports them.
struct SaveResultIDs {
    var inserted: [NSManagedObjectID] = []
    var updated: [NSManagedObjectID] = []
    var deleted: [NSManagedObjectID] = []
}

extension NSRelationshipDescription {
    /// Whether the membership of this to-many relationship is stored on its own (join table or
    /// order keys) rather than only in the members' to-one keys.
    package var needsOwnStorage: Bool {
        guard isToMany else { return false }
        guard let inverse = inverseRelationship else { return true }
        return isOrdered || inverse.isToMany
    }
}
