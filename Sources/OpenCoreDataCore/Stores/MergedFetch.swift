import Foundation

/// One fetch over several stores. Each store is asked for as many rows as the answer could take
/// from it (the offset plus the limit, from its start), and their answers are merged here:
/// sorted by the fetch's sort descriptors, evaluated as every store evaluates them, then cut to
/// the fetch's offset and limit. Rows that compare equal keep the coordinator's store order.
struct MergedFetch {
    let fetch: StoreFetch
    let stores: [NSPersistentStore]

    func run() throws -> StoreFetchResult {
        switch fetch.result {
        case .count:
            var total = 0
            for store in stores {
                if case .count(let count) = try store.seam.execute(perStore(result: .count, limited: false)) { total += count }
            }
            return .count(limitedCount(total))
        case .snapshots, .objectIDs:
            return try mergedRows()
        case .dictionaries(let columns, let groupBy):
            return .dictionaries(try mergedDictionaries(columns: columns, groupBy: groupBy))
        case .keys:
            // Keys do not say which store they belong to; fetchInBatches reads one store only.
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType, "A fetch of keys reads one store, not \(stores.count)")
        }
    }

    /// The fetch as one store runs it: from the start, up to what the answer could take.
    private func perStore(result: StoreFetch.Result, limited: Bool = true) -> StoreFetch {
        var fetch = self.fetch
        fetch.result = result
        // Offset plus limit, or no limit when that sum does not fit.
        let (rows, overflows) = offset.addingReportingOverflow(fetch.fetchLimit)
        fetch.fetchLimit = limited && fetch.fetchLimit > 0 && !overflows ? rows : 0
        fetch.fetchOffset = 0
        return fetch
    }

    /// The fetch's offset; a negative one counts as none, as SQLite takes it.
    private var offset: Int { max(0, fetch.fetchOffset) }

    private func limitedCount(_ total: Int) -> Int {
        let afterOffset = max(0, total - offset)
        return fetch.fetchLimit > 0 ? min(afterOffset, fetch.fetchLimit) : afterOffset
    }

    private func limited<Element>(_ elements: [Element]) -> [Element] {
        guard offset > 0 || fetch.fetchLimit > 0 else { return elements }
        var sliced = ArraySlice(elements).dropFirst(offset)
        if fetch.fetchLimit > 0 { sliced = sliced.prefix(fetch.fetchLimit) }
        return Array(sliced)
    }

    // MARK: Objects

    private func mergedRows() throws -> StoreFetchResult {
        let sorts = fetch.sortDescriptors
        // Sorting needs every row's values; an answer of IDs only needs no more than IDs.
        let wantsSnapshots = !sorts.isEmpty || { if case .snapshots = fetch.result { true } else { false } }()
        var rows: [RowSnapshot] = []
        var ids: [NSManagedObjectID] = []
        for store in stores {
            switch try store.seam.execute(perStore(result: wantsSnapshots ? .snapshots : .objectIDs)) {
            case .snapshots(let found):
                if wantsSnapshots { rows += found } else { ids += found.map(\.objectID) }
            case .objectIDs(let found):
                // An incremental store answers with IDs; their values come through its nodes.
                if wantsSnapshots { rows += try store.seam.snapshots(for: found, context: fetch.context) } else { ids += found }
            default:
                break
            }
        }
        guard wantsSnapshots else { return .objectIDs(limited(ids)) }
        if !sorts.isEmpty {
            let destinations = DestinationRows(context: fetch.context)
            let sorted = rows.map { MergedRow(snapshot: $0, destinations: destinations) }.sorted(by: sorts)
            // A destination that could not be read would have sorted as nil: the fetch fails instead.
            if let error = destinations.error { throw error }
            rows = limited(sorted.map(\.snapshot))
        } else {
            rows = limited(rows)
        }
        if case .objectIDs = fetch.result { return .objectIDs(rows.map(\.objectID)) }
        return .snapshots(rows)
    }

    // MARK: Dictionaries

    private func mergedDictionaries(columns: [DictionaryColumn], groupBy: [String]) throws -> [[String: Any]] {
        let aggregates = columns.contains { if case .aggregate = $0.kind { true } else { false } }
        guard groupBy.isEmpty && !aggregates else {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "A dictionary fetch of \(fetch.entity.name ?? "?") that groups or aggregates reads one store, but \(stores.count) stores hold the entity: name one in the request's affectedStores")
        }
        // The dictionaries are sorted here by their own values: each sort key must be a column.
        let names = Set(columns.map(\.name))
        if let missing = fetch.sortDescriptors.first(where: { !names.contains($0.key ?? "") })?.key {
            throw CoreDataError.make(.persistentStoreUnsupportedRequestType,
                                     "A dictionary fetch of \(fetch.entity.name ?? "?") over \(stores.count) stores sorts by '\(missing)', which is not among its propertiesToFetch: fetch it too, or name one store in affectedStores")
        }
        var dictionaries: [[String: Any]] = []
        for store in stores {
            if case .dictionaries(let found) = try store.seam.execute(perStore(result: fetch.result)) { dictionaries += found }
        }
        if !fetch.sortDescriptors.isEmpty {
            dictionaries = dictionaries.map(DictionaryRow.init).sorted(by: fetch.sortDescriptors).map(\.dictionary)
        }
        if fetch.returnsDistinctResults { dictionaries = DictionaryResults.distinct(dictionaries) }
        return limited(dictionaries)
    }
}

