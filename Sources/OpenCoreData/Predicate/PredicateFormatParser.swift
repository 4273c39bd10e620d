import Foundation

/// Parses the predicate format language (Apple's "Predicate Format String Syntax") into a
/// predicate tree, substituting `%@`, `%K`, `%d`, … from the arguments.
///
/// Supported: comparisons (`= == != <> < <= =< > >= =>`, `BETWEEN`, `IN`, `CONTAINS`,
/// `BEGINSWITH`, `ENDSWITH`, `LIKE`, `MATCHES`) with `[c]`, `[d]`, `[n]` options, `ANY`/`SOME`/
/// `ALL`/`NONE`, `AND`/`&&`, `OR`/`||`, `NOT`/`!`, parentheses, `TRUEPREDICATE`/
/// `FALSEPREDICATE`, key paths (with `#` escapes), `SELF`, `nil`/`NULL`, `TRUE`/`YES`/`FALSE`/
/// `NO`, strings, numbers (decimal, `0x`, `0o`, `0b`), `{…}` collections and `$VARIABLES`.
/// Not yet: arithmetic, `FUNCTION(…)`, `SUBQUERY`, collection operators such as `@count` in SQL,
/// array indexing and `CAST`.
struct PredicateFormatParser {
    private let format: String
    private let tokens: [PredicateToken]
    private var position = 0
    private let arguments: [Any?]
    private var nextArgument = 0
    /// How deeply NOTs, parentheses and collections nest here; bounded so that no format can
    /// exhaust the stack.
    private var depth = 0
    private static let maximumDepth = 500

