import Foundation
import OpenCoreData

/// WA (issue "Predicates and fetching"): the sum of `price` grouped by `flag`, fetched
/// `repeats` times, through a dictionary fetch with an `NSExpressionDescription` against the same
/// `GROUP BY` in raw SQL.
enum AggregateWorkload {
    static let repeats = 20

    /// The framework side.
    static func framework(directory: URL, n: Int) throws -> Double {
        try FrameworkWorkloads.fillItemStore(in: directory, n: n)
        let stack = try BenchStack(directory: directory, model: BenchModel.items())
        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "price")])
        total.expressionResultType = .doubleAttributeType
        var sums: [Double] = []
        let seconds = try Stopwatch.time {
            for _ in 0..<repeats {
                let request = NSFetchRequest<NSDictionary>(entityName: "Item")
                request.resultType = .dictionaryResultType
                request.propertiesToFetch = ["flag", total]
                request.propertiesToGroupBy = ["flag"]
                let rows = try stack.context.fetch(request)
                sums = rows.compactMap { $0["total"] as? Double }
            }
        }
        try check(sums, n: n)
        return seconds
    }

    /// The raw side.
    static func raw(directory: URL, n: Int) throws -> Double {
        try RawWorkloads.fillItemStore(in: directory, n: n)
        let db = try RawDatabase.open(in: directory)
        var sums: [Double] = []
        let seconds = try Stopwatch.time {
            for _ in 0..<repeats {
                let select = try db.prepare("SELECT flag, TOTAL(price) FROM item GROUP BY flag")
                sums = []
                while try select.step() { sums.append(select.double(1)) }
            }
        }
        try check(sums, n: n)
        return seconds
    }

    /// Both sides must find the same two sums: every item's price, split by flag.
    private static func check(_ sums: [Double], n: Int) throws {
        let expected = (0..<n).reduce(0.0) { $0 + BenchData.price($1) }
        guard sums.count == 2, abs(sums.reduce(0, +) - expected) < 1e-6 * max(1, expected) else {
            throw BenchCheckError(workload: "WA", detail: "sums \(sums), expected two summing to \(expected)")
        }
        BenchSink.consume(Int(sums.reduce(0, +)))
    }
}