/// The to-one destinations a merge's sort reads, each loaded once from its store.
private final class DestinationRows {
    unowned(unsafe) let context: NSManagedObjectContext?
    private var loaded: [NSManagedObjectID: RowSnapshot?] = [:]
    /// The first failure to read a destination.
    private(set) var error: Error?

    init(context: NSManagedObjectContext?) { self.context = context }

    func row(for id: NSManagedObjectID) -> RowSnapshot? {
        if let row = loaded[id] { return row }
        var row: RowSnapshot?
        do {
            row = try id.persistentStore?.seam.snapshot(for: id, context: context)
        } catch {
            if self.error == nil { self.error = error }
        }
        loaded[id] = row
        return row
    }
}

/// A fetched row as a merge's sort reads it: attributes from its snapshot, to-ones through
/// `DestinationRows` (sorts never go through to-manys).
private struct MergedRow: KeyValueReadable {
    let snapshot: RowSnapshot
    let destinations: DestinationRows

    func value(forKey key: String) -> Any? {
        switch snapshot.entity.layout.propertiesByName[key] {
        case let attribute as NSAttributeDescription:
            return snapshot.values[attribute.attributeSlot].objectValue(for: attribute.attributeType)
        case let relationship as NSRelationshipDescription where !relationship.isToMany:
            guard let id = snapshot.toOne[relationship.relationshipSlot], let row = destinations.row(for: id) else { return nil }
            return MergedRow(snapshot: row, destinations: destinations)
        default:
            return nil
        }
    }

    var rowObjectID: NSManagedObjectID? { snapshot.objectID }
}

/// A dictionary result as a merge's sort reads it: a sort key path such as `author.name` is the
/// key of its column, read one key at a time.
private struct DictionaryRow: KeyValueReadable {
    let dictionary: [String: Any]
    var prefix = ""

    init(_ dictionary: [String: Any]) { self.dictionary = dictionary }
    private init(_ dictionary: [String: Any], prefix: String) {
        self.dictionary = dictionary
        self.prefix = prefix
    }

    func value(forKey key: String) -> Any? {
        let path = prefix + key
        if let value = dictionary[path] { return value }
        // Part of a longer column key: read on.
        let longer = path + "."
        guard dictionary.keys.contains(where: { $0.hasPrefix(longer) }) else { return nil }
        return DictionaryRow(dictionary, prefix: longer)
    }

    var rowObjectID: NSManagedObjectID? { nil }
}
