import Foundation

/// A token of the predicate format language, with where it starts.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)       // a key, keyword or function name (keywords are matched case-insensitively)
        case escapedIdentifier(String) // `#key`: never a keyword
        case string(String)
        case number(Double, isInteger: Bool, integer: Int64)
        case variable(String)         // `$name`
        case substitution(Character)  // `%@`, `%K`, `%d`, …
        case symbol(String)           // operators and punctuation
        case end
    }
    let kind: Kind
    let position: Int
}

/// Splits a format string into tokens.
struct PredicateFormatLexer {
    private let characters: [Character]
    private let format: String
    private var index = 0

    init(_ format: String) {
        self.format = format
        self.characters = Array(format)
    }

    mutating func tokens() throws(PredicateFormatError) -> [PredicateToken] {
        var result: [PredicateToken] = []
        while true {
            skipWhitespace()
            let start = index
            guard index < characters.count else {
                result.append(PredicateToken(kind: .end, position: index))
                return result
            }
            let character = characters[index]
            let kind: PredicateToken.Kind
            if character == "\"" || character == "'" {
                kind = .string(try readString(quote: character))
            } else if character.isNumber || (character == "." && peek(1)?.isNumber == true) {
                kind = try readNumber()
            } else if character == "$" {
                index += 1
                kind = .variable(readWord())
                if case .variable("") = kind { throw error("expected a variable name after $", at: start) }
            } else if character == "#" {
                index += 1
                let name = readWord()
                if name.isEmpty { throw error("expected a key after #", at: start) }
                kind = .escapedIdentifier(name)
            } else if character == "%" {
                guard let next = peek(1) else { throw error("expected a format specifier after %", at: start) }
                index += 2
                switch next {
                case "@", "K", "d", "i", "u", "f", "s", "c", "x", "X", "o", "e", "g", "S", "a", "A":
                    kind = .substitution(next)
                case "l", "q", "h":
                    // %ld, %lld, %lu, %lf, %qd, %hd …: a length modifier, then the conversion.
                    while index < characters.count, "lqh".contains(characters[index]) { index += 1 }
                    guard index < characters.count, "diuxXofaAeg".contains(characters[index]) else {
                        throw error("unknown format specifier", at: start)
                    }
                    kind = .substitution("faAeg".contains(characters[index]) ? "f" : "d")
                    index += 1
                case "%":
                    throw error("unexpected %% outside a string", at: start)
                default:
                    throw error("unknown format specifier %\(next)", at: start)
                }
            } else if character.isLetter || character == "_" || character == "@" {
                kind = .identifier(readIdentifier())
            } else {
                kind = .symbol(try readSymbol())
            }
            result.append(PredicateToken(kind: kind, position: start))
        }
    }

    private func peek(_ offset: Int) -> Character? {
        index + offset < characters.count ? characters[index + offset] : nil
    }

    private mutating func skipWhitespace() {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
    }

    private mutating func readWord() -> String {
        let start = index
        while index < characters.count, characters[index].isLetter || characters[index].isNumber
            || characters[index] == "_" || characters[index] == "@" {
            index += 1
        }
        return String(characters[start..<index])
    }

    /// A key or keyword, or a function's full name with its colons (`add:to:`, `count:`). A
    /// colon followed by `=` is not part of the name.
    private mutating func readIdentifier() -> String {
        var word = readWord()
        while index < characters.count, characters[index] == ":", peek(1) != "=" {
            index += 1
            word += ":" + readWord()
        }
        return word
    }

    private mutating func readString(quote: Character) throws(PredicateFormatError) -> String {
        let start = index
        index += 1
        var text = ""
        while index < characters.count {
            let character = characters[index]
            if character == quote {
                index += 1
                return text
            }
            if character == "\\", let next = peek(1) {
                index += 2
                switch next {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "0": text.append("\0")
                default: text.append(next)
                }
                continue
            }
            text.append(character)
            index += 1
        }
        throw error("unterminated string", at: start)
    }

    private mutating func readNumber() throws(PredicateFormatError) -> PredicateToken.Kind {
        let start = index
        if characters[index] == "0", let prefix = peek(1)?.lowercased(), ["x", "o", "b"].contains(prefix) {
            index += 2
            let radix = prefix == "x" ? 16 : (prefix == "o" ? 8 : 2)
            let digitsStart = index
            while index < characters.count, characters[index].isHexDigit { index += 1 }
            guard let value = Int64(String(characters[digitsStart..<index]), radix: radix) else {
                throw error("invalid number", at: start)
            }
            return .number(Double(value), isInteger: true, integer: value)
        }
        while index < characters.count, characters[index].isNumber { index += 1 }
        var isInteger = true
        if index < characters.count, characters[index] == ".", peek(1)?.isNumber == true {
            isInteger = false
            index += 1
            while index < characters.count, characters[index].isNumber { index += 1 }
        }
        if index < characters.count, characters[index] == "e" || characters[index] == "E" {
            let save = index
            index += 1
            if index < characters.count, characters[index] == "+" || characters[index] == "-" { index += 1 }
            if index < characters.count, characters[index].isNumber {
                isInteger = false
                while index < characters.count, characters[index].isNumber { index += 1 }
            } else {
                index = save
            }
        }
        let text = String(characters[start..<index])
        guard let value = Double(text) else { throw error("invalid number \(text)", at: start) }
        return .number(value, isInteger: isInteger && Int64(text) != nil, integer: Int64(text) ?? 0)
    }

    private mutating func readSymbol() throws(PredicateFormatError) -> String {
        let start = index
        let two = index + 1 < characters.count ? String(characters[index...index + 1]) : ""
        for symbol in ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**"] where two == symbol {
            index += 2
            return symbol
        }
        let one = characters[index]
        guard "=<>!(){}[],.+-*/".contains(one) else { throw error("unexpected character '\(one)'", at: start) }
        index += 1
        return String(one)
    }

    private func error(_ reason: String, at position: Int) -> PredicateFormatError {
        PredicateFormatError(format: format, position: position, reason: reason)
    }
}
