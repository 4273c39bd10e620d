import Foundation

/// `ocd port`'s rewrites: what Swift on Linux cannot accept in Core Data code written for
/// Apple's SDK, turned into code that compiles on both (Apple's form kept under
/// `#if canImport(ObjectiveC)`):
/// - `@objc` and `@objc(Name)` attributes are wrapped in `#if canImport(ObjectiveC)`;
/// - `@NSManaged var`s become `@Managed` in a class body and `ManagedKey` properties in an
///   extension; `@NSManaged func` to-many accessors get bodies over the mutable set views;
///   where the files declare a type of their own named `Managed` (the objc.io book's protocol),
///   the property wrapper is written `@CoreData.Managed`;
/// - `#keyPath(Item.a.b)` becomes `"a.b"`, and `#selector(NSString.localizedStandardCompare(_:))`
///   in a sort descriptor `Selector("localizedStandardCompare:")` (other `#selector`s are
///   reported);
/// - `override`s in an extension of a class declared in one of the files move into the class
///   body (Swift on Linux cannot override in an extension);
/// - a class with `validate<Key>` methods gets a `validateValue(_:forKey:)` override that calls
///   them, as key-value coding does where there are selectors.
/// What it cannot do is reported with file and line, and left as it was.
struct CoreDataPorter {
    struct SourceFile {
        let path: String
        var lines: [String]
    }

    struct Problem: CustomStringConvertible {
        let path: String
        let line: Int
        let message: String
        var description: String { "\(path):\(line + 1): \(message)" }
    }

    // Set by the rewrites, which live in this file and its extensions.
    var files: [SourceFile]
    var problems: [Problem] = []

    /// The property wrapper's name as the ported files must spell it.
    private let managedAttribute: String

    init(files: [SourceFile]) {
        self.files = files
        managedAttribute = files.contains { Self.declaresOwnManagedType($0.lines) } ? "@CoreData.Managed" : "@Managed"
    }

    /// Whether the lines declare a type named `Managed`, which hides the property wrapper of that
    /// name in their module.
    private static func declaresOwnManagedType(_ lines: [String]) -> Bool {
        let kinds = ["protocol", "class", "struct", "enum", "typealias", "actor"]
        return lines.contains { line in
            // Code only: what follows `//` is a comment (a `//` inside a string is rare here).
            let code = line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? line
            guard !code.trimmingCharacters(in: .whitespaces).hasPrefix("*") else { return false }
            let words = code.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" || $0 == "<" || $0 == "=" || $0 == "{" })
            return zip(words, words.dropFirst()).contains { kinds.contains(String($0)) && $1 == "Managed" }
        }
    }

    /// Applies every rewrite to every file.
    mutating func port() {
        moveOverridesOutOfExtensions()
        addValidateValueDispatch()
        for index in files.indices {
            files[index].lines = portLines(of: files[index])
        }
    }

    // MARK: Line rewrites

    private mutating func portLines(of file: SourceFile) -> [String] {
        let lines = file.lines
        let scanner: SwiftSourceScanner
        do {
            scanner = try SwiftSourceScanner(lines: lines)
        } catch {
            problems.append(Problem(path: file.path, line: error.line, message: "cannot read this file's structure: \(error.reason); left as it was"))
            return lines
        }
        let orderedRelationships = Self.orderedRelationshipKeys(in: lines)
        var output: [String] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let indent = String(line.prefix { $0 == " " || $0 == "\t" })
            if Self.isPorted(lines, at: index) {
                output.append(line)
                index += 1
                continue
            }
            // A run of `@NSManaged` declarations, each maybe after an `@objc(selector)` line: one
            // `#if` block for the run.
            if Self.startsManagedDeclaration(lines, at: index) {
                var original: [String] = []
                var replacement: [String] = []
                var cursor = index
                while cursor < lines.count && Self.startsManagedDeclaration(lines, at: cursor) {
                    let managedIndex = lines[cursor].trimmingCharacters(in: .whitespaces).hasPrefix("@NSManaged") ? cursor : cursor + 1
                    let declaration = lines[managedIndex].trimmingCharacters(in: .whitespaces)
                    let lineIndent = String(lines[managedIndex].prefix { $0 == " " || $0 == "\t" })
                    guard let ported = managedReplacement(declaration, indent: lineIndent, scope: scanner.enclosingDeclaration(ofLine: managedIndex),
                                                          orderedRelationships: orderedRelationships) else {
                        if cursor == index {
                            problems.append(Problem(path: file.path, line: managedIndex, message: "cannot port '\(declaration)'; left as it was"))
                            original = Array(lines[cursor...managedIndex])
                            cursor = managedIndex + 1
                        }
                        break
                    }
                    original += lines[cursor...managedIndex]
                    replacement += ported
                    cursor = managedIndex + 1
                }
                output += replacement.isEmpty ? original : ["#if canImport(ObjectiveC)"] + original + ["#else"] + replacement + ["#endif"]
                index = cursor
                continue
            }
            if let (attribute, rest) = Self.objcAttribute(in: trimmed) {
                output += ["#if canImport(ObjectiveC)", indent + attribute, "#endif"]
                if !rest.isEmpty { output.append(indent + rest) }
                index += 1
                continue
            }
            output.append(replacingSelectors(in: Self.replacingKeyPaths(in: line), path: file.path, lineIndex: index))
            index += 1
        }
        return output
    }

