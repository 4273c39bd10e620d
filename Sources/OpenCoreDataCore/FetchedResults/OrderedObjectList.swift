/// A long list of objects kept in order while single objects come and go: the element at a
/// position, the position of an object, an insertion and a removal each cost O(log n) plus the
/// move of at most one chunk's references, never a copy of the whole list.
///
/// The objects live in chunks of at most `maximumChunkSize`; a Fenwick tree over the chunks'
/// sizes turns positions into chunks and back. Where each object is, is looked up through
/// `chunkOfObject`, built the first time it is asked for: a list that never changes (a
/// controller without a delegate) never pays for it.
final class OrderedObjectList {
    /// A run of consecutive objects, and where it stands among the chunks.
    final class Chunk {
        var objects: ContiguousArray<NSManagedObject>
        var slot: Int

        init(objects: ContiguousArray<NSManagedObject>, slot: Int) {
            self.objects = objects
            self.slot = slot
        }
    }

    static let maximumChunkSize = 1024
    /// The size of the chunks a list is built with, and of the halves a full chunk splits into.
    static let initialChunkSize = 512

    private var chunks: [Chunk] = []
    private var sizes = FenwickTree(counts: [])
    private var chunkOfObject: [ObjectIdentifier: Chunk]?
    private(set) var count = 0

    init<Objects: Collection>(_ objects: Objects) where Objects.Element == NSManagedObject {
        var start = objects.startIndex
        while start != objects.endIndex {
            let end = objects.index(start, offsetBy: Self.initialChunkSize, limitedBy: objects.endIndex) ?? objects.endIndex
            chunks.append(Chunk(objects: ContiguousArray(objects[start..<end]), slot: chunks.count))
            start = end
        }
        count = objects.count
        rebuildSizes()
    }

    /// Every object, in order.
    var elements: [NSManagedObject] {
        var result: [NSManagedObject] = []
        result.reserveCapacity(count)
        for chunk in chunks { result.append(contentsOf: chunk.objects) }
        return result
    }

    /// The objects at `range`'s positions, in order.
    func elements(in range: Range<Int>) -> [NSManagedObject] {
        guard !range.isEmpty else { return [] }
        var result: [NSManagedObject] = []
        result.reserveCapacity(range.count)
        var (slot, offset) = sizes.slot(holding: range.lowerBound)
        while result.count < range.count {
            let objects = chunks[slot].objects
            let take = min(objects.count - offset, range.count - result.count)
            result.append(contentsOf: objects[offset..<(offset + take)])
            slot += 1
            offset = 0
        }
        return result
    }

    subscript(position: Int) -> NSManagedObject {
        precondition(position >= 0 && position < count, "Position \(position) is outside a list of \(count) objects")
        let (slot, offset) = sizes.slot(holding: position)
        return chunks[slot].objects[offset]
    }

    /// The position of `object`, or nil when the list does not hold it.
    func position(of object: NSManagedObject) -> Int? {
        guard let chunk = chunk(of: object),
              let offset = chunk.objects.firstIndex(where: { $0 === object }) else { return nil }
        return sizes.sum(ofFirst: chunk.slot) + offset
    }

    /// Inserts `object` so that it stands at `position`; the objects from there on move one on.
    func insert(_ object: NSManagedObject, at position: Int) {
        precondition(position >= 0 && position <= count, "Position \(position) is outside a list of \(count) objects")
        if chunks.isEmpty {
            chunks = [Chunk(objects: [], slot: 0)]
            rebuildSizes()
        }
        // The end of the list belongs to the last chunk; any other position to the chunk holding it.
        let (slot, offset) = position == count ? (chunks.count - 1, chunks[chunks.count - 1].objects.count)
                                               : sizes.slot(holding: position)
        let chunk = chunks[slot]
        chunk.objects.insert(object, at: offset)
        sizes.add(1, toSlot: slot)
        count += 1
        chunkOfObject?[ObjectIdentifier(object)] = chunk
        if chunk.objects.count > Self.maximumChunkSize { split(chunk) }
    }

    /// Removes and returns the object at `position`.
    @discardableResult
    func remove(at position: Int) -> NSManagedObject {
        precondition(position >= 0 && position < count, "Position \(position) is outside a list of \(count) objects")
        let (slot, offset) = sizes.slot(holding: position)
        let chunk = chunks[slot]
        let object = chunk.objects.remove(at: offset)
        sizes.add(-1, toSlot: slot)
        count -= 1
        chunkOfObject?[ObjectIdentifier(object)] = nil
        if chunk.objects.isEmpty {
            chunks.remove(at: slot)
            renumber(from: slot)
            rebuildSizes()
        }
        return object
    }

    // MARK: Chunks

    private func split(_ chunk: Chunk) {
        let half = chunk.objects.count / 2
        let second = Chunk(objects: ContiguousArray(chunk.objects[half...]), slot: chunk.slot + 1)
        chunk.objects.removeSubrange(half...)
        chunks.insert(second, at: second.slot)
        renumber(from: second.slot)
        rebuildSizes()
        if chunkOfObject != nil {
            for object in second.objects { chunkOfObject?[ObjectIdentifier(object)] = second }
        }
    }

    private func renumber(from slot: Int) {
        for index in slot..<chunks.count { chunks[index].slot = index }
    }

    private func rebuildSizes() {
        sizes = FenwickTree(counts: chunks.map(\.objects.count))
    }

    /// The chunk holding `object`, looked up in a table built on first use.
    private func chunk(of object: NSManagedObject) -> Chunk? {
        if chunkOfObject == nil {
            var built: [ObjectIdentifier: Chunk] = [:]
            built.reserveCapacity(count)
            for chunk in chunks {
                for object in chunk.objects { built[ObjectIdentifier(object)] = chunk }
            }
            chunkOfObject = built
        }
        return chunkOfObject?[ObjectIdentifier(object)]
    }
}
