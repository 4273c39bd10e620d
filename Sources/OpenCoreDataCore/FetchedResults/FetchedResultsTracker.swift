import Foundation

/// The results of a fetch request kept up to date with a context's changes, a round at a time:
/// what a fetched results controller (and a fetch request's change stream) stands on.
///
/// A round takes the objects a context's change event inserted, updated or deleted, and places
/// each one that matters: leaving, arriving, moving or staying. Only those objects are looked
/// at — their old positions from the list, their new ones by binary search among the others —
/// so a round costs O(k log n) for k changed objects among n, never a refetch or a full diff.
final class FetchedResultsTracker {
    /// What the tracker needs of a fetch request, read from it at each `performFetch`.
    struct Request {
        /// What `request`, of `entity`, asks for.
        init<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) {
            membership = RequestMembership(request, entity: entity)
            order = FetchedResultsOrder(request.sortDescriptors ?? [])
        }

        let membership: RequestMembership
        let order: FetchedResultsOrder
    }

    /// Weak: a controller holds its context itself; a sequence of updates ends with its context.
    private(set) weak var context: NSManagedObjectContext?
    let sectionNameKeyPath: String?
    private(set) var request: Request?
    private(set) var list: OrderedObjectList?
    /// The sections in order; a controller without a `sectionNameKeyPath` has one, always.
    private(set) var sections: [TrackedSection] = []
    private var sectionSizes = FenwickTree(counts: [])
    private var sectionsByName: [String: TrackedSection] = [:]
    /// Every object in order, built when asked for and kept until the next change.
    private var orderedObjects: [NSManagedObject]?
    /// Changes whenever the results do.
    private(set) var version = 0
    /// The section index title of a section name.
    var indexTitle: (String) -> String? = TrackedSection.capitalizedFirstLetter

    init(context: NSManagedObjectContext, sectionNameKeyPath: String?) {
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    // MARK: Reading

    /// Every object in order (nil before the first fetch).
    var objects: [NSManagedObject]? {
        guard let list else { return nil }
        if let orderedObjects { return orderedObjects }
        let built = list.elements
        orderedObjects = built
        return built
    }

    func object(at indexPath: IndexPath) -> NSManagedObject? {
        guard let list, indexPath.count == 2, indexPath[0] >= 0, indexPath[0] < sections.count else { return nil }
        let section = sections[indexPath[0]]
        guard indexPath[1] >= 0, indexPath[1] < section.count else { return nil }
        return list[start(of: section) + indexPath[1]]
    }

    func indexPath(of object: NSManagedObject) -> IndexPath? {
        guard let position = list?.position(of: object) else { return nil }
        return indexPath(atPosition: position)
    }

    /// The objects of `section`, in order.
    func objects(of section: TrackedSection) -> [NSManagedObject] {
        guard let list, section.slot >= 0 else { return [] }
        let start = start(of: section)
        return list.elements(in: start..<(start + section.count))
    }

    private func start(of section: TrackedSection) -> Int {
        sectionSizes.sum(ofFirst: section.slot)
    }

    private func indexPath(atPosition position: Int) -> IndexPath {
        let (slot, row) = sectionSizes.slot(holding: position)
        return IndexPath(indexes: [slot, row])
    }

    // MARK: Fetching

    /// Replaces the results with `objects`, the answer of a fetch of `request` in its order.
    /// Throws, keeping the previous results, when the objects do not come in runs of one
    /// section name each (the sort does not group them by section).
    func reset(to objects: [NSManagedObject], request: Request) throws {
        let sections = try sectionsOfFetched(objects)
        // Sections handed out before read as empty from now on.
        for section in self.sections { section.slot = -1 }
        self.request = request
        self.list = OrderedObjectList(objects)
        self.sections = sections
        sectionsByName = Dictionary(sections.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        sectionSizes = FenwickTree(counts: sections.map(\.count))
        orderedObjects = objects
        version &+= 1
    }

    private func sectionsOfFetched(_ objects: [NSManagedObject]) throws -> [TrackedSection] {
        guard sectionNameKeyPath != nil else {
            let only = TrackedSection(name: "", tracker: self)
            only.count = objects.count
            return [only]
        }
        var sections: [TrackedSection] = []
        var seen: Set<String> = []
        for (index, object) in objects.enumerated() {
            let name = sectionName(of: object)
            if let last = sections.last, last.name == name {
                last.count += 1
                continue
            }
            guard seen.insert(name).inserted else {
                throw CoreDataError.make(CocoaError.Code(rawValue: NSCoreDataError),
                    "The fetched object at index \(index) has an out of order section name '\(name)'. Objects must be sorted by section name",
                    ["sectionName": name, "index": index])
            }
            let section = TrackedSection(name: name, tracker: self)
            section.count = 1
            section.slot = sections.count
            section.indexBeforeRound = sections.count
            sections.append(section)
        }
        return sections
    }

    /// The section name of `object`: the description of its value at `sectionNameKeyPath`.
    func sectionName(of object: NSManagedObject) -> String {
        guard let keyPath = sectionNameKeyPath else { return "" }
        switch object.value(forKeyPath: keyPath) {
        case nil, is NSNull: return ""
        case let string as String: return string
        case let value?: return String(describing: value)
        }
    }

    // MARK: Rounds

    /// Applies one change event of the context: the objects it inserted, updated (or refreshed)
    /// and deleted. Returns what changed in the results, or nil when nothing did.
    func apply(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) -> FetchedResultsRound? {
        guard let list, let request else { return nil }
        var seen: Set<ObjectIdentifier> = []
        var leaving: [Placed] = []
        var staying: [Placed] = []
        var arriving: [NSManagedObject] = []
        for object in deleted where seen.insert(ObjectIdentifier(object)).inserted {
            if let position = list.position(of: object) { leaving.append(Placed(object: object, position: position)) }
        }
        let candidates = (inserted + updated).filter { seen.insert(ObjectIdentifier($0)).inserted }
        loadFaults(among: candidates, request: request)
        for object in candidates {
            let position = list.position(of: object)
            switch (position, matches(object, request)) {
            case let (position?, true): staying.append(Placed(object: object, position: position))
            case let (position?, false): leaving.append(Placed(object: object, position: position))
            case (nil, true): arriving.append(object)
            case (nil, false): break
            }
        }
        guard !leaving.isEmpty || !staying.isEmpty || !arriving.isEmpty else { return nil }
        orderedObjects = nil
        version &+= 1

        // Changed objects still in order where they are stay there (an object of equal sort
        // values keeps its place among the others); the others leave and are placed again.
        let inPlace = objectsInPlace(staying: staying, leaving: leaving, in: list, request: request)
        var before: [ObjectIdentifier: Where] = [:]
        for placed in staying where inPlace.contains(ObjectIdentifier(placed.object)) {
            let path = indexPath(atPosition: placed.position)
            before[ObjectIdentifier(placed.object)] = Where(path: path, section: sections[path[0]], anchor: nil)
        }
        let moving = staying.filter { !inPlace.contains(ObjectIdentifier($0.object)) }

        // Before: where the leaving and moving objects were, and the nearest object before each
        // that stays where it is.
        let changed = (leaving + moving).sorted { $0.position < $1.position }
        for (placed, anchor) in zip(changed, anchors(of: changed.map(\.position), in: list)) {
            let path = indexPath(atPosition: placed.position)
            before[ObjectIdentifier(placed.object)] = Where(path: path, section: sections[path[0]], anchor: anchor)
        }
        for placed in changed.reversed() {
            let section = sections[before[ObjectIdentifier(placed.object)]!.path[0]]
            list.remove(at: placed.position)
            section.count -= 1
            sectionSizes.add(-1, toSlot: section.slot)
        }
        // Sections left empty step aside, so that new ones are placed among those with objects;
        // one that gets an object again this round comes back as itself.
        var emptied = setAsideEmptySections()
        let refilled = Set(emptied.values.map(ObjectIdentifier.init))

        // Placed again in their old order, so that objects of equal keys keep theirs.
        let staySorted = moving.sorted { $0.position < $1.position }
        for object in staySorted.map(\.object) + arriving { place(object, in: list, request: request, emptied: &emptied) }
        let sectionChanges = settleSections(emptied: Array(emptied.values), refilled: refilled)

        // After: where the staying and arriving objects are.
        var after: [ObjectIdentifier: Where] = [:]
        let placed = (staySorted.map(\.object) + arriving).map { Placed(object: $0, position: list.position(of: $0)!) }
            .sorted { $0.position < $1.position }
        for (object, anchor) in zip(placed, anchors(of: placed.map(\.position), in: list)) {
            let path = indexPath(atPosition: object.position)
            after[ObjectIdentifier(object.object)] = Where(path: path, section: sections[path[0]], anchor: anchor)
        }
        for placed in staying where inPlace.contains(ObjectIdentifier(placed.object)) {
            let path = indexPath(atPosition: list.position(of: placed.object)!)
            after[ObjectIdentifier(placed.object)] = Where(path: path, section: sections[path[0]], anchor: nil)
        }

        var round = FetchedResultsRound(sectionChanges: sectionChanges)
        for placed in leaving.sorted(by: { $0.position < $1.position }) {
            round.objectChanges.append(.init(object: placed.object, type: .delete,
                                             indexPath: before[ObjectIdentifier(placed.object)]!.path, newIndexPath: nil))
        }
        for object in arriving {
            round.objectChanges.append(.init(object: object, type: .insert, indexPath: nil,
                                             newIndexPath: after[ObjectIdentifier(object)]!.path))
        }
        let moved = movedObjects(staySorted.map(\.object), before: before, after: after)
        for object in staying.sorted(by: { $0.position < $1.position }).map(\.object) {
            let id = ObjectIdentifier(object)
            if before[id]!.section.isReplacedInRound || after[id]!.section.isReplacedInRound {
                // Out of or into a section deleted and inserted again: a deletion and an insertion.
                round.objectChanges.append(.init(object: object, type: .delete, indexPath: before[id]!.path, newIndexPath: nil))
                round.objectChanges.append(.init(object: object, type: .insert, indexPath: nil, newIndexPath: after[id]!.path))
                continue
            }
            round.objectChanges.append(.init(object: object, type: moved.contains(id) ? .move : .update,
                                             indexPath: before[id]!.path, newIndexPath: after[id]!.path))
        }
        round.objectChanges.sort { $0.type.deliveryOrder < $1.type.deliveryOrder }
        return round
    }

    /// An object and its position in the list.
    private struct Placed {
        let object: NSManagedObject
        let position: Int
    }

    /// Where an object stands: its index path, its section, and the nearest object before it
    /// that the round leaves where it is (nil at the start of the list).
    private struct Where {
        let path: IndexPath
        let section: TrackedSection
        let anchor: ObjectIdentifier?
    }

    /// For each of `positions` (ascending, all of them changed objects), the nearest object
    /// before it that is not at one of `positions`.
    private func anchors(of positions: [Int], in list: OrderedObjectList) -> [ObjectIdentifier?] {
        var result: [ObjectIdentifier?] = []
        result.reserveCapacity(positions.count)
        var previous = -2
        var anchor: ObjectIdentifier?
        for position in positions {
            if position != previous + 1 { anchor = position > 0 ? ObjectIdentifier(list[position - 1]) : nil }
            result.append(anchor)
            previous = position
        }
        return result
    }

    /// The staying objects whose place among the others changed: another section, another
    /// unchanged object before them, or another order among the changed ones that share both.
    private func movedObjects(_ staying: [NSManagedObject], before: [ObjectIdentifier: Where],
                              after: [ObjectIdentifier: Where]) -> Set<ObjectIdentifier> {
        var moved: Set<ObjectIdentifier> = []
        // Objects that kept their section and their anchor, grouped by both.
        var groups: [GroupKey: [ObjectIdentifier]] = [:]
        for object in staying {
            let id = ObjectIdentifier(object)
            let old = before[id]!, new = after[id]!
            if old.section !== new.section || old.anchor != new.anchor {
                moved.insert(id)
            } else {
                groups[GroupKey(section: ObjectIdentifier(new.section), anchor: new.anchor), default: []].append(id)
            }
        }
        // `staying` is in old order; a group whose new order differs moved as a whole.
        for members in groups.values where members.count > 1 {
            let newOrder = members.sorted { after[$0]!.path[1] < after[$1]!.path[1] }
            if newOrder != members { moved.formUnion(members) }
        }
        return moved
    }

    private struct GroupKey: Hashable {
        let section: ObjectIdentifier
        let anchor: ObjectIdentifier?
    }

    /// Puts `object` where the sort places it: in its section, after the objects that sort
    /// equal to it. A section it names that does not exist yet is made.
    private func place(_ object: NSManagedObject, in list: OrderedObjectList, request: Request,
                       emptied: inout [String: TrackedSection]) {
        let section: TrackedSection
        let position: Int
        if sectionNameKeyPath == nil {
            section = sections[0]
            position = insertionPosition(of: object, in: 0..<list.count, list: list, request: request)
        } else {
            let name = sectionName(of: object)
            if let existing = sectionsByName[name] {
                section = existing
                let start = start(of: section)
                position = insertionPosition(of: object, in: start..<(start + section.count), list: list, request: request)
            } else {
                (section, position) = newSection(named: name, reusing: emptied.removeValue(forKey: name), for: object,
                                                 in: list, request: request)
            }
        }
        list.insert(object, at: position)
        section.count += 1
        sectionSizes.add(1, toSlot: section.slot)
    }

    /// A new, empty section for `object`, placed where the sort puts the object among the other
    /// sections, and the object's position.
    private func newSection(named name: String, reusing emptied: TrackedSection?, for object: NSManagedObject,
                            in list: OrderedObjectList, request: Request) -> (TrackedSection, Int) {
        var position = insertionPosition(of: object, in: 0..<list.count, list: list, request: request)
        var slot = sections.count
        if position < list.count {
            let (holder, offset) = sectionSizes.slot(holding: position)
            slot = holder
            if offset > 0 {
                // Inside another section: the sort does not group by section; after that one.
                slot = holder + 1
                position = start(of: sections[holder]) + sections[holder].count
            }
        }
        let section = emptied ?? TrackedSection(name: name, tracker: self)
        sections.insert(section, at: slot)
        for index in slot..<sections.count { sections[index].slot = index }
        sectionsByName[name] = section
        sectionSizes = FenwickTree(counts: sections.map(\.count))
        return (section, position)
    }

    /// Takes the sections the round's removals emptied out of the sections, by name.
    private func setAsideEmptySections() -> [String: TrackedSection] {
        guard sectionNameKeyPath != nil, sections.contains(where: { $0.count == 0 }) else { return [:] }
        var emptied: [String: TrackedSection] = [:]
        for section in sections where section.count == 0 {
            emptied[section.name] = section
            sectionsByName[section.name] = nil
        }
        sections.removeAll { $0.count == 0 }
        for (index, section) in sections.enumerated() { section.slot = index }
        sectionSizes = FenwickTree(counts: sections.map(\.count))
        return emptied
    }

    /// Numbers the sections after a round; returns the sections that went (`emptied`, at their
    /// index before the round) and came (at their index after it).
    private func settleSections(emptied: [TrackedSection], refilled: Set<ObjectIdentifier>) -> [FetchedResultsRound.SectionChange] {
        guard sectionNameKeyPath != nil else { return [] }
        for section in sections { section.isReplacedInRound = false }
        // A refilled section that came back out of its former order among the sections that
        // were there before is reported as deleted and inserted; if any did, every refilled one is.
        let formerOrder = sections.map(\.indexBeforeRound).filter { $0 >= 0 }
        if zip(formerOrder, formerOrder.dropFirst()).contains(where: { $0 >= $1 }) {
            for section in sections where refilled.contains(ObjectIdentifier(section)) { section.isReplacedInRound = true }
        }
        var deleted = emptied.filter { $0.indexBeforeRound >= 0 }
        deleted += sections.filter(\.isReplacedInRound)
        var changes: [FetchedResultsRound.SectionChange] = []
        for section in deleted.sorted(by: { $0.indexBeforeRound < $1.indexBeforeRound }) {
            changes.append(.init(section: section, index: section.indexBeforeRound, type: .delete))
        }
        for section in emptied where section.indexBeforeRound >= 0 { section.slot = -1 }
        for (index, section) in sections.enumerated() {
            section.slot = index
            if section.indexBeforeRound < 0 || section.isReplacedInRound {
                changes.append(.init(section: section, index: index, type: .insert))
            }
            section.indexBeforeRound = index
        }
        return changes
    }

    /// The staying objects that are still in order where they are: in the section they were
    /// in, not before the nearest unchanged object before them nor after the nearest one after
    /// them, and in order with the other such objects between those two.
    private func objectsInPlace(staying: [Placed], leaving: [Placed], in list: OrderedObjectList,
                                request: Request) -> Set<ObjectIdentifier> {
        guard !staying.isEmpty else { return [] }
        let stayingIDs = Set(staying.map { ObjectIdentifier($0.object) })
        let changed = (staying + leaving).sorted { $0.position < $1.position }
        var result: Set<ObjectIdentifier> = []
        var start = 0
        while start < changed.count {
            // A run of changed objects next to each other, between two unchanged ones.
            var end = start
            while end + 1 < changed.count && changed[end + 1].position == changed[end].position + 1 { end += 1 }
            var kept: [(object: NSManagedObject, values: [FetchedResultsOrder.SortValue], section: Int)] = []
            var inOrder = true
            for placed in changed[start...end] where stayingIDs.contains(ObjectIdentifier(placed.object)) {
                let section = sectionSizes.slot(holding: placed.position).slot
                guard sectionName(of: placed.object) == sections[section].name else { continue }
                let values = request.order.sortValues(of: placed.object)
                let lower = changed[start].position - 1
                let upper = changed[end].position + 1
                if lower >= 0, sectionSizes.slot(holding: lower).slot == section,
                   request.order.order(of: list[lower], against: values) == .orderedDescending { continue }
                if upper < list.count, sectionSizes.slot(holding: upper).slot == section,
                   request.order.order(of: list[upper], against: values) == .orderedAscending { continue }
                if let previous = kept.last, previous.section == section,
                   request.order.order(of: previous.object, against: values) == .orderedDescending {
                    inOrder = false
                }
                kept.append((placed.object, values, section))
            }
            if inOrder { result.formUnion(kept.map { ObjectIdentifier($0.object) }) }
            start = end + 1
        }
        return result
    }

    /// The position after the objects in `range` that sort before or equal to `object`.
    private func insertionPosition(of object: NSManagedObject, in range: Range<Int>, list: OrderedObjectList,
                                   request: Request) -> Int {
        let values = request.order.sortValues(of: object)
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = (low + high) / 2
            if request.order.order(of: list[middle], against: values) == .orderedDescending {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }

    /// Whether `object` belongs in the results, judged on its current values.
    private func matches(_ object: NSManagedObject, _ request: Request) -> Bool {
        guard let context, object.context === context, request.membership.isOfEntity(object) else { return false }
        // A fault is fired first: one whose row is gone (deleted elsewhere) reads as deleted.
        if object.isFault { object.willAccess() }
        return request.membership.contains(object)
    }

    /// Reads the rows of the candidates that are faults with nothing loaded, in one request,
    /// rather than one at a time as the predicate touches them (a merge's new objects).
    private func loadFaults(among candidates: [NSManagedObject], request: Request) {
        guard let context else { return }
        let empty = candidates.filter { $0.context === context && $0.isFault && $0.contents.snapshot == nil && request.membership.isOfEntity($0) }
        if !empty.isEmpty { context.prefetchRows(for: empty.map(\.objectID)) }
    }
}

/// What one round changed in a tracker's results: sections that went or came, and objects
/// that left, arrived, moved or changed in place. Old index paths are the results' before the
/// round, new ones after it.
struct FetchedResultsRound {
    struct SectionChange {
        let section: TrackedSection
        let index: Int
        let type: NSFetchedResultsChangeType
    }

    struct ObjectChange {
        let object: NSManagedObject
        let type: NSFetchedResultsChangeType
        let indexPath: IndexPath?
        let newIndexPath: IndexPath?
    }

    var sectionChanges: [SectionChange]
    var objectChanges: [ObjectChange] = []

    /// The round as removals at old offsets and insertions at new ones, moves associated: what
    /// a controller without sections hands `controller(_:didChangeContentWith:)`. Objects
    /// changed in place are not in it.
    var difference: CollectionDifference<NSManagedObjectID> {
        var changes: [CollectionDifference<NSManagedObjectID>.Change] = []
        for change in objectChanges {
            let id = change.object.objectID
            switch change.type {
            case .delete:
                changes.append(.remove(offset: change.indexPath![1], element: id, associatedWith: nil))
            case .insert:
                changes.append(.insert(offset: change.newIndexPath![1], element: id, associatedWith: nil))
            case .move:
                changes.append(.remove(offset: change.indexPath![1], element: id, associatedWith: change.newIndexPath![1]))
                changes.append(.insert(offset: change.newIndexPath![1], element: id, associatedWith: change.indexPath![1]))
            case .update:
                break
            }
        }
        // Valid by construction: offsets are distinct positions before and after the round.
        return CollectionDifference(changes)!
    }
}

extension NSFetchedResultsChangeType {
    /// The order a round's object changes are delivered in: deletions, insertions, moves, updates.
    var deliveryOrder: Int {
        switch self {
        case .delete: 0
        case .insert: 1
        case .move: 2
        case .update: 3
        }
    }
}

extension NSManagedObjectContext {
    /// The objects of `request`, fetched for a tracker to follow, and what the tracker needs of
    /// the request. `user` names what asks, in the error for other result types than objects.
    func fetchForTracking<T>(_ request: NSFetchRequest<T>, by user: String) throws -> ([NSManagedObject], FetchedResultsTracker.Request) {
        guard request.resultType == .managedObjectResultType else {
            throw CoreDataError.make(CocoaError.Code(rawValue: NSCoreDataError),
                                     "\(user) supports only managed object results, not result type \(request.resultType.rawValue)")
        }
        mergeArrivedSaves()
        let entity = try entity(of: request)
        return (try fetchObjects(request, entity: entity), FetchedResultsTracker.Request(request, entity: entity))
    }
}
