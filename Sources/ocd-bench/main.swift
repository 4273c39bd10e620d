import Foundation

// ocd-bench: runs the workloads of WORKLOAD.md through the framework and through raw SQLite,
// and reports the median time of each side and their ratio (framework / raw).
//
//     ocd-bench [--json] [--runs N] [--n N] [W1 W2 …]
//
// Results go to standard output; progress and errors go to standard error.

/// The command-line options.
struct Options {
    var json = false
    var runs = 5
    var n = 200_000
    /// Every workload; the PostgreSQL ones when there is a server (`OCD_POSTGRES_URL`).
    var workloads: [Workload] = Workload.all + (BenchPostgres.baseURL == nil ? [] : Workload.postgres)

    static let usage = """
        usage: ocd-bench [--json] [--runs N] [--n N] [W1 W2 …]
          --json     print one JSON object instead of one row per workload
          --runs N   runs per workload; the median is reported (default 5)
          --n N      number of Item rows for W1–W5 (default 200000; W6 has a fixed size)
          W1 … W12   the workloads to run (default: all of them); W3f is W3 with its predicate
                     written as a format string; WA is the sum of price grouped by flag (20 times);
                     W7 (memory) reports peak resident memory in MiB,
                     each side measured in a child process, over a fixed 1,000,000 items;
                     W8 opens a 1,000,000-item store that gains an optional attribute
                     (lightweight migration), W8b one whose attribute was renamed (a table
                     rebuild), W8c migrates 100,000 items through a mapping model into a
                     new store (NSMigrationManager), W8r opens W8's store again once migrated;
                     W9 and W10 compare the framework with itself: a child context's save of
                     10,000 new items into its parent against the same save to the store (W9),
                     merging another context's save of 10,000 updated items that a context
                     holds against fetching them again (W10); W11 is W1 with an undo manager
                     recording every change, against W1 without one; W1h and W4h are W1 and
                     W4 on a store recording persistent history, against W1 and W4 without;
                     W1b saves the N items into a binary store, against W1; W2b opens a
                     binary store of N items and fetches them all, against W2's fetch;
                     W12 is one change round of a fetched results controller over 100,000
                     items (the mean of 500), against its performFetch(); W13 reads the
                     history of a save of 10,000 updates after N earlier changes, against
                     the same read with no history before it; WX saves 500 values of
                     256 KiB in a binary attribute that allows external storage (a file
                     each), WXf fetches and reads them, against a raw BLOB column; WXn
                     fetches them and reads only their names, against a raw SELECT of the
                     names; W1p–W6p are W1–W6 through the PostgreSQL store against libpq
                     called directly (statements prepared once, binary format, writes
                     pipelined), on the server OCD_POSTGRES_URL names (run by default when
                     it is set); W1hp and W4hp are W1p and W4p recording persistent history,
                     against W1p and W4p without; W8p opens a PostgreSQL store of N items
                     whose model gained an optional attribute (lightweight migration),
                     against ALTER TABLE … ADD COLUMN through libpq
        Set OCD_BENCH_PHASES=1 to print the framework side's phases (W1, W2, W6) to standard error.
        """

    /// Parses the arguments (without the program name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var selected: [Workload] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument.hasPrefix("-") {
                let (flag, inlineValue) = splitFlag(argument)
                switch flag {
                case "--json":
                    guard inlineValue == nil else { throw UsageError("--json takes no value") }
                    options.json = true
                case "--runs":
                    options.runs = try positiveInteger(for: flag, inlineValue ?? remaining.popFirst())
                case "--n":
                    options.n = try positiveInteger(for: flag, inlineValue ?? remaining.popFirst())
                case "-h", "--help":
                    throw UsageError(nil)
                default:
                    throw UsageError("unknown option '\(argument)'")
                }
            } else {
                guard let workload = Workload.named(argument) else {
                    throw UsageError(unknownWorkloadMessage(argument))
                }
                if !selected.contains(where: { $0.id == workload.id }) {
                    selected.append(workload)
                }
            }
        }
        if !selected.isEmpty { options.workloads = selected }
        return options
    }

    /// Splits `--flag=value` into its flag and value.
    private static func splitFlag(_ argument: String) -> (String, String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func positiveInteger(for flag: String, _ value: String?) throws(UsageError) -> Int {
        guard let value else { throw UsageError("\(flag) needs a value") }
        guard let number = Int(value), number > 0 else {
            throw UsageError("\(flag) needs a positive integer, not '\(value)'")
        }
        return number
    }

    private static func unknownWorkloadMessage(_ id: String) -> String {
        let available = (Workload.all + Workload.postgres).map(\.id).joined(separator: " ")
        return "unknown workload '\(id)' (available: \(available))"
    }
}

/// A bad command line; a nil message means help was asked for.
struct UsageError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}

/// The medians of one workload over every run.
struct WorkloadResult {
    let workload: Workload
    let frameworkSeconds: Double
    let rawSeconds: Double

