import Foundation
import OpenCoreDataCore

extension CoreDataPorter {
    // MARK: #selector


    /// `#selector(NSString.localizedStandardCompare(_:))` — a comparison a sort descriptor
    /// names — → `Selector("localizedStandardCompare:")`, which OpenCoreData's
    /// `NSSortDescriptor(key:ascending:selector:)` takes and Apple's SDK accepts (with a warning
    /// to use `#selector`). Any other `#selector` (target–action, selector-based observers, a
    /// comparison of your own) needs Objective-C: it is reported and left as it was. A
    /// `#selector` in a comment or a string is left alone.
    mutating func replacingSelectors(in line: String, path: String, lineIndex: Int) -> String {
        guard line.contains("#selector(") else { return line }
        var result = line
        var searchStart = result.startIndex
        while let start = result.range(of: "#selector(", range: searchStart..<result.endIndex) {
            searchStart = start.upperBound
            guard !Self.isInCommentOrString(result[..<start.lowerBound]) else { continue }
            guard let close = Self.closingParenthesis(in: result, from: start.upperBound) else {
                problems.append(Problem(path: path, line: lineIndex, message: "a #selector that goes on past this line cannot be ported; left as it was"))
                break
            }
            let reference = result[start.upperBound..<close].trimmingCharacters(in: .whitespaces)
            guard let name = Self.objectiveCName(ofMethodReference: reference), NSSortDescriptor.supportedSelectorNames.contains(name) else {
                problems.append(Problem(path: path, line: lineIndex, message:
                    "#selector(\(reference)) needs Objective-C, which Swift on Linux lacks: only the comparisons a sort descriptor names (\(NSSortDescriptor.supportedSelectorNames.sorted().joined(separator: ", "))) are ported; use a block-based API here"))
                searchStart = result.index(after: close)
                continue
            }
            let replacement = "Selector(\"\(name)\")"
            result.replaceSubrange(start.lowerBound...close, with: replacement)
            searchStart = result.index(start.lowerBound, offsetBy: replacement.count)
        }
        return result
    }

    /// Whether what precedes a position on its line leaves it in a `//` comment or a string
    /// literal (an odd number of unescaped quotes).
    private static func isInCommentOrString(_ prefix: Substring) -> Bool {
        var inString = false
        var previous: Character = " "
        for (offset, character) in prefix.enumerated() {
            if character == "\"" && previous != "\\" { inString.toggle() }
            if !inString && character == "/" && previous == "/" && offset > 0 { return true }
            previous = character
        }
        return inString
    }

    /// The index of the parenthesis that closes the one opened just before `start`.
    private static func closingParenthesis(in text: String, from start: String.Index) -> String.Index? {
        var depth = 1
        var index = start
        while index < text.endIndex {
            switch text[index] {
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// The Objective-C selector a Swift method reference names, as Swift imports and exports
    /// them: `NSString.compare(_:)` → `compare:`, `Type.find(_:in:)` → `find:in:`,
    /// `Type.sort(by:)` → `sortBy:`; a bare comparison name (`NSString.localizedCompare`) takes
    /// its one argument. Nil for what cannot be told (`getter:`, other bare names).
    static func objectiveCName(ofMethodReference reference: String) -> String? {
        guard !reference.hasPrefix("getter:"), !reference.hasPrefix("setter:") else { return nil }
        let call = reference.split(separator: "(", maxSplits: 1).map(String.init)
        guard let base = call.first?.split(separator: ".").last.map(String.init), !base.isEmpty,
              base.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        guard call.count == 2 else { return NSSortDescriptor.supportedSelectorNames.contains(base + ":") ? base + ":" : nil }
        let labels = call[1].dropLast().split(separator: ":", omittingEmptySubsequences: false).dropLast().map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard !labels.isEmpty, labels.allSatisfy({ $0 == "_" || $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }) else {
            return labels.isEmpty && call[1] == ")" ? base : nil
        }
        var name = base
        if let first = labels.first, first != "_" { name += first.prefix(1).uppercased() + first.dropFirst() }
        name += ":"
        for label in labels.dropFirst() { name += (label == "_" ? "" : label) + ":" }
        return name
    }
}