    private mutating func enter() throws(PredicateFormatError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw PredicateFormatError(format: format, position: current.position, reason: "the format is nested too deeply")
        }
    }

    init(format: String, arguments: [Any?]) throws(PredicateFormatError) {
        var lexer = PredicateFormatLexer(format)
        self.format = format
        self.tokens = try lexer.tokens()
        self.arguments = arguments
    }

    mutating func parse() throws(PredicateFormatError) -> NSPredicate {
        let predicate = try parseOr()
        guard case .end = current.kind else { throw expected("AND, OR or the end of the format") }
        return predicate
    }

    /// Parses the whole format as one expression (a derivation expression, for example).
    mutating func parseStandaloneExpression() throws(PredicateFormatError) -> NSExpression {
        let expression = try parseExpression()
        guard case .end = current.kind else { throw expected("the end of the expression") }
        return expression
    }

    // MARK: Predicates

    private mutating func parseOr() throws(PredicateFormatError) -> NSPredicate {
        var parts = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : NSCompoundPredicate(orPredicateWithSubpredicates: parts)
    }

    private mutating func parseAnd() throws(PredicateFormatError) -> NSPredicate {
        var parts = [try parseNot()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            parts.append(try parseNot())
        }
        return parts.count == 1 ? parts[0] : NSCompoundPredicate(andPredicateWithSubpredicates: parts)
    }

    private mutating func parseNot() throws(PredicateFormatError) -> NSPredicate {
        if isKeyword("NOT") || isSymbol("!") {
            advance()
            try enter()
            defer { depth -= 1 }
            return NSCompoundPredicate(notPredicateWithSubpredicate: try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(PredicateFormatError) -> NSPredicate {
        if isKeyword("TRUEPREDICATE") { advance(); return NSPredicate(value: true) }
        if isKeyword("FALSEPREDICATE") { advance(); return NSPredicate(value: false) }
        if isSymbol("(") {
            try enter()
            defer { depth -= 1 }
            // A parenthesized predicate, unless what follows the group is an operator (then the
            // parentheses held an expression).
            let start = position
            let argumentStart = nextArgument
            advance()
            var groupError: PredicateFormatError?
            do {
                let inner = try parseOr()
                if isSymbol(")") {
                    advance()
                    if comparisonOperatorAhead() == nil { return inner }
                } else {
                    groupError = expected(")")
                }
            } catch {
                groupError = error
            }
            position = start
            nextArgument = argumentStart
            do {
                return try parseComparison()
            } catch {
                // Report whichever reading got further into the format.
                if let groupError, groupError.position > error.position { throw groupError }
                throw error
            }
        }
        return try parseComparison()
    }

    private mutating func parseComparison() throws(PredicateFormatError) -> NSPredicate {
        var modifier = NSComparisonPredicate.Modifier.direct
        var negate = false
        if isKeyword("ANY") || isKeyword("SOME") {
            modifier = .any
            advance()
        } else if isKeyword("ALL") {
            modifier = .all
            advance()
        } else if isKeyword("NONE") {
            modifier = .any
            negate = true
            advance()
        }
        let left = try parseExpression()
        guard let type = comparisonOperatorAhead() else { throw expected("a comparison operator") }
        advance()
        let options = try parseOptions()
        let right = try parseExpression()
        if type == .between, right.expressionType == .aggregate, right.collection.count != 2 {
            throw PredicateFormatError(format: format, position: tokens[position - 1].position,
                                       reason: "BETWEEN needs a collection of exactly two bounds")
        }
        let comparison = NSComparisonPredicate(leftExpression: left, rightExpression: right, modifier: modifier,
                                               type: type, options: options)
        return negate ? NSCompoundPredicate(notPredicateWithSubpredicate: comparison) : comparison
    }

    private func comparisonOperatorAhead() -> NSComparisonPredicate.Operator? {
        switch current.kind {
        case .symbol(let symbol):
            switch symbol {
            case "=", "==": return .equalTo
            case "!=", "<>": return .notEqualTo
            case "<": return .lessThan
            case "<=", "=<": return .lessThanOrEqualTo
            case ">": return .greaterThan
            case ">=", "=>": return .greaterThanOrEqualTo
            default: return nil
            }
        case .identifier(let word):
            switch word.uppercased() {
            case "BETWEEN": return .between
            case "IN": return .in
            case "CONTAINS": return .contains
            case "BEGINSWITH": return .beginsWith
            case "ENDSWITH": return .endsWith
            case "LIKE": return .like
            case "MATCHES": return .matches
            default: return nil
            }
        default:
            return nil
        }
    }

    private mutating func parseOptions() throws(PredicateFormatError) -> NSComparisonPredicate.Options {
        guard isSymbol("[") else { return [] }
        advance()
        guard case .identifier(let letters) = current.kind else { throw expected("comparison options such as c, d or cd") }
        var options: NSComparisonPredicate.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": break  // locale-sensitive: the comparisons already use the current rules
            default: throw expected("comparison options c, d, n or l")
            }
        }
        advance()
        guard isSymbol("]") else { throw expected("]") }
        advance()
        return options
    }

    // MARK: Expressions

    private mutating func parseExpression() throws(PredicateFormatError) -> NSExpression {
        let expression = try parseTerm()
        if isSymbol("+") || isSymbol("-") || isSymbol("*") || isSymbol("/") {
            throw PredicateFormatError(format: format, position: current.position, reason: "arithmetic is not supported yet")
        }
        return expression
    }

    private mutating func parseTerm() throws(PredicateFormatError) -> NSExpression {
        let token = current
        switch token.kind {
        case .string(let text):
            advance()
            return NSExpression(forConstantValue: text)
        case .number(let value, let isInteger, let integer):
            advance()
            return NSExpression(forConstantValue: isInteger ? Int(integer) as Any : value as Any)
        case .variable(let name):
            advance()
            return NSExpression(forVariable: name)
        case .substitution(let kind):
            advance()
            return try substitute(kind, at: token.position)
        case .escapedIdentifier(let name):
            advance()
            return NSExpression(forKeyPath: try continueKeyPath(name))
        case .identifier(let word):
            switch word.uppercased() {
            case "SELF":
                advance()
                // `SELF.key` is the key path `key` of the evaluated object.
                if isSymbol(".") {
                    let path = try continueKeyPath("SELF")
                    return NSExpression(forKeyPath: String(path.dropFirst("SELF.".count)))
                }
                return NSExpression.expressionForEvaluatedObject()
            case "NIL", "NULL": advance(); return NSExpression(forConstantValue: nil)
            case "TRUE", "YES": advance(); return NSExpression(forConstantValue: true)
            case "FALSE", "NO": advance(); return NSExpression(forConstantValue: false)
            case "AND", "OR", "NOT", "BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES",
                 "ANY", "ALL", "NONE", "SOME", "TRUEPREDICATE", "FALSEPREDICATE":
                throw expected("an expression (escape a key named like a keyword with #)")
            case "CAST":
                advance()
                return try parseCast(at: token.position)
            case "SUBQUERY", "FUNCTION":
                throw PredicateFormatError(format: format, position: token.position, reason: "\(word) is not supported yet")
            default:
                advance()
                return NSExpression(forKeyPath: try continueKeyPath(word))
            }
        case .symbol("{"):
            advance()
            try enter()
            defer { depth -= 1 }
            var elements: [NSExpression] = []
            if !isSymbol("}") {
                elements.append(try parseExpression())
                while isSymbol(",") {
                    advance()
                    elements.append(try parseExpression())
                }
            }
            guard isSymbol("}") else { throw expected(", or }") }
            advance()
            return NSExpression(forAggregate: elements)
        case .symbol("("):
            advance()
            try enter()
            defer { depth -= 1 }
            let inner = try parseExpression()
            guard isSymbol(")") else { throw expected(")") }
            advance()
            return inner
        case .symbol("-"):
            if case .number(let value, let isInteger, let integer) = tokens[position + 1].kind {
                advance(); advance()
                return NSExpression(forConstantValue: isInteger ? -Int(integer) as Any : -value as Any)
            }
            throw expected("an expression")
        default:
            throw expected("an expression")
        }
    }

    /// `CAST(<seconds since 2001>, "NSDate")`, the form dates print in.
    private mutating func parseCast(at position: Int) throws(PredicateFormatError) -> NSExpression {
        guard isSymbol("(") else { throw expected("( after CAST") }
        advance()
        let value = try parseExpression()
        guard isSymbol(",") else { throw expected(", in CAST") }
        advance()
        guard case .string(let type) = current.kind else { throw expected("a type name string in CAST") }
        advance()
        guard isSymbol(")") else { throw expected(")") }
        advance()
        guard type == "NSDate", let seconds = ValueComparison.number(value.constantValue)?.double else {
            throw PredicateFormatError(format: format, position: position, reason: "only CAST(<number>, \"NSDate\") is supported yet")
        }
        return NSExpression(forConstantValue: Date(timeIntervalSinceReferenceDate: seconds))
    }

    private mutating func continueKeyPath(_ first: String) throws(PredicateFormatError) -> String {
        var path = first
        while isSymbol(".") {
            advance()
            switch current.kind {
            case .identifier(let name), .escapedIdentifier(let name):
                path += "." + name
                advance()
            case .substitution("K"):
                let position = current.position
                advance()
                path += "." + (try keyArgument(at: position))
            default:
                throw expected("a key after .")
            }
        }
        return path
    }

    private mutating func keyArgument(at position: Int) throws(PredicateFormatError) -> String {
        guard nextArgument < arguments.count else {
            throw PredicateFormatError(format: format, position: position, reason: "missing argument for %K")
        }
        let argument = arguments[nextArgument]
        nextArgument += 1
        guard let key = argument as? String ?? (argument as? NSString).map({ $0 as String }), !key.isEmpty else {
            throw PredicateFormatError(format: format, position: position, reason: "%K needs a key path string, got \(argument ?? "nil")")
        }
        return key
    }

    private mutating func substitute(_ kind: Character, at position: Int) throws(PredicateFormatError) -> NSExpression {
        guard nextArgument < arguments.count else {
            throw PredicateFormatError(format: format, position: position, reason: "missing argument for %\(kind)")
        }
        let argument = Self.unwrapped(arguments[nextArgument])
        nextArgument += 1
        switch kind {
        case "K":
            nextArgument -= 1
            return NSExpression(forKeyPath: try continueKeyPath(try keyArgument(at: position)))
        case "d", "i", "u", "x", "X", "o", "c":
            guard let number = ValueComparison.number(argument) else {
                throw PredicateFormatError(format: format, position: position, reason: "%\(kind) needs an integer, got \(argument ?? "nil")")
            }
            switch number {
            case .integer(let value): return NSExpression(forConstantValue: Int(value))
            case .double(let value):
                guard value.isFinite, let integer = Int(exactly: value.rounded(.towardZero)) else {
                    throw PredicateFormatError(format: format, position: position, reason: "%\(kind) needs an integer, got \(value)")
                }
                return NSExpression(forConstantValue: integer)
            }
        case "f", "e", "g", "a", "A":
            guard let number = ValueComparison.number(argument) else {
                throw PredicateFormatError(format: format, position: position, reason: "%\(kind) needs a number, got \(argument ?? "nil")")
            }
            return NSExpression(forConstantValue: number.double)
        case "s", "S":
            return NSExpression(forConstantValue: argument.map { "\($0)" })
        default:  // %@
            if let set = argument as? Set<NSManagedObject> { return NSExpression(forConstantValue: Array(set)) }
            return NSExpression(forConstantValue: argument is NSNull ? nil : argument)
        }
    }

    /// An argument with any optional hidden inside `Any` unwrapped (`nil` for an empty one).
    private static func unwrapped(_ argument: Any?) -> Any? {
        guard let argument else { return nil }
        let mirror = Mirror(reflecting: argument)
        guard mirror.displayStyle == .optional else { return argument }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[position] }

    private mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    private func isKeyword(_ keyword: String) -> Bool {
        if case .identifier(let word) = current.kind { return word.uppercased() == keyword }
        return false
    }

    private func isSymbol(_ symbol: String) -> Bool {
        current.kind == .symbol(symbol)
    }

    private func expected(_ what: String) -> PredicateFormatError {
        let found: String
        switch current.kind {
        case .end: found = "the end of the format"
        case .identifier(let word), .escapedIdentifier(let word): found = "'\(word)'"
        case .string(let text): found = "the string \"\(text)\""
        case .number(let value, let isInteger, let integer): found = isInteger ? "\(integer)" : "\(value)"
        case .variable(let name): found = "$\(name)"
        case .substitution(let kind): found = "%\(kind)"
        case .symbol(let symbol): found = "'\(symbol)'"
        }
        return PredicateFormatError(format: format, position: current.position, reason: "expected \(what), found \(found)")
    }
}
