import Foundation

/// Parses the predicate format language (Apple's "Predicate Format String Syntax") into a
/// predicate tree, substituting `%@`, `%K`, `%d`, … from the arguments.
///
/// Predicates: comparisons (`= == != <> < <= =< > >= =>`, `BETWEEN`, `IN`, `CONTAINS`,
/// `BEGINSWITH`, `ENDSWITH`, `LIKE`, `MATCHES`) with `[c]`, `[d]`, `[n]`, `[l]` options,
/// `ANY`/`SOME`/`ALL`/`NONE`, `AND`/`&&`, `OR`/`||`, `NOT`/`!`, parentheses, `TRUEPREDICATE`/
/// `FALSEPREDICATE`.
///
/// Expressions, loosest first: `UNION`/`INTERSECT`/`MINUS`; `+ -`; `* /`; unary `-`; `**`
/// (right-associative); then `expr[index]` (`FIRST`, `LAST`, `SIZE`, a number or a key) and
/// `expr.keyPath`. Terms: key paths (with `#` escapes), `SELF`, `nil`/`NULL`, `TRUE`/`YES`/
/// `FALSE`/`NO`, strings, numbers (decimal, `0x`, `0o`, `0b`), `{…}` collections, `$VARIABLES`,
/// built-in functions (`sum(…)`, `now()`, or by full name: `add:to:(a, b)`),
/// `FUNCTION(receiver, 'selector', …)`, `TERNARY(predicate, a, b)`,
/// `SUBQUERY(collection, $x, predicate)` and `CAST(value, 'Type')`.
///
/// `FIRST`, `LAST` and `SIZE` are keywords only between brackets, `TERNARY` only before `(`,
/// and `UNION`, `INTERSECT` and `MINUS` only after an expression, so keys with those names keep
/// working (Core Data reserves `FIRST`, `LAST` and `SIZE` everywhere). Not supported: `ANYKEY`,
/// assignments (`$x := …`) and `UTI-CONFORMS-TO`/`UTI-EQUALS`.
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
        if type == .between, right.expressionType == .aggregate, right.members.count != 2 {
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

    /// expression := additive ((UNION | INTERSECT | MINUS) additive)*
    private mutating func parseExpression() throws(PredicateFormatError) -> NSExpression {
        try enter()
        defer { depth -= 1 }
        var expression = try parseAdditive()
        var levels = 0
        defer { depth -= levels }
        while let word = currentWord, ["UNION", "INTERSECT", "MINUS"].contains(word.uppercased()) {
            advance()
            try enter()
            levels += 1
            let right = try parseAdditive()
            switch word.uppercased() {
            case "UNION": expression = NSExpression(forUnionSet: expression, with: right)
            case "INTERSECT": expression = NSExpression(forIntersectSet: expression, with: right)
            default: expression = NSExpression(forMinusSet: expression, with: right)
            }
        }
        return expression
    }

    /// additive := multiplicative (('+' | '-') multiplicative)*
    private mutating func parseAdditive() throws(PredicateFormatError) -> NSExpression {
        var expression = try parseMultiplicative()
        var levels = 0
        defer { depth -= levels }
        while isSymbol("+") || isSymbol("-") {
            let function = isSymbol("+") ? "add:to:" : "from:subtract:"
            advance()
            try enter()
            levels += 1
            expression = NSExpression(forFunction: function, arguments: [expression, try parseMultiplicative()])
        }
        return expression
    }

    /// multiplicative := unary (('*' | '/') unary)*
    private mutating func parseMultiplicative() throws(PredicateFormatError) -> NSExpression {
        var expression = try parseUnary()
        var levels = 0
        defer { depth -= levels }
        while isSymbol("*") || isSymbol("/") {
            let function = isSymbol("*") ? "multiply:by:" : "divide:by:"
            advance()
            try enter()
            levels += 1
            expression = NSExpression(forFunction: function, arguments: [expression, try parseUnary()])
        }
        return expression
    }

    /// unary := '-' unary | power. The negation of a number is a negative constant; of anything
    /// else, `0 - operand`.
    private mutating func parseUnary() throws(PredicateFormatError) -> NSExpression {
        guard isSymbol("-") else { return try parsePower() }
        advance()
        try enter()
        defer { depth -= 1 }
        let operand = try parseUnary()
        if operand.expressionType == .constantValue, !(operand.constantValue is Bool),
           let negated = PredicateNumber(operand.constantValue).flatMap({ PredicateNumber.integer(0).combined(with: $0, "from:subtract:") }) {
            return NSExpression(forConstantValue: negated.value)
        }
        return NSExpression(forFunction: "from:subtract:", arguments: [NSExpression(forConstantValue: 0), operand])
    }

    /// power := postfix ('**' unary)?, right-associative.
    private mutating func parsePower() throws(PredicateFormatError) -> NSExpression {
        let base = try parsePostfix()
        guard isSymbol("**") else { return base }
        advance()
        try enter()
        defer { depth -= 1 }
        return NSExpression(forFunction: "raise:toPower:", arguments: [base, try parseUnary()])
    }

    /// postfix := term ('[' index ']' | '.' keyPath)*
    private mutating func parsePostfix() throws(PredicateFormatError) -> NSExpression {
        var expression = try parseTerm()
        var levels = 0
        defer { depth -= levels }
        while true {
            if isSymbol("[") {
                advance()
                try enter()
                levels += 1
                let index = try parseIndex()
                guard isSymbol("]") else { throw expected("]") }
                advance()
                expression = NSExpression(forFunction: "objectFrom:withIndex:", arguments: [expression, index])
            } else if isSymbol(".") {
                let path = try readKeyPathContinuation()
                switch expression.expressionType {
                case .keyPath: expression = NSExpression(forKeyPath: expression.keyPath + "." + path)
                case .evaluatedObject: expression = NSExpression(forKeyPath: path)
                default:
                    try enter()
                    levels += 1
                    expression = NSExpression(forFunction: expression, selectorName: "valueForKeyPath:",
                                              arguments: [NSExpression(forKeyPath: path)])
                }
            } else {
                return expression
            }
        }
    }

    /// What goes between `[` and `]`: `FIRST`, `LAST`, `SIZE` or an expression.
    private mutating func parseIndex() throws(PredicateFormatError) -> NSExpression {
        if let word = currentWord, let symbol = PredicateIndexSymbol(rawValue: word.uppercased()),
           tokens[position + 1].kind == .symbol("]") {
            advance()
            return NSExpression(forConstantValue: symbol)
        }
        return try parseExpression()
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
            let followedByParenthesis = tokens[position + 1].kind == .symbol("(")
            switch word.uppercased() {
            case "SELF": advance(); return NSExpression.expressionForEvaluatedObject()
            case "NIL", "NULL": advance(); return NSExpression(forConstantValue: nil)
            case "TRUE", "YES": advance(); return NSExpression(forConstantValue: true)
            case "FALSE", "NO": advance(); return NSExpression(forConstantValue: false)
            case "AND", "OR", "NOT", "BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES",
                 "ANY", "ALL", "NONE", "SOME", "TRUEPREDICATE", "FALSEPREDICATE":
                throw expected("an expression (escape a key named like a keyword with #)")
            case "CAST": advance(); return try parseCast()
            case "SUBQUERY": advance(); return try parseSubquery()
            case "FUNCTION": advance(); return try parseMethodCall()
            case "TERNARY" where followedByParenthesis: advance(); return try parseTernary()
            case "FETCH" where followedByParenthesis: advance(); return try parseFetch()
            default:
                advance()
                if followedByParenthesis || word.contains(":") { return try parseFunctionCall(word, at: token.position) }
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
            let inner = try parseExpression()
            guard isSymbol(")") else { throw expected(")") }
            advance()
            return inner
        default:
            throw expected("an expression")
        }
    }

    /// `name(arguments…)`: a built-in function (`sum(scores)` is `sum:`, `now()` is `now`;
    /// the full name `add:to:(a, b)` is accepted too, as functions print).
    private mutating func parseFunctionCall(_ name: String, at start: Int) throws(PredicateFormatError) -> NSExpression {
        guard isSymbol("(") else { throw expected("( after the function name \(name)") }
        let arguments = try parseArgumentList()
        guard let function = PredicateFunction.named(name, argumentCount: arguments.count) else {
            throw PredicateFormatError(format: format, position: start,
                                       reason: "unknown function \(name) with \(arguments.count) argument\(arguments.count == 1 ? "" : "s")")
        }
        return NSExpression(forFunction: function, arguments: arguments)
    }

    /// `(expression, expression, …)`, the opening parenthesis current.
    private mutating func parseArgumentList() throws(PredicateFormatError) -> [NSExpression] {
        advance()
        try enter()
        defer { depth -= 1 }
        var arguments: [NSExpression] = []
        if !isSymbol(")") {
            arguments.append(try parseExpression())
            while isSymbol(",") {
                advance()
                arguments.append(try parseExpression())
            }
        }
        guard isSymbol(")") else { throw expected(", or )") }
        advance()
        return arguments
    }

    /// `FUNCTION(receiver, 'selector', arguments…)`: a method called on the receiver.
    private mutating func parseMethodCall() throws(PredicateFormatError) -> NSExpression {
        guard isSymbol("(") else { throw expected("( after FUNCTION") }
        let start = current.position
        let parts = try parseArgumentList()
        guard parts.count >= 2, let selector = parts[1].constantValue as? String, parts[1].expressionType == .constantValue else {
            throw PredicateFormatError(format: format, position: start, reason: "FUNCTION needs a receiver and a selector name string")
        }
        return NSExpression(forFunction: parts[0], selectorName: selector, arguments: Array(parts.dropFirst(2)))
    }

    /// `TERNARY(predicate, trueExpression, falseExpression)`.
    private mutating func parseTernary() throws(PredicateFormatError) -> NSExpression {
        advance()  // (
        try enter()
        defer { depth -= 1 }
        let condition = try parseOr()
        guard isSymbol(",") else { throw expected(", after the TERNARY condition") }
        advance()
        let whenTrue = try parseExpression()
        guard isSymbol(",") else { throw expected(", before the TERNARY false expression") }
        advance()
        let whenFalse = try parseExpression()
        guard isSymbol(")") else { throw expected(")") }
        advance()
        return NSExpression(forConditional: condition, trueExpression: whenTrue, falseExpression: whenFalse)
    }

    /// `FETCH(request, context, countOnly)`: the count-only flag a literal `YES` or `NO`.
    private mutating func parseFetch() throws(PredicateFormatError) -> NSExpression {
        advance()  // (
        try enter()
        defer { depth -= 1 }
        let request = try parseExpression()
        guard isSymbol(",") else { throw expected(", after the FETCH request") }
        advance()
        let context = try parseExpression()
        guard isSymbol(",") else { throw expected(", after the FETCH context") }
        advance()
        guard case .identifier(let flag) = current.kind, ["YES", "NO", "TRUE", "FALSE"].contains(flag.uppercased()) else {
            throw expected("YES or NO (whether the FETCH only counts)")
        }
        advance()
        guard isSymbol(")") else { throw expected(")") }
        advance()
        return NSFetchRequestExpression.expression(forFetch: request, context: context, countOnly: ["YES", "TRUE"].contains(flag.uppercased()))
    }

    /// `SUBQUERY(collection, $variable, predicate)`.
    private mutating func parseSubquery() throws(PredicateFormatError) -> NSExpression {
        guard isSymbol("(") else { throw expected("( after SUBQUERY") }
        advance()
        try enter()
        defer { depth -= 1 }
        let collection = try parseExpression()
        guard isSymbol(",") else { throw expected(", after the SUBQUERY collection") }
        advance()
        guard case .variable(let variable) = current.kind else { throw expected("the SUBQUERY's iterator variable ($name)") }
        advance()
        guard isSymbol(",") else { throw expected(", after the SUBQUERY variable") }
        advance()
        let predicate = try parseOr()
        guard isSymbol(")") else { throw expected(")") }
        advance()
        return NSExpression(forSubquery: collection, usingIteratorVariable: variable, predicate: predicate)
    }

    /// `CAST(value, "Type")`. A number cast to `NSDate` (the form dates print in) becomes the
    /// date constant; other casts stay `castObject:toType:` functions.
    private mutating func parseCast() throws(PredicateFormatError) -> NSExpression {
        guard isSymbol("(") else { throw expected("( after CAST") }
        let start = current.position
        let parts = try parseArgumentList()
        guard parts.count == 2, parts[1].expressionType == .constantValue, let type = parts[1].constantValue as? String else {
            throw PredicateFormatError(format: format, position: start, reason: "CAST needs a value and a type name string")
        }
        if type == "NSDate", parts[0].expressionType == .constantValue, let seconds = ValueComparison.number(parts[0].constantValue)?.double {
            return NSExpression(forConstantValue: Date(timeIntervalSinceReferenceDate: seconds))
        }
        return NSExpression(forFunction: "castObject:toType:", arguments: parts)
    }

    private mutating func continueKeyPath(_ first: String) throws(PredicateFormatError) -> String {
        guard isSymbol(".") else { return first }
        return first + "." + (try readKeyPathContinuation())
    }

    /// `.key.key…` (keys, `#`-escaped keys or `%K`): the keys joined with dots.
    private mutating func readKeyPathContinuation() throws(PredicateFormatError) -> String {
        var keys: [String] = []
        while isSymbol(".") {
            advance()
            switch current.kind {
            case .identifier(let name), .escapedIdentifier(let name):
                keys.append(name)
                advance()
            case .substitution("K"):
                let position = current.position
                advance()
                keys.append(try keyArgument(at: position))
            default:
                throw expected("a key after .")
            }
        }
        return keys.joined(separator: ".")
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

    /// The current token's word when it is an identifier (a key, keyword or function name).
    private var currentWord: String? {
        if case .identifier(let word) = current.kind { return word }
        return nil
    }

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
