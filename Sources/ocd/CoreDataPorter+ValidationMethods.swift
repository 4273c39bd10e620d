import Foundation

/// `validate<Key>(_:)` methods: key-value coding finds them by selector (`validateName:error:`)
/// when Core Data validates the property `name`. Linux has no selectors, so `ocd port` gives each
/// class declaring such methods (in its body or in extensions) an override of
/// `validateValue(_:forKey:)` that calls them as key-value coding would, under
/// `#if !canImport(ObjectiveC)` (on Apple's platforms key-value coding still does it).
extension CoreDataPorter {
    /// The line that opens the override this tool writes, so that porting again leaves it.
    static let validationDispatchMarker = "// Added by ocd port: calls the validate<Key> methods, as key-value coding does with selectors."

    /// A `validate<Key>` method found in one of the files.
    struct ValidationMethod {
        let name: String
        let fileIndex: Int
        let line: Int
        let isPrivate: Bool
    }

    mutating func addValidateValueDispatch() {
        let methodsByClass = Dictionary(grouping: validationMethods()) { $0.owner }
        for (owner, found) in methodsByClass.sorted(by: { $0.key < $1.key }) {
            let methods = found.map(\.method)
            guard let target = classBody(named: owner) else {
                let first = methods[0]
                problems.append(Problem(path: files[first.fileIndex].path, line: first.line,
                                        message: "\(first.name) of \(owner), whose class is not in the files given, is never called on Linux: override validateValue(_:forKey:) in \(owner) to call it"))
                continue
            }
            let body = files[target.fileIndex].lines
            let open = classOpenLine(named: owner, in: target.fileIndex) ?? 0
            let bodyLines = body[open...target.closeLine]
            if bodyLines.contains(where: { $0.contains(Self.validationDispatchMarker) }) { continue }
            if bodyLines.contains(where: { $0.contains("func validateValue(") }) {
                problems.append(Problem(path: files[target.fileIndex].path, line: open,
                                        message: "\(owner) overrides validateValue(_:forKey:) and has validate<Key> methods, which Linux never calls: call them from the override"))
                continue
            }
            for method in methods where method.isPrivate && method.fileIndex != target.fileIndex {
                problems.append(Problem(path: files[method.fileIndex].path, line: method.line,
                                        message: "\(method.name) is private to another file than \(owner)'s class: make it internal so that ocd port's validateValue(_:forKey:) can call it"))
            }
            if open == target.closeLine {
                problems.append(Problem(path: files[target.fileIndex].path, line: open,
                                        message: "\(owner)'s body opens and closes on one line: put its braces on lines of their own for ocd port to add validateValue(_:forKey:) calling its validate<Key> methods"))
                continue
            }
            let classIndent = String(body[target.closeLine].prefix { $0 == " " || $0 == "\t" })
            let dispatch = Self.dispatch(to: methods.map(\.name), indent: classIndent + "    ")
            files[target.fileIndex].lines.insert(contentsOf: dispatch, at: target.closeLine)
        }
    }

    /// The override: the model's rules first (`super`), then, as key-value coding does, the
    /// method named after `key` capitalized.
    /// `public`, whatever the class's own access: an override in a public class must be, and
    /// the word is allowed in a class of any access.
    private static func dispatch(to methods: [String], indent: String) -> [String] {
        let cases = methods.sorted().map { name in
            indent + "    case \"\(name.dropFirst("validate".count))\": try \(name)(value)"
        }
        return ["", indent + validationDispatchMarker, "#if !canImport(ObjectiveC)",
                indent + "public override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {",
                indent + "    try super.validateValue(value, forKey: key)",
                indent + "    switch key.prefix(1).uppercased() + key.dropFirst() {"]
            + cases
            + [indent + "    default: break", indent + "    }", indent + "}", "#endif"]
    }

    /// Every `validate<Key>(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>) throws` in a
    /// class body or an extension, with the class it belongs to.
    private mutating func validationMethods() -> [(owner: String, method: ValidationMethod)] {
        var found: [(owner: String, method: ValidationMethod)] = []
        for (fileIndex, file) in files.enumerated() {
            guard let scanner = try? SwiftSourceScanner(lines: file.lines) else { continue }
            for (line, text) in file.lines.enumerated() {
                guard let (name, isPrivate) = Self.validationMethod(declaredIn: text) else {
                    if Self.mayDeclareValidationMethod(text) {
                        problems.append(Problem(path: file.path, line: line,
                                                message: "this looks like a validate<Key> method ocd port cannot read (one line, `func validateKey(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>) throws`): Linux never calls it; call it from a validateValue(_:forKey:) override"))
                    }
                    continue
                }
                switch scanner.enclosingDeclaration(ofLine: line)?.kind {
                case .type(keyword: "class", name: let owner)?, .extension(name: let owner)?:
                    found.append((owner, ValidationMethod(name: name, fileIndex: fileIndex, line: line, isPrivate: isPrivate)))
                default:
                    continue
                }
            }
        }
        return found
    }

    /// Attributes (`@objc`, `@MainActor`, `@available(…)`) and modifier words, then the method.
    private static let validationMethodPattern = try! NSRegularExpression(
        pattern: #"^\s*((?:@\w+(?:\([^)]*\))?\s+|[a-z]+\s+)*)func\s+(validate[A-Z][A-Za-z0-9_]*)\s*\(\s*_\s+\w+\s*:\s*AutoreleasingUnsafeMutablePointer<AnyObject\?>\s*\)\s*throws\b"#)

    /// Whether the line may declare a `validate<Key>` method in a form the pattern does not
    /// read (split over lines, named by an `@objc` selector): reported rather than missed.
    private static func mayDeclareValidationMethod(_ line: String) -> Bool {
        let code = line.trimmingCharacters(in: .whitespaces)
        if code.hasPrefix("//") { return false }
        if code.contains("@objc(validate") { return true }
        guard code.contains("func validate"), !code.contains("func validateValue(") else { return false }
        return code.contains("AutoreleasingUnsafeMutablePointer") || code.hasSuffix("(")
    }

    /// The method's name, and whether it is private, when `line` declares a `validate<Key>` method.
    private static func validationMethod(declaredIn line: String) -> (name: String, isPrivate: Bool)? {
        let range = NSRange(line.startIndex..., in: line)
        guard let match = validationMethodPattern.firstMatch(in: line, range: range),
              let modifiers = Range(match.range(at: 1), in: line), let name = Range(match.range(at: 2), in: line) else { return nil }
        let words = line[modifiers].split(whereSeparator: \.isWhitespace)
        return (String(line[name]), words.contains("private") || words.contains("fileprivate"))
    }

    /// The line of the opening brace of the class `name` in file `fileIndex`.
    private func classOpenLine(named name: String, in fileIndex: Int) -> Int? {
        guard let scanner = try? SwiftSourceScanner(lines: files[fileIndex].lines) else { return nil }
        return scanner.scopes.first { $0.kind == .type(keyword: "class", name: name) }?.openLine
    }
}