    /// Whether an `@NSManaged` declaration starts at `index` (alone, or after `@objc(…)`).
    private static func startsManagedDeclaration(_ lines: [String], at index: Int) -> Bool {
        let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("@NSManaged") { return true }
        return trimmed.hasPrefix("@objc") && index + 1 < lines.count
            && lines[index + 1].trimmingCharacters(in: .whitespaces).hasPrefix("@NSManaged")
    }

    /// Whether the line is already inside a `#if canImport(ObjectiveC)` block this tool wrote
    /// (so that porting twice changes nothing).
    private static func isPorted(_ lines: [String], at index: Int) -> Bool {
        var cursor = index - 1
        while cursor >= 0 {
            let trimmed = lines[cursor].trimmingCharacters(in: .whitespaces)
            if trimmed == "#if canImport(ObjectiveC)" { return true }
            if trimmed == "#endif" || trimmed == "#else" { return false }
            if !(trimmed.hasPrefix("@") || trimmed.isEmpty) { return false }
            cursor -= 1
        }
        return false
    }

    /// `@objc` or `@objc(Name)` at the start of a line, and what follows it on the line.
    private static func objcAttribute(in trimmed: String) -> (attribute: String, rest: String)? {
        guard trimmed.hasPrefix("@objc") else { return nil }
        let afterName = trimmed.dropFirst("@objc".count)
        if afterName.hasPrefix("Members") {
            return ("@objcMembers", String(afterName.dropFirst("Members".count)).trimmingCharacters(in: .whitespaces))
        }
        if afterName.hasPrefix("(") {
            guard let close = afterName.firstIndex(of: ")") else { return nil }
            let attribute = "@objc" + afterName[...close]
            return (attribute, String(afterName[afterName.index(after: close)...]).trimmingCharacters(in: .whitespaces))
        }
        guard afterName.isEmpty || afterName.first == " " else { return nil }
        return ("@objc", String(afterName).trimmingCharacters(in: .whitespaces))
    }

    // MARK: @NSManaged

