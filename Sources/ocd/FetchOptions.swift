import Foundation

/// The command line of `ocd fetch STORE --entity NAME [--where FORMAT [ARG …]] [--sort KEY[:desc] …]
/// [--limit N] [--offset N] [--model PATH] [--json | --csv]`.
struct FetchOptions {
    enum Format { case table, json, csv }

    var storePath: String?
    var entityName: String?
    var whereFormat: String?
    /// The `--where` format's arguments, as JSON values (`30`, `"tea"`, `[1, 2]`, `null`).
    var whereArguments: [Any] = []
    var sortKeys: [(key: String, ascending: Bool)] = []
    var limit = 0
    var offset = 0
    var modelPath: String?
    var format = Format.table

    init(_ arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        var formatGiven = false
        func value(for option: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst() else { throw UsageError("\(option) needs a value") }
            return value
        }
        func count(for option: String) throws(UsageError) -> Int {
            let text = try value(for: option)
            guard let number = Int(text), number >= 0 else { throw UsageError("\(option) needs a whole number of 0 or more, not '\(text)'") }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--entity": entityName = try value(for: argument)
            case "--model": modelPath = try value(for: argument)
            case "--limit": limit = try count(for: argument)
            case "--offset": offset = try count(for: argument)
            case "--sort": sortKeys.append(try Self.sortKey(try value(for: argument)))
            case "--where":
                guard whereFormat == nil else { throw UsageError("--where is given twice") }
                whereFormat = try value(for: argument)
                // The format's arguments follow it, up to the next option.
                while let next = remaining.first, !next.hasPrefix("--") {
                    remaining.removeFirst()
                    whereArguments.append(try Self.jsonValue(next, position: whereArguments.count + 1))
                }
            case "--json", "--csv":
                guard !formatGiven else { throw UsageError("--json and --csv exclude each other") }
                formatGiven = true
                format = argument == "--json" ? .json : .csv
            default:
                if argument.hasPrefix("-") { throw UsageError("unknown option '\(argument)'") }
                guard storePath == nil else { throw UsageError("unexpected argument '\(argument)'") }
                storePath = argument
            }
        }
        guard storePath != nil else { throw UsageError("missing the store path") }
        guard entityName != nil else { throw UsageError("fetch needs --entity NAME") }
    }

    /// `KEY`, `KEY:asc` or `KEY:desc`.
    private static func sortKey(_ text: String) throws(UsageError) -> (key: String, ascending: Bool) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let key = parts.first, !key.isEmpty else { throw UsageError("--sort needs a key, as KEY or KEY:desc") }
        switch parts.count == 2 ? parts[1].lowercased() : "asc" {
        case "asc": return (String(key), true)
        case "desc": return (String(key), false)
        default: throw UsageError("--sort \(text): the order after ':' is asc or desc")
        }
    }

    private static func jsonValue(_ text: String, position: Int) throws(UsageError) -> Any {
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) else {
            throw UsageError("--where argument \(position) is not a JSON value: \(text) (write strings in double quotes, for example '\"tea\"')")
        }
        return value
    }
}
