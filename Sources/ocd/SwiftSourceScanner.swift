/// Just enough of Swift's lexical structure for `ocd port`: where braces open and close (outside
/// strings and comments), and which declaration each brace belongs to. Not a parser: a file whose
/// braces do not balance is reported, not rewritten.
struct SwiftSourceScanner {
    /// A braced body: a type, an extension, or anything else (a function, a closure, …).
    struct Scope {
        enum Kind: Equatable { case type(keyword: String, name: String), `extension`(name: String), other }
        let kind: Kind
        /// The lines (0-based) of its opening and closing braces.
        let openLine: Int
        var closeLine: Int
    }

    struct Failure: Error {
        let line: Int
        let reason: String
    }

    private(set) var scopes: [Scope] = []
    /// For each line: the brace depth at its start, and the innermost scope open at its start.
    private(set) var depthAtStart: [Int] = []
    private(set) var scopeAtStart: [Int?] = []

    init(lines: [String]) throws(Failure) {
        var stack: [Int] = []
        var header = ""
        var inBlockComment = 0
        var inString: (multiline: Bool, raw: Int)?
        for (number, line) in lines.enumerated() {
            depthAtStart.append(stack.count)
            scopeAtStart.append(stack.last)
            let characters = Array(line)
            var index = 0
            func next(_ offset: Int = 1) -> Character? {
                index + offset < characters.count ? characters[index + offset] : nil
            }
            while index < characters.count {
                let character = characters[index]
                if inBlockComment > 0 {
                    if character == "*" && next() == "/" { inBlockComment -= 1; index += 1 }
                    else if character == "/" && next() == "*" { inBlockComment += 1; index += 1 }
                } else if let string = inString {
                    if character == "\\" && string.raw == 0 { index += 1 }
                    else if character == "\"" {
                        let quotes = string.multiline ? 3 : 1
                        let closes = (0..<quotes).allSatisfy { index + $0 < characters.count && characters[index + $0] == "\"" }
                        let hashes = (0..<string.raw).allSatisfy { index + quotes + $0 < characters.count && characters[index + quotes + $0] == "#" }
                        if closes && hashes { inString = nil; index += quotes - 1 + string.raw }
                    }
                } else if character == "/" && next() == "/" {
                    break
                } else if character == "/" && next() == "*" {
                    inBlockComment = 1
                    index += 1
                } else if character == "#" || character == "\"" {
                    var hashes = 0
                    while index + hashes < characters.count && characters[index + hashes] == "#" { hashes += 1 }
                    if index + hashes < characters.count && characters[index + hashes] == "\"" {
                        let multiline = next(hashes + 1) == "\"" && next(hashes + 2) == "\""
                        inString = (multiline, hashes)
                        index += hashes + (multiline ? 2 : 0)
                    } else {
                        header.append(character)
                    }
                } else if character == "{" {
                    scopes.append(Scope(kind: Self.kind(of: header), openLine: number, closeLine: -1))
                    stack.append(scopes.count - 1)
                    header = ""
                } else if character == "}" {
                    guard let open = stack.popLast() else { throw Failure(line: number, reason: "a '}' closes nothing") }
                    scopes[open].closeLine = number
                    header = ""
                } else if character == ";" {
                    header = ""
                } else {
                    header.append(character)
                }
                index += 1
            }
            if inString?.multiline == false { inString = nil }   // an unterminated one-line string
            header.append(" ")
        }
        if let open = stack.last { throw Failure(line: scopes[open].openLine, reason: "this '{' is never closed") }
    }

    /// The declaration a brace opens, from the text before it.
    private static func kind(of header: String) -> Scope.Kind {
        let words = header.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" || $0 == "<" || $0 == "," })
            .map(String.init)
        for (index, word) in words.enumerated() where index + 1 < words.count {
            if word == "extension" { return .extension(name: words[index + 1]) }
            if ["class", "struct", "enum", "actor", "protocol"].contains(word) && !["func", "var", "let"].contains(words[index + 1]) {
                return .type(keyword: word, name: words[index + 1])
            }
        }
        return .other
    }

    /// The innermost type or extension scope open at the start of `line`.
    func enclosingDeclaration(ofLine line: Int) -> Scope? {
        var current = scopeAtStart[line]
        while let index = current {
            if scopes[index].kind != .other { return scopes[index] }
            current = parent(of: index)
        }
        return nil
    }

    private func parent(of scope: Int) -> Int? {
        let target = scopes[scope]
        var best: Int?
        for (index, candidate) in scopes.enumerated() where index < scope {
            if candidate.openLine <= target.openLine && candidate.closeLine >= target.closeLine { best = index }
        }
        return best
    }

    /// The last line of the declaration that starts on `line`: where the brace depth returns to
    /// the line's starting depth (the line itself for a declaration without a body).
    func lastLine(ofDeclarationAt line: Int) -> Int {
        guard let scope = scopes.firstIndex(where: { $0.openLine >= line && depthAtStart[$0.openLine] == depthAtStart[line] }),
              scopes[scope].openLine <= line + 3 else { return line }
        return scopes[scope].closeLine
    }
}
