/// Counts in slots, with the sum of the first slots and the slot holding a position both found
/// in O(log n): what keeps a long ordered list addressable by position while it changes.
struct FenwickTree {
    /// 1-based partial sums: `tree[i]` holds the sum of the slots `i - lowbit(i) + 1 ... i`.
    private var tree: [Int]

    /// The tree of `counts`, built in O(n).
    init(counts: [Int]) {
        tree = [0] + counts
        for index in stride(from: 1, to: tree.count, by: 1) {
            let parent = index + (index & -index)
            if parent < tree.count { tree[parent] += tree[index] }
        }
    }

    /// Adds `delta` to the count of `slot` (0-based).
    mutating func add(_ delta: Int, toSlot slot: Int) {
        var index = slot + 1
        while index < tree.count {
            tree[index] += delta
            index += index & -index
        }
    }

    /// The sum of the counts of the first `slots` slots.
    func sum(ofFirst slots: Int) -> Int {
        var index = slots
        var sum = 0
        while index > 0 {
            sum += tree[index]
            index -= index & -index
        }
        return sum
    }

    /// The slot holding `position` (0-based, counting every slot's positions in order), and the
    /// position's offset in that slot. `position` must be below the sum of all counts.
    func slot(holding position: Int) -> (slot: Int, offset: Int) {
        var index = 0
        var remaining = position
        var step = 1
        while step * 2 < tree.count { step *= 2 }
        // Descends to the last slot whose prefix sum is at most `position`.
        while step > 0 {
            let next = index + step
            if next < tree.count && tree[next] <= remaining {
                index = next
                remaining -= tree[next]
            }
            step /= 2
        }
        return (index, remaining)
    }
}
