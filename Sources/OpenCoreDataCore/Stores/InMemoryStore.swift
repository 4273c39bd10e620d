import Foundation

/// The in-memory store (`NSInMemoryStoreType`): the same behaviour as the SQLite store, kept in
/// memory and gone when the store is removed. Predicates and sorts are evaluated in memory.
final class InMemoryStore: NSPersistentStore, StoreSeam, @unchecked Sendable {
    // @unchecked Sendable: all state is guarded by `lock` (the coordinator and contexts call in
    // under it).

    override var type: String { NSInMemoryStoreType }

    /// Rows by root entity, then by primary key.
    private var rows: [ObjectIdentifier: [Int64: RowSnapshot]] = [:]
    /// The last primary key handed out, per root entity.
    private var lastKeys: [ObjectIdentifier: Int64] = [:]
    /// Memberships of to-many relationships stored on their own, by relationship and source key.
    private var toManyMembers: [ObjectIdentifier: [Int64: [NSManagedObjectID]]] = [:]

    /// The store is made from the model each time it is added: it always fits.
    var comparesItselfWithModel: Bool { true }

    func load(model: NSManagedObjectModel, entities: [NSEntityDescription]) throws {
        var metadata = model.versionMetadata(for: NSManagedObjectModel.withSubentities(entities))
        metadata[NSStoreTypeKey] = NSInMemoryStoreType
        metadata[NSStoreUUIDKey] = identifier
        storedMetadata = metadata
    }

    // MARK: Reading

    func execute(_ fetch: StoreFetch) throws -> StoreFetchResult {
        lock.lock()
        defer { lock.unlock() }
        let predicate = try fetch.predicate?.resolved(for: fetch.entity)
        try PredicateCheck.validate(fetch.sortDescriptors, for: fetch.entity)
        var matches = candidates(for: fetch.entity, includesSubentities: fetch.includesSubentities)
        if let predicate {
            matches = matches.filter { predicate.evaluate(with: StoredRow(store: self, snapshot: $0)) }
        }
        var ordered = matches.map { StoredRow(store: self, snapshot: $0) }
        if fetch.sortDescriptors.isEmpty {
            ordered.sort { ($0.snapshot.primaryKey) < ($1.snapshot.primaryKey) }
        } else {
            ordered = ordered.sorted(by: fetch.sortDescriptors)
        }
        let sliced = Array(ordered.dropFirst(fetch.fetchOffset).prefix(fetch.fetchLimit > 0 ? fetch.fetchLimit : Int.max))
        switch fetch.result {
        case .snapshots: return .snapshots(sliced.map(\.snapshot))
        case .objectIDs: return .objectIDs(sliced.map(\.snapshot.objectID))
        case .keys:
            let family = fetch.entity.selfAndDescendants
            let keys = sliced.map { $0.snapshot.primaryKey }
            guard fetch.includesSubentities && family.count > 1 else { return .keys(keys, []) }
            return .keys(keys, sliced.map { row in UInt16(family.firstIndex { $0 === row.snapshot.entity } ?? 0) })
        case .count: return .count(sliced.count)
        case .dictionaries(let columns, let groupBy):
            let grouped = !groupBy.isEmpty || columns.contains { if case .aggregate = $0.kind { true } else { false } }
            // Grouped results are limited by group, not by row.
            var dictionaries = InMemoryDictionaries(entity: fetch.entity, columns: columns, groupBy: groupBy)
                .dictionaries(of: grouped ? ordered : sliced)
            if grouped {
                dictionaries = Array(dictionaries.dropFirst(fetch.fetchOffset).prefix(fetch.fetchLimit > 0 ? fetch.fetchLimit : Int.max))
            }
            if fetch.returnsDistinctResults { dictionaries = DictionaryResults.distinct(dictionaries) }
            return .dictionaries(dictionaries)
        }
    }

    private func candidates(for entity: NSEntityDescription, includesSubentities: Bool) -> [RowSnapshot] {
        let table = rows[ObjectIdentifier(entity.rootEntity)] ?? [:]
        return table.values.filter { row in
            includesSubentities ? row.entity.isKindOf(entity: entity) : row.entity === entity
        }
    }

    func snapshot(for objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> RowSnapshot? {
        lock.withLock { row(for: objectID) }
    }

    fileprivate func row(for objectID: NSManagedObjectID) -> RowSnapshot? {
        guard let key = objectID.primaryKey else { return nil }
        return rows[ObjectIdentifier(objectID.entity.rootEntity)]?[key]
    }

    func relatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                          context: NSManagedObjectContext?) throws -> [NSManagedObjectID: [RowSnapshot]] {
        lock.withLock {
            var result: [NSManagedObjectID: [RowSnapshot]] = [:]
            for source in sources { result[source] = members(of: source, through: relationship) }
            return result
        }
    }

    fileprivate func members(of source: NSManagedObjectID, through relationship: NSRelationshipDescription) -> [RowSnapshot] {
        if relationship.needsOwnStorage {
            let ids = toManyMembers[ObjectIdentifier(relationship)]?[source.primaryKey ?? 0] ?? []
            return ids.compactMap(row(for:))
        }
        guard let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity else { return [] }
        return candidates(for: destination, includesSubentities: true)
            .filter { $0.toOne[inverse.relationshipSlot] == source }
            .sorted { $0.primaryKey < $1.primaryKey }
    }

