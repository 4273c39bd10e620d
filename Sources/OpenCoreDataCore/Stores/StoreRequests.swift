import Foundation

/// What the object graph asks a store to fetch: the store-independent part of a fetch request.
package struct StoreFetch {
    package enum Result {
        case snapshots, objectIDs, count
        /// Primary keys and concrete entities only, in compact arrays (`fetchInBatches`).
        case keys
        /// Dictionaries of the given columns (to-ones as object IDs), grouped by the given key
        /// paths when there are any.
        case dictionaries([DictionaryColumn], groupBy: [String])
    }

    package let entity: NSEntityDescription
    package let includesSubentities: Bool
    package let predicate: NSPredicate?
    package let sortDescriptors: [NSSortDescriptor]
    /// The limits of the answer asked for. Asked of a coordinator (or a parent context), they
    /// are the final answer's; the coordinator turns them into each store's.
    package var fetchLimit: Int
    package var fetchOffset: Int
    package let returnsDistinctResults: Bool
    package var result: Result
    /// The context fetching, when there is one: an incremental store hands it to the store's
    /// own `execute(_:with:)`. Unowned: a fetch never outlives the call that makes it.
    unowned(unsafe) package var context: NSManagedObjectContext? = nil
    /// The application's request, when the fetch comes from one: an incremental store is handed a
    /// copy of it, with every setting the store may use (result type, prefetching, batch size).
    /// (An object reference, not an `AnyFetchRequest` existential: building that for a generic
    /// request on every fetch cost a witness-table lookup; only an incremental store casts it.)
    unowned(unsafe) var request: AnyObject? = nil

    /// The fetch without the context and request that asked, for keeping beyond the call (a
    /// kept unowned reference to them would dangle once they go away).
    package var withoutAsker: StoreFetch {
        var fetch = self
        fetch.context = nil
        fetch.request = nil
        return fetch
    }

    package init(entity: NSEntityDescription, includesSubentities: Bool, predicate: NSPredicate?, sortDescriptors: [NSSortDescriptor],
                 fetchLimit: Int, fetchOffset: Int, returnsDistinctResults: Bool, result: Result,
                 context: NSManagedObjectContext? = nil, request: AnyObject? = nil) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.returnsDistinctResults = returnsDistinctResults
        self.result = result
        self.context = context
        self.request = request
    }
}

/// One entry of the dictionaries of a dictionary fetch.
package struct DictionaryColumn {
    package enum Kind {
        /// The value of a key path (an attribute or to-one, possibly through to-ones).
        case value(keyPath: String)
        /// An aggregate of a key path's values over each group (or over every matching row).
        case aggregate(AggregateFunction, keyPath: String)
    }

    /// The key of the value in each dictionary.
    package let name: String
    package let kind: Kind
    /// For aggregates: the type the value is given (undefined: the aggregate's own).
    package var resultType: NSAttributeType = .undefinedAttributeType

    static func value(_ keyPath: String) -> DictionaryColumn { DictionaryColumn(name: keyPath, kind: .value(keyPath: keyPath)) }
}

/// The aggregate functions of `NSExpressionDescription`, as the store runs them.
package enum AggregateFunction: String {
    case count = "count:", sum = "sum:", average = "average:", min = "min:", max = "max:"
}

package enum StoreFetchResult {
    case snapshots([RowSnapshot])
    case objectIDs([NSManagedObjectID])
    /// Primary keys, and for each the index of its concrete entity in the fetched entity's
    /// `selfAndDescendants` (empty when no sub-entity can occur): 10 bytes a row instead of an
    /// object ID's ~64.
    case keys([Int64], [UInt16])
    case count(Int)
    case dictionaries([[String: Any]])

    /// The rows of a `.snapshots` result (nil for other results), leaving the result empty, so
    /// that the caller holds the only reference to them and can move them out without copying.
    mutating func takeSnapshots() -> [RowSnapshot]? {
        guard case .snapshots(let rows) = self else { return nil }
        self = .count(0)
        return rows
    }
}

/// The changes of one save, as the object graph hands them to a store. Objects are named by
/// their IDs; inserted objects still have temporary IDs, which the store replaces.
package struct SaveChanges {
    package struct Row {
        package let objectID: NSManagedObjectID
        package let values: [PrimitiveValue]
        package let toOne: [NSManagedObjectID?]
        /// For updates: the slots that changed (attributes, then to-ones), to write only those.
        package let changedAttributeSlots: [Int]
        package let changedRelationshipSlots: [Int]
        /// For updates and deletes: the version the context last saw (optimistic locking).
        package let expectedVersion: Int64
    }

    /// The complete new membership of a to-many relationship that has its own storage (ordered,
    /// many-to-many, or without inverse). Unordered one-to-many relationships need none: the
    /// members' to-one keys say it all.
    package struct ToMany {
        package let source: NSManagedObjectID
        package let relationship: NSRelationshipDescription
        package let members: [NSManagedObjectID]
    }

    package var inserted: [Row] = []
    package var updated: [Row] = []
    package var deleted: [Row] = []
    /// Objects the save does not change whose rows must still be at the version the context
    /// saw (`NSManagedObjectContext.detectConflicts(for:)`): a row changed or deleted since is a
    /// conflict, as for an update. Only their IDs and versions are set.
    package var locked: [Row] = []
    package var toMany: [ToMany] = []
    /// The context saving, and its inserted objects in the order of `inserted`: what an
    /// incremental store's save request is made of. Unowned: changes never outlive the save.
    unowned(unsafe) package var context: NSManagedObjectContext? = nil
    var insertedObjects: [NSManagedObject] = []
    /// Who made the save, for a store that records persistent history.
    package var authorship = HistoryAuthorship()
}