    /// framework / raw, or nil if the raw time is zero.
    var ratio: Double? {
        rawSeconds > 0 ? frameworkSeconds / rawSeconds : nil
    }
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Creates a fresh, empty temporary directory for one side of one run.
func makeRunDirectory(_ name: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("ocd-bench-\(name)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// Runs one side of a workload in its own temporary directory, removed afterwards.
func runSide(_ side: (URL, Int) throws -> Double, name: String, n: Int) throws -> Double {
    let directory = try makeRunDirectory(name)
    defer {
        try? FileManager.default.removeItem(at: directory)
        BenchPostgres.dropSchema(for: directory)
    }
    return try side(directory, n)
}

/// The median of a non-empty list.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Runs a workload `runs` times, each side in a fresh directory, and returns the medians.
func measure(_ workload: Workload, options: Options) throws -> WorkloadResult {
    var frameworkTimes: [Double] = []
    var rawTimes: [Double] = []
    for run in 1...options.runs {
        let framework = try runSide(workload.framework, name: "\(workload.id)-framework", n: options.n)
        let raw = try runSide(workload.raw, name: "\(workload.id)-raw", n: options.n)
        frameworkTimes.append(framework)
        rawTimes.append(raw)
        printError("\(workload.id) run \(run)/\(options.runs): framework \(figure(framework, workload.unit)), raw \(figure(raw, workload.unit))")
    }
    return WorkloadResult(workload: workload, frameworkSeconds: median(frameworkTimes), rawSeconds: median(rawTimes))
}

/// Seconds with three decimals, or six for times under ten milliseconds (W8's opens, W12's rounds).
func seconds(_ value: Double) -> String { String(format: value < 0.01 ? "%.6f" : "%.3f", value) }

/// A measured figure with its unit: `0.412 s` or `61.0 MiB`.
func figure(_ value: Double, _ unit: Workload.Unit) -> String {
    switch unit {
    case .seconds: "\(seconds(value)) s"
    case .peakMiB: String(format: "%.1f MiB", value)
    }
}

/// One human-readable row, e.g.
/// `W1 insert 200000        framework 0.412 s   raw 0.198 s   ratio 2.08   (median of 5)`.
func humanRow(_ result: WorkloadResult, options: Options, labelWidth: Int) -> String {
    let label = result.workload.label(n: options.n)
    let padded = label + String(repeating: " ", count: max(labelWidth - label.count, 1))
    let ratio = result.ratio.map { String(format: $0 < 0.01 ? "%.5f" : "%.2f", $0) } ?? "n/a"
    let unit = result.workload.unit
    return "\(padded)framework \(figure(result.frameworkSeconds, unit))   \(result.workload.baseline) \(figure(result.rawSeconds, unit))"
        + "   ratio \(ratio)   (median of \(options.runs))"
}

/// A JSON number rounded to `digits` decimals, or `null` when not finite.
func jsonNumber(_ value: Double?, digits: Int) -> String {
    guard let value, value.isFinite else { return "null" }
    let scale = pow(10, Double(digits))
    return "\((value * scale).rounded() / scale)"
}

/// The single JSON object of `--json`.
func jsonReport(_ results: [WorkloadResult], options: Options) -> String {
    let rows = results.map { result in
        let (frameworkKey, rawKey, digits) = result.workload.unit == .seconds
            ? ("framework_s", "raw_s", 6) : ("framework_peak_mib", "raw_peak_mib", 1)
        return "  {\"id\": \"\(result.workload.id)\", \"\(frameworkKey)\": \(jsonNumber(result.frameworkSeconds, digits: digits)), "
            + "\"\(rawKey)\": \(jsonNumber(result.rawSeconds, digits: digits)), \"ratio\": \(jsonNumber(result.ratio, digits: 4))"
            + (result.workload.baseline == "raw" ? "" : ", \"baseline\": \"\(result.workload.baseline)\"") + "}"
    }
    return "{\"runs\": \(options.runs), \"n\": \(options.n), \"workloads\": [\n"
        + rows.joined(separator: ",\n") + "\n]}"
}

/// Parses the command line, runs the selected workloads and prints the report.
func runBenchmark() -> Int32 {
    let options: Options
    do {
        options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        guard let message = error.message else {
            print(Options.usage)
            return 0
        }
        printError("ocd-bench: \(message)\n\(Options.usage)")
        return 2
    }
    #if DEBUG
    printError("ocd-bench: warning: debug build; use `swift run -c release ocd-bench` for meaningful timings")
    #endif

    // Pad labels to the sample's 24 columns, or wider if a label needs it.
    let labelWidth = max(24, options.workloads.map { $0.label(n: options.n).count + 2 }.max() ?? 0)
    var results: [WorkloadResult] = []
    defer { FilledStores.removeAll() }
    for workload in options.workloads {
        do {
            let result = try measure(workload, options: options)
            results.append(result)
            if !options.json { print(humanRow(result, options: options, labelWidth: labelWidth)) }
        } catch {
            printError("ocd-bench: \(workload.id) failed: \(error)")
            return 1
        }
    }
    if options.json { print(jsonReport(results, options: options)) }
    printError("ocd-bench: done (checksum \(BenchSink.report()))")
    return 0
}

if let code = MemoryWorkload.runChildIfRequested(Array(CommandLine.arguments.dropFirst())) { exit(code) }
exit(runBenchmark())