    // MARK: Writing

    func newPermanentIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        lock.withLock { objects.map { allocateID(for: $0.entity) } }
    }

    private func allocateID(for entity: NSEntityDescription) -> NSManagedObjectID {
        let root = ObjectIdentifier(entity.rootEntity)
        let key = (lastKeys[root] ?? 0) + 1
        lastKeys[root] = key
        return NSManagedObjectID(entity: entity, store: self, primaryKey: key)
    }

    /// The changes of a prepared save, applied by `commitPreparedSave()`.
    private var preparedApply: (() -> Void)?
    private var preparedLastKeys: [ObjectIdentifier: Int64]?

    func commitPreparedSave() throws {
        lock.withLock {
            preparedApply?()
            preparedApply = nil
            preparedLastKeys = nil
        }
    }

    func rollbackPreparedSave() {
        lock.withLock {
            if let preparedLastKeys { lastKeys = preparedLastKeys }
            preparedApply = nil
            preparedLastKeys = nil
        }
    }

    func prepareSave(_ changes: SaveChanges) throws -> SaveOutcome {
        lock.lock()
        defer { lock.unlock() }
        // Check everything before changing anything, so that a failed save leaves no trace.
        var lockingFailures: [OptimisticLockingFailure] = []
        for row in changes.deleted + changes.updated {
            let current = self.row(for: row.objectID)
            if current?.version != row.expectedVersion {
                lockingFailures.append(OptimisticLockingFailure(objectID: row.objectID, storeVersion: current?.version ?? 0))
            }
        }
        if !lockingFailures.isEmpty { throw OptimisticLockingFailures(failures: lockingFailures) }
        let savedLastKeys = lastKeys
        var outcome = SaveOutcome()
        outcome.insertedIDs = changes.inserted.map { $0.objectID.isTemporaryID ? allocateID(for: $0.objectID.entity) : $0.objectID }
        var map: [NSManagedObjectID: NSManagedObjectID] = [:]
        for (row, id) in zip(changes.inserted, outcome.insertedIDs) where row.objectID.isTemporaryID { map[row.objectID] = id }
        func permanent(_ id: NSManagedObjectID?) -> NSManagedObjectID? { id.map { map[$0] ?? $0 } }

        var staged = rows
        let savedAt = SnapshotClock.now()
        for row in changes.deleted {
            staged[ObjectIdentifier(row.objectID.entity.rootEntity)]?[row.objectID.primaryKey!] = nil
        }
        for row in changes.inserted {
            let id = permanent(row.objectID)!
            staged[ObjectIdentifier(id.entity.rootEntity), default: [:]][id.primaryKey!] =
                RowSnapshot(objectID: id, version: 1, values: row.values, toOne: row.toOne.map(permanent), readAt: savedAt)
        }
        for row in changes.updated {
            staged[ObjectIdentifier(row.objectID.entity.rootEntity)]?[row.objectID.primaryKey!] =
                RowSnapshot(objectID: row.objectID, version: row.expectedVersion + 1, values: row.values, toOne: row.toOne.map(permanent),
                            readAt: savedAt)
        }
        // Named by the IDs the context knows the objects by (a new one's is still temporary).
        var originals: [NSManagedObjectID: NSManagedObjectID] = [:]
        for (temporary, permanent) in map { originals[permanent] = temporary }
        for row in changes.updated { originals[row.objectID] = row.objectID }
        let conflicts = uniquenessConflicts(in: staged, changed: changes.inserted.map { permanent($0.objectID)! } + changes.updated.map(\.objectID),
                                            originals: originals)
        if !conflicts.isEmpty {
            lastKeys = savedLastKeys
            throw UniquenessConflicts(conflicts: conflicts)
        }
        preparedLastKeys = savedLastKeys
        preparedApply = { [self] in
            rows = staged
            for change in changes.toMany {
                let source = permanent(change.source)!
                toManyMembers[ObjectIdentifier(change.relationship), default: [:]][source.primaryKey!] = change.members.compactMap(permanent)
                if let inverse = change.relationship.inverseRelationship, inverse.needsOwnStorage, inverse.isToMany {
                    mirror(change, source: source, inverse: inverse, permanent: permanent)
                }
            }
            for row in changes.deleted { removeMemberships(of: row.objectID) }
        }
        return outcome
    }

    /// Keeps the other side of a many-to-many relationship in step with a saved membership.
    private func mirror(_ change: SaveChanges.ToMany, source: NSManagedObjectID, inverse: NSRelationshipDescription,
                        permanent: (NSManagedObjectID?) -> NSManagedObjectID?) {
        let members = Set(change.members.compactMap(permanent))
        var inverseTable = toManyMembers[ObjectIdentifier(inverse)] ?? [:]
        for (key, var list) in inverseTable where list.contains(source) && !members.contains(where: { $0.primaryKey == key }) {
            list.removeAll { $0 == source }
            inverseTable[key] = list
        }
        for member in members {
            var list = inverseTable[member.primaryKey!] ?? []
            if !list.contains(source) { list.append(source) }
            inverseTable[member.primaryKey!] = list
        }
        toManyMembers[ObjectIdentifier(inverse)] = inverseTable
    }

    private func removeMemberships(of objectID: NSManagedObjectID) {
        for (relationship, var table) in toManyMembers {
            for (key, list) in table {
                let kept = list.filter { $0 != objectID }
                if kept.count != list.count { table[key] = kept }
            }
            toManyMembers[relationship] = table
        }
    }

    /// Every uniqueness constraint the staged rows break: for each, the save's objects that share
    /// the values (`originals` names them as their context does) and the saved row that has them.
    private func uniquenessConflicts(in staged: [ObjectIdentifier: [Int64: RowSnapshot]], changed: [NSManagedObjectID],
                                     originals: [NSManagedObjectID: NSManagedObjectID]) -> [UniquenessConflicts.Conflict] {
        // Each constraint's keys are indexed once per save, so that checking many changed
        // objects (a batch insert) costs one pass over the table, not one per object.
        var indexes: [String: [[AnyHashable]: [NSManagedObjectID]]] = [:]
        var conflicts: [UniquenessConflicts.Conflict] = []
        var reported: Set<[AnyHashable]> = []
        for id in changed {
            var entity: NSEntityDescription? = id.entity
            while let constrained = entity {
                for names in constrained.layout.uniquenessConstraintNames {
                    let indexName = "\(constrained.name ?? "")|\(names.joined(separator: ","))"
                    let constraint = UniquenessKey(entity: constrained, names: names)
                    let table = staged[ObjectIdentifier(constrained.rootEntity)] ?? [:]
                    if indexes[indexName] == nil { indexes[indexName] = constraint.index(of: table) }
                    guard let mine = table[id.primaryKey!], let key = constraint.key(of: mine),
                          let holders = indexes[indexName]?[key], holders.count > 1,
                          reported.insert([AnyHashable(indexName)] + key).inserted else { continue }
                    var conflict = UniquenessConflicts.Conflict(entity: constrained, properties: names, objectIDs: [], databaseObjectID: nil)
                    for holder in holders.sorted(by: { $0.primaryKey! < $1.primaryKey! }) {
                        if let original = originals[holder] {
                            conflict.objectIDs.append(original)
                        } else if conflict.databaseObjectID == nil {
                            conflict.databaseObjectID = holder
                        }
                    }
                    conflicts.append(conflict)
                }
                entity = constrained.superentity
            }
        }
        return conflicts
    }
}