    /// The OpenCoreData form of an `@NSManaged` declaration, or nil when it has none.
    private func managedReplacement(_ declaration: String, indent: String, scope: SwiftSourceScanner.Scope?,
                                    orderedRelationships: Set<String>) -> [String]? {
        var words = declaration.dropFirst("@NSManaged".count).trimmingCharacters(in: .whitespaces)
        var modifiers = ""
        while let word = words.split(separator: " ").first,
              ["public", "internal", "private", "fileprivate", "open", "final", "dynamic"].contains(String(word)) {
            if word != "dynamic" && word != "final" { modifiers += (word == "open" ? "public" : String(word)) + " " }
            words = String(words.dropFirst(word.count)).trimmingCharacters(in: .whitespaces)
        }
        if words.hasPrefix("var ") {
            guard let colon = words.firstIndex(of: ":") else { return nil }
            let name = words.dropFirst(4)[..<colon].trimmingCharacters(in: .whitespaces)
            let type = words[words.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !type.isEmpty, !type.contains("{") else { return nil }
            guard case .extension(let owner)? = scope?.kind else {
                return [indent + "\(managedAttribute) \(modifiers)var \(name): \(type)"]
            }
            return [
                indent + "private static let \(name)Key = ManagedKey<\(type)>(\"\(name)\")",
                indent + "\(modifiers)var \(name): \(type) {",
                indent + "    get { self[\(owner).\(name)Key] }",
                indent + "    set { self[\(owner).\(name)Key] = newValue }",
                indent + "}",
            ]
        }
        if words.hasPrefix("func ") {
            guard let body = ToManyAccessorBody.body(of: words, orderedRelationships: orderedRelationships) else { return nil }
            return [indent + "\(modifiers)\(words) {"] + body.split(separator: "\n").map { indent + "    " + $0 } + [indent + "}"]
        }
        return nil
    }

    /// The relationships (lowercased keys) whose accessors in `lines` show they are ordered.
    private static func orderedRelationshipKeys(in lines: [String]) -> Set<String> {
        var keys = Set<String>()
        for line in lines where line.contains("@NSManaged") && line.contains("func ")
            && (line.contains("NSOrderedSet") || line.contains("NSIndexSet") || line.contains("at idx")) {
            for prefix in ["insertInto", "removeFrom", "replace", "addTo"] {
                guard let range = line.range(of: "func " + prefix) else { continue }
                let key = line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                if let first = key.first { keys.insert(first.lowercased() + key.dropFirst()) }
                break
            }
        }
        return keys
    }

    // MARK: #keyPath

    /// `#keyPath(Item.owner.name)` → `"owner.name"`, `#keyPath(name)` → `"name"`.
    static func replacingKeyPaths(in line: String) -> String {
        var result = line
        while let start = result.range(of: "#keyPath("), let close = result[start.upperBound...].firstIndex(of: ")") {
            let path = result[start.upperBound..<close].trimmingCharacters(in: .whitespaces)
            var components = path.split(separator: ".").map(String.init)
            if components.count > 1, components[0].first?.isUppercase == true { components.removeFirst() }
            result.replaceSubrange(start.lowerBound...close, with: "\"\(components.joined(separator: "."))\"")
        }
        return result
    }

    // MARK: Overrides in extensions

    /// Moves each `override` member of an extension into the body of the class it extends, when
    /// one of the files declares that class; reports the others.
    private mutating func moveOverridesOutOfExtensions() {
        for found in overridesInExtensions() where classBody(named: found.owner) == nil {
            problems.append(Problem(path: files[found.fileIndex].path, line: found.lines.lowerBound,
                                    message: "an override in an extension of \(found.owner), whose class is not in the files given: move it into the class body"))
        }
        // One at a time, scanning again after each move, so that line numbers stay true.
        for _ in 0..<10_000 {
            guard let move = overridesInExtensions().first(where: { classBody(named: $0.owner) != nil }),
                  let target = classBody(named: move.owner) else { return }
            let text = Array(files[move.fileIndex].lines[move.lines])
            files[move.fileIndex].lines.removeSubrange(move.lines)
            let closeLine = move.fileIndex == target.fileIndex && target.closeLine > move.lines.upperBound
                ? target.closeLine - text.count : target.closeLine
            let classIndent = String(files[target.fileIndex].lines[closeLine].prefix { $0 == " " || $0 == "\t" })
            let memberIndent = String(text[0].prefix { $0 == " " || $0 == "\t" })
            let moved = ["", classIndent + "    // Moved from an extension by ocd port: Swift on Linux cannot override there."]
                + text.map { classIndent + "    " + ($0.hasPrefix(memberIndent) ? String($0.dropFirst(memberIndent.count)) : $0) }
            files[target.fileIndex].lines.insert(contentsOf: moved, at: closeLine)
        }
    }

    /// The `override` members of extensions, in every file.
    private func overridesInExtensions() -> [(fileIndex: Int, lines: ClosedRange<Int>, owner: String)] {
        var found: [(fileIndex: Int, lines: ClosedRange<Int>, owner: String)] = []
        for (fileIndex, file) in files.enumerated() {
            guard let scanner = try? SwiftSourceScanner(lines: file.lines) else { continue }
            var line = 0
            while line < file.lines.count {
                let trimmed = file.lines[line].trimmingCharacters(in: .whitespaces)
                if trimmed.split(separator: " ").contains("override"), !trimmed.hasPrefix("//"),
                   case .extension(let owner)? = scanner.enclosingDeclaration(ofLine: line)?.kind {
                    let last = scanner.lastLine(ofDeclarationAt: line)
                    found.append((fileIndex, line...last, owner))
                    line = last + 1
                    continue
                }
                line += 1
            }
        }
        return found
    }

    /// Where the class `name` is declared among the files: its file and closing brace line.
    func classBody(named name: String) -> (fileIndex: Int, closeLine: Int)? {
        for (fileIndex, file) in files.enumerated() {
            guard let scanner = try? SwiftSourceScanner(lines: file.lines) else { continue }
            if let scope = scanner.scopes.first(where: { $0.kind == .type(keyword: "class", name: name) }) {
                return (fileIndex, scope.closeLine)
            }
        }
        return nil
    }
}
