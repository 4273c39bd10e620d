import Foundation

/// The rows of a store that keeps its whole graph in memory — the in-memory store, and the atomic
/// stores (binary, XML, `NSAtomicStore`s of your own), which read it all at load and write it all
/// at save: fetches evaluated in memory, to-many memberships, permanent keys, and saves staged
/// and checked before anything changes.
///
/// Not synchronised: its store calls it under the store's lock.
final class MemoryRows: StoredRowSource {
    /// The store whose rows these are (it names them in object IDs).
    unowned let store: NSPersistentStore

    private(set) var state = StoredGraph()
    /// A save between `prepare` and `commitPrepared` or `rollbackPrepared`: the state it makes,
    /// and the keys before it (new keys are handed out as it is prepared).
    private var prepared: (state: StoredGraph, keysBefore: [ObjectIdentifier: Int64])?

    /// Whether keys are unique across every inheritance tree (the XML store's object ids), not
    /// only within one.
    let keysAcrossEntities: Bool

    init(store: NSPersistentStore, keysAcrossEntities: Bool = false) {
        self.store = store
        self.keysAcrossEntities = keysAcrossEntities
    }

    /// The state a store read from its file.
    func replace(with state: StoredGraph) {
        self.state = state
        prepared = nil
    }

    /// The state the prepared save makes (what an atomic store writes before it commits).
    var preparedState: StoredGraph? { prepared?.state }

    // MARK: Reading

    func execute(_ fetch: StoreFetch) throws -> StoreFetchResult {
        try InMemoryFetch.answer(fetch, candidates: candidates(for: fetch.entity, includesSubentities: fetch.includesSubentities),
                                 rows: self)
    }

    private func candidates(for entity: NSEntityDescription, includesSubentities: Bool) -> [RowSnapshot] {
        let table = state.rows[ObjectIdentifier(entity.rootEntity)] ?? [:]
        if includesSubentities && entity.superentity == nil { return Array(table.values) }
        return table.values.filter { row in
            includesSubentities ? row.entity.isKindOf(entity: entity) : row.entity === entity
        }
    }

    func row(for objectID: NSManagedObjectID) -> RowSnapshot? { state.row(for: objectID) }

    func relatedSnapshots(of sources: [NSManagedObjectID], through relationship: NSRelationshipDescription)
        -> [NSManagedObjectID: [RowSnapshot]] {
        var result: [NSManagedObjectID: [RowSnapshot]] = [:]
        if !relationship.needsOwnStorage, sources.count > 1 {
            // One pass over the destinations for every source, not one per source.
            let members = state.membersByInverse(of: relationship)
            for source in sources { result[source] = members[source] ?? [] }
            return result
        }
        for source in sources { result[source] = self.members(of: source, through: relationship) }
        return result
    }

    /// The members of a to-many relationship of one source, in order.
    func members(of source: NSManagedObjectID, through relationship: NSRelationshipDescription) -> [RowSnapshot] {
        if relationship.needsOwnStorage {
            let ids = state.toManyMembers[ObjectIdentifier(relationship)]?[source.primaryKey ?? 0] ?? []
            return ids.compactMap(row(for:))
        }
        guard let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity else { return [] }
        return candidates(for: destination, includesSubentities: true)
            .filter { $0.toOne[inverse.relationshipSlot] == source }
            .sorted { $0.primaryKey < $1.primaryKey }
    }

    // MARK: Writing

    func allocateID(for entity: NSEntityDescription) -> NSManagedObjectID {
        let root = ObjectIdentifier(entity.rootEntity)
        let key = (keysAcrossEntities ? state.lastKeys.values.max() ?? 0 : state.lastKeys[root] ?? 0) + 1
        state.lastKeys[root] = key
        return NSManagedObjectID(entity: entity, store: store, primaryKey: key)
    }