/// The values one uniqueness constraint keeps unique: attribute values compared as values (not
/// as their printed text, which loses sub-second dates and the bytes of data), to-ones by ID.
private struct UniquenessKey {
    let entity: NSEntityDescription
    let properties: [NSPropertyDescription]

    init(entity: NSEntityDescription, names: [String]) {
        self.entity = entity
        properties = names.compactMap { entity.layout.propertiesByName[$0] }
    }

    /// The key of a row; nil when a value is missing, which (as with SQLite's unique indexes)
    /// never conflicts.
    func key(of row: RowSnapshot) -> [AnyHashable]? {
        var key: [AnyHashable] = []
        for property in properties {
            if let attribute = property as? NSAttributeDescription {
                let value = row.values[attribute.attributeSlot]
                if value.isNull { return nil }
                key.append(value)
            } else if let relationship = property as? NSRelationshipDescription {
                guard let destination = row.toOne[relationship.relationshipSlot] else { return nil }
                key.append(destination)
            }
        }
        return key
    }

    /// Key → the objects of the constrained entity (and its subentities) that have it.
    func index(of table: [Int64: RowSnapshot]) -> [[AnyHashable]: [NSManagedObjectID]] {
        var index: [[AnyHashable]: [NSManagedObjectID]] = [:]
        for row in table.values where row.entity.isKindOf(entity: entity) {
            if let key = key(of: row) { index[key, default: []].append(row.objectID) }
        }
        return index
    }
}

/// A stored row seen by predicates and sort descriptors: attributes as values, to-ones as rows.
struct StoredRow: KeyValueReadable {
    let store: InMemoryStore
    let snapshot: RowSnapshot

    func value(forKey key: String) -> Any? {
        snapshot.entity.layout.propertiesByName[key].flatMap(value(of:))
    }

    /// The value of `property` (one of the row's entity's).
    func value(of property: NSPropertyDescription) -> Any? {
        switch property {
        case let attribute as NSAttributeDescription:
            return snapshot.values[attribute.attributeSlot].objectValue(for: attribute.attributeType)
        case let relationship as NSRelationshipDescription:
            if relationship.isToMany {
                return store.members(of: snapshot.objectID, through: relationship).map { StoredRow(store: store, snapshot: $0) }
            }
            guard let id = snapshot.toOne[relationship.relationshipSlot], let row = store.row(for: id) else { return nil }
            return StoredRow(store: store, snapshot: row)
        default:
            return nil
        }
    }

    var rowObjectID: NSManagedObjectID? { snapshot.objectID }
}
