/// A unified diff between two versions of a file's lines (`diff -u` style, three lines of
/// context), so that `ocd port`'s changes can be read, and undone with `patch -R`.
enum UnifiedDiff {
    static func text(old: [String], new: [String], oldName: String, newName: String) -> String {
        let edits = lineEdits(old: old, new: new)
        guard edits.contains(where: { $0 != .same }) else { return "" }
        var output = "--- \(oldName)\n+++ \(newName)\n"
        // Positions in both files before each edit.
        var positions: [(old: Int, new: Int)] = []
        var oldLine = 0, newLine = 0
        for edit in edits {
            positions.append((oldLine, newLine))
            switch edit {
            case .same: oldLine += 1; newLine += 1
            case .removed: oldLine += 1
            case .added: newLine += 1
            }
        }
        let changed = edits.indices.filter { edits[$0] != .same }
        var hunkStart = 0
        while hunkStart < changed.count {
            var hunkEnd = hunkStart
            while hunkEnd + 1 < changed.count && changed[hunkEnd + 1] - changed[hunkEnd] <= 6 { hunkEnd += 1 }
            let first = max(0, changed[hunkStart] - 3)
            let last = min(edits.count - 1, changed[hunkEnd] + 3)
            let range = first...last
            let oldCount = range.filter { edits[$0] != .added }.count
            let newCount = range.filter { edits[$0] != .removed }.count
            output += "@@ -\(positions[first].old + (oldCount > 0 ? 1 : 0)),\(oldCount) +\(positions[first].new + (newCount > 0 ? 1 : 0)),\(newCount) @@\n"
            for index in range {
                switch edits[index] {
                case .same: output += " " + old[positions[index].old] + "\n"
                case .removed: output += "-" + old[positions[index].old] + "\n"
                case .added: output += "+" + new[positions[index].new] + "\n"
                }
            }
            hunkStart = hunkEnd + 1
        }
        return output
    }

    enum Edit: Equatable { case same, removed, added }

    /// The edits turning `old` into `new`, from their longest common subsequence.
    private static func lineEdits(old: [String], new: [String]) -> [Edit] {
        // Common head and tail first: a port changes a few places in a long file.
        var head = 0
        while head < old.count && head < new.count && old[head] == new[head] { head += 1 }
        var tail = 0
        while tail < old.count - head && tail < new.count - head && old[old.count - 1 - tail] == new[new.count - 1 - tail] { tail += 1 }
        let a = Array(old[head..<(old.count - tail)]), b = Array(new[head..<(new.count - tail)])
        var lengths = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lengths[i][j] = a[i] == b[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var edits = Array(repeating: Edit.same, count: head)
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count && j < b.count && a[i] == b[j] { edits.append(.same); i += 1; j += 1 }
            else if i < a.count && (j == b.count || lengths[i + 1][j] >= lengths[i][j + 1]) { edits.append(.removed); i += 1 }
            else { edits.append(.added); j += 1 }
        }
        return edits + Array(repeating: .same, count: tail)
    }
}