/// Who made a save or a batch request, as persistent history records it: the context's
/// `transactionAuthor` and `name`.
package struct HistoryAuthorship {
    package var author: String?
    package var contextName: String?

    init(author: String? = nil, contextName: String? = nil) {
        self.author = author
        self.contextName = contextName
    }

    init(of context: NSManagedObjectContext) {
        self.init(author: context.transactionAuthor, contextName: context.name)
    }
}

/// What a store reports back after a successful save.
package struct SaveOutcome {
    /// The permanent ID of each inserted row, in the order of `SaveChanges.inserted`.
    package var insertedIDs: [NSManagedObjectID] = []

    package init(insertedIDs: [NSManagedObjectID] = []) { self.insertedIDs = insertedIDs }
}

extension SaveChanges {
    /// Whether any row or membership refers to other objects (which may be new ones, so that
    /// their temporary IDs must be mapped to the permanent ones).
    var refersToObjects: Bool {
        !toMany.isEmpty || inserted.contains { !$0.toOne.isEmpty } || updated.contains { !$0.toOne.isEmpty }
    }

    /// The permanent keys of the inserted rows by their temporary IDs' numbers, given their new
    /// IDs in order: what resolves every reference to a new object while the save is written.
    package func temporaryKeyMap(_ insertedIDs: [NSManagedObjectID]) -> TemporaryKeyMap {
        guard refersToObjects else { return TemporaryKeyMap() }
        return TemporaryKeyMap(rows: inserted, keys: insertedIDs)
    }
}

/// The primary keys a save gives its new objects, by their temporary IDs' numbers.
///
/// Temporary numbers come from one counter, so the objects of a save usually hold a compact
/// range of them: then the map is an array indexed from the smallest, which a save of many new
/// objects fills and reads far faster than a dictionary. Scattered numbers (objects created
/// long apart) fall back to a dictionary.
package struct TemporaryKeyMap {
    private var base: UInt64 = 0
    /// Keys by `number - base`; 0 for a number that is not a new row of this save.
    private var dense: [Int64] = []
    private var sparse: [UInt64: Int64] = [:]

    init() {}

    init(rows: [SaveChanges.Row], keys ids: [NSManagedObjectID]) {
        // Two passes over the rows rather than a list of pairs: a large save's rows are many,
        // and memory touched for the first time is what a large save pays most for.
        // By index: iterating the rows would copy each one, retaining and releasing its arrays.
        var low = UInt64.max, high = UInt64.min, count = 0
        for index in rows.indices where index < ids.count {
            guard case .temporary(let number) = rows[index].objectID.key, ids[index].primaryKey != nil else { continue }
            low = min(low, number)
            high = max(high, number)
            count += 1
        }
        guard count > 0 else { return }
        let isDense = high - low < UInt64(count) * 4 + 64
        if isDense {
            base = low
            dense = [Int64](repeating: 0, count: Int(high - low) + 1)
        } else {
            sparse.reserveCapacity(count)
        }
        for index in rows.indices where index < ids.count {
            guard case .temporary(let number) = rows[index].objectID.key, let key = ids[index].primaryKey else { continue }
            if isDense { dense[Int(number - low)] = key } else { sparse[number] = key }
        }
    }

    /// The primary key `id` has after this save: its own, or, for an object the save inserts,
    /// the one it is given.
    package func key(of id: NSManagedObjectID?) -> Int64? {
        guard let id else { return nil }
        switch id.key {
        case .permanent(let key): return key
        case .temporary(let number):
            if !dense.isEmpty {
                guard number >= base, number - base < UInt64(dense.count) else { return nil }
                let key = dense[Int(number - base)]
                return key == 0 ? nil : key
            }
            return sparse[number]
        }
    }
}

/// An optimistic-locking failure found while saving: the row changed or vanished since read.
package struct OptimisticLockingFailure: Error {
    package let objectID: NSManagedObjectID
    /// The version now in the store; 0 when the row is gone.
    package let storeVersion: Int64

    package init(objectID: NSManagedObjectID, storeVersion: Int64) {
        self.objectID = objectID
        self.storeVersion = storeVersion
    }
}

/// Every optimistic-locking failure of one save: a store checks all the rows it was given before
/// it gives up, so that the save reports each conflict, not the first.
package struct OptimisticLockingFailures: Error {
    package let failures: [OptimisticLockingFailure]

    package init(failures: [OptimisticLockingFailure]) { self.failures = failures }
}

/// Every uniqueness constraint a save would break. A store checks all the rows it was given,
/// and finds who shares the values by query (not from the database's message), before it gives
/// up and writes nothing.
package struct UniquenessConflicts: Error {
    package struct Conflict {
        /// The entity that declares the constraint (its sub-entities share it).
        package let entity: NSEntityDescription
        /// The constraint's property names; empty when the store's own index refused a row
        /// and no constraint of the model explains it.
        package let properties: [String]
        /// The objects of the save that share the values, by the IDs their context knows them
        /// by (a new object's temporary ID).
        package var objectIDs: [NSManagedObjectID]
        /// The saved row that already has the values, if any.
        package var databaseObjectID: NSManagedObjectID?

        package init(entity: NSEntityDescription, properties: [String], objectIDs: [NSManagedObjectID], databaseObjectID: NSManagedObjectID?) {
            self.entity = entity
            self.properties = properties
            self.objectIDs = objectIDs
            self.databaseObjectID = databaseObjectID
        }
    }

    package let conflicts: [Conflict]

    package init(conflicts: [Conflict]) { self.conflicts = conflicts }
}