    /// Makes the state `changes` lead to, having checked them (optimistic locking, uniqueness
    /// constraints): throws with nothing changed, or keeps the new state until
    /// `commitPrepared()` or `rollbackPrepared()`. New objects get the IDs `permanentIDs` gives
    /// their temporary ones, or new keys.
    func prepare(_ changes: SaveChanges, permanentIDs: [NSManagedObjectID: NSManagedObjectID] = [:]) throws -> SaveOutcome {
        var lockingFailures: [OptimisticLockingFailure] = []
        for row in changes.deleted + changes.updated + changes.locked {
            let current = self.row(for: row.objectID)
            if current?.version != row.expectedVersion {
                lockingFailures.append(OptimisticLockingFailure(objectID: row.objectID, storeVersion: current?.version ?? 0))
            }
        }
        if !lockingFailures.isEmpty { throw OptimisticLockingFailures(failures: lockingFailures) }
        let keysBefore = state.lastKeys
        var outcome = SaveOutcome()
        outcome.insertedIDs = changes.inserted.map { row in
            guard row.objectID.isTemporaryID else { return row.objectID }
            return permanentIDs[row.objectID] ?? allocateID(for: row.objectID.entity)
        }
        var map: [NSManagedObjectID: NSManagedObjectID] = [:]
        for (row, id) in zip(changes.inserted, outcome.insertedIDs) where row.objectID.isTemporaryID { map[row.objectID] = id }
        func permanent(_ id: NSManagedObjectID?) -> NSManagedObjectID? { id.map { map[$0] ?? $0 } }

        // A new row never replaces one the store holds (a reference object of your own given twice).
        for id in outcome.insertedIDs where row(for: id) != nil {
            state.lastKeys = keysBefore
            throw CoreDataError.make(.persistentStoreSave, "The store \(store) already holds an object with the ID \(id) that a new object was given")
        }
        var staged = state
        let savedAt = SnapshotClock.now()
        for row in changes.deleted {
            staged.rows[row.objectID.rootIdentity]?[row.objectID.primaryKey!] = nil
        }
        for row in changes.inserted {
            let id = permanent(row.objectID)!
            staged.rows[id.rootIdentity, default: [:]][id.primaryKey!] =
                RowSnapshot(objectID: id, version: 1, values: row.values, toOne: row.toOne.map(permanent), readAt: savedAt)
        }
        for row in changes.updated {
            staged.rows[row.objectID.rootIdentity]?[row.objectID.primaryKey!] =
                RowSnapshot(objectID: row.objectID, version: row.expectedVersion + 1, values: row.values, toOne: row.toOne.map(permanent),
                            readAt: savedAt)
        }
        // Named by the IDs the context knows the objects by (a new one's is still temporary).
        var originals: [NSManagedObjectID: NSManagedObjectID] = [:]
        for (temporary, permanent) in map { originals[permanent] = temporary }
        for row in changes.updated { originals[row.objectID] = row.objectID }
        let changed = changes.inserted.map { permanent($0.objectID)! } + changes.updated.map(\.objectID)
        let conflicts = Self.uniquenessConflicts(in: staged.rows, changed: changed, originals: originals)
        if !conflicts.isEmpty {
            state.lastKeys = keysBefore
            throw UniquenessConflicts(conflicts: conflicts)
        }
        for change in changes.toMany {
            let source = permanent(change.source)!
            staged.toManyMembers[ObjectIdentifier(change.relationship), default: [:]][source.primaryKey!] = change.members.compactMap(permanent)
            if let inverse = change.relationship.inverseRelationship, inverse.needsOwnStorage, inverse.isToMany {
                Self.mirror(change, source: source, inverse: inverse, permanent: permanent, in: &staged.toManyMembers)
            }
        }
        if !changes.deleted.isEmpty {
            Self.removeMemberships(of: Set(changes.deleted.map(\.objectID)), from: &staged.toManyMembers)
            // And their own memberships go with them.
            for row in changes.deleted {
                for relationship in row.objectID.entity.layout.relationships where relationship.needsOwnStorage {
                    staged.toManyMembers[ObjectIdentifier(relationship)]?[row.objectID.primaryKey!] = nil
                }
            }
        }
        staged.lastKeys = state.lastKeys
        prepared = (staged, keysBefore)
        return outcome
    }

    func commitPrepared() {
        if let prepared { state = prepared.state }
        prepared = nil
    }

    func rollbackPrepared() {
        if let prepared { state.lastKeys = prepared.keysBefore }
        prepared = nil
    }

    /// Keeps the other side of a many-to-many relationship in step with a saved membership.
    private static func mirror(_ change: SaveChanges.ToMany, source: NSManagedObjectID, inverse: NSRelationshipDescription,
                               permanent: (NSManagedObjectID?) -> NSManagedObjectID?,
                               in toManyMembers: inout [ObjectIdentifier: [Int64: [NSManagedObjectID]]]) {
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

    /// Takes deleted objects out of every membership they are in (and drops their own).
    private static func removeMemberships(of deleted: Set<NSManagedObjectID>,
                                          from toManyMembers: inout [ObjectIdentifier: [Int64: [NSManagedObjectID]]]) {
        for (relationship, table) in toManyMembers {
            var changed = table
            for (key, list) in table {
                let kept = list.filter { !deleted.contains($0) }
                if kept.count != list.count { changed[key] = kept }
            }
            toManyMembers[relationship] = changed
        }
    }

    /// Every uniqueness constraint the staged rows break: for each, the save's objects that share
    /// the values (`originals` names them as their context does) and the saved row that has them.
    private static func uniquenessConflicts(in staged: [ObjectIdentifier: [Int64: RowSnapshot]], changed: [NSManagedObjectID],
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
