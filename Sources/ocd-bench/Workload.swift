import Foundation
import OpenCoreData
import OpenCoreDataPostgres

/// One benchmark workload (see `WORKLOAD.md`): the same job done through the framework and
/// through raw SQLite.
///
/// Each side receives a fresh, empty directory of its own and the requested N, does any setup it
/// needs without timing it, and returns the seconds taken by the timed part only.
struct Workload: Sendable {
    /// The workload's id as WORKLOAD.md names it, e.g. `"W1"`.
    let id: String
    /// A short human title, e.g. `"insert"`.
    let title: String
    /// How the workload's size reads in the human output, given N (W6 has a fixed size).
    let size: @Sendable (Int) -> String
    /// The framework side: `(directory, n) -> timed seconds`.
    let framework: @Sendable (URL, Int) throws -> Double
    /// The raw SQLite side: `(directory, n) -> timed seconds`.
    let raw: @Sendable (URL, Int) throws -> Double
    /// What the sides return: seconds, or (W7) peak resident memory in MiB.
    var unit: Unit = .seconds
    /// What the second side is, in the human output: raw SQLite, or (W9, W10) the framework
    /// doing the same job the usual way.
    var baseline = "raw"

    enum Unit: Sendable {
        case seconds, peakMiB
    }

    /// The row label of the human output, e.g. `"W1 insert 200000"`.
    func label(n: Int) -> String {
        "\(id) \(title) \(size(n))"
    }
}

extension Workload {
    /// Every workload this executable knows, in order.
    static let all: [Workload] = [
        Workload(
            id: "W1", title: "insert", size: { "\($0)" },
            framework: { try FrameworkWorkloads.w1(directory: $0, n: $1) },
            raw: { try RawWorkloads.w1(directory: $0, n: $1) }),
        Workload(
            id: "W2", title: "fetch all", size: { "\($0)" },
            framework: { try FrameworkWorkloads.w2(directory: $0, n: $1) },
            raw: { try RawWorkloads.w2(directory: $0, n: $1) }),
        Workload(
            id: "W3", title: "range fetch", size: { "\($0)" },
            framework: { try FrameworkWorkloads.w3(directory: $0, n: $1) },
            raw: { try RawWorkloads.w3(directory: $0, n: $1) }),
        Workload(
            id: "W3f", title: "range fetch, format", size: { "\($0)" },
            framework: { try FrameworkWorkloads.w3(directory: $0, n: $1, formatString: true) },
            raw: { try RawWorkloads.w3(directory: $0, n: $1) }),
        Workload(
            id: "W4", title: "update", size: { "\($0)" },
            framework: { try FrameworkWorkloads.w4(directory: $0, n: $1) },
            raw: { try RawWorkloads.w4(directory: $0, n: $1) }),
        Workload(
            id: "W5", title: "delete", size: { "\($0)" },
            framework: { try FrameworkWorkloads.w5(directory: $0, n: $1) },
            raw: { try RawWorkloads.w5(directory: $0, n: $1) }),
        Workload(
            id: "W6", title: "object graph",
            size: { _ in "\(BenchData.ownerCount)x\(BenchData.petsPerOwner)" },
            framework: { try FrameworkWorkloads.w6(directory: $0, n: $1) },
            raw: { try RawWorkloads.w6(directory: $0, n: $1) }),
        Workload(
            id: "WA", title: "aggregate", size: { "\($0)" },
            framework: { try AggregateWorkload.framework(directory: $0, n: $1) },
            raw: { try AggregateWorkload.raw(directory: $0, n: $1) }),
        Workload(
            id: "W7", title: "memory", size: { _ in "\(MemoryWorkload.rows)" },
            framework: { try MemoryWorkload.framework(directory: $0, n: $1) },
            raw: { try MemoryWorkload.raw(directory: $0, n: $1) },
            unit: .peakMiB),
        Workload(
            id: "W8", title: "launch and migrate", size: { _ in "\(MigrationWorkload.rows)" },
            framework: { try MigrationWorkload.frameworkMigrate(directory: $0, n: $1) },
            raw: { try MigrationWorkload.rawMigrate(directory: $0, n: $1) }),
        Workload(
            id: "W8b", title: "migrate, rebuild", size: { _ in "\(MigrationWorkload.rows)" },
            framework: { try MigrationWorkload.frameworkRebuild(directory: $0, n: $1) },
            raw: { try MigrationWorkload.rawRebuild(directory: $0, n: $1) }),
        Workload(
            id: "W8c", title: "custom migration", size: { _ in "\(MigrationWorkload.customRows)" },
            framework: { try MigrationWorkload.frameworkCustom(directory: $0, n: $1) },
            raw: { try MigrationWorkload.rawCustom(directory: $0, n: $1) }),
        Workload(
            id: "W8r", title: "reopen migrated", size: { _ in "\(MigrationWorkload.rows)" },
            framework: { try MigrationWorkload.frameworkReopen(directory: $0, n: $1) },
            raw: { try MigrationWorkload.rawReopen(directory: $0, n: $1) }),
        Workload(
            id: "W9", title: "child save", size: { _ in "\(ContextWorkloads.objectCount)" },
            framework: { try ContextWorkloads.childSave(directory: $0, n: $1) },
            raw: { try ContextWorkloads.storeSave(directory: $0, n: $1) },
            baseline: "store save"),
        Workload(
            id: "W10", title: "merge a save", size: { _ in "\(ContextWorkloads.objectCount)" },
            framework: { try ContextWorkloads.mergeSave(directory: $0, n: $1) },
            raw: { try ContextWorkloads.refetch(directory: $0, n: $1) },
            baseline: "refetch"),
        Workload(
            id: "W11", title: "insert, undo recorded", size: { "\($0)" },
            framework: { try FrameworkWorkloads.w1(directory: $0, n: $1, recordingUndo: true) },
            raw: { try FrameworkWorkloads.w1(directory: $0, n: $1) },
            baseline: "W1"),
        Workload(
            id: "W1h", title: "insert, history recorded", size: { "\($0)" },
            framework: { try FrameworkWorkloads.w1(directory: $0, n: $1, tracksHistory: true) },
            raw: { try FrameworkWorkloads.w1(directory: $0, n: $1) },
            baseline: "W1"),
        Workload(
            id: "W1b", title: "insert, binary store", size: { "\($0)" },
            framework: { try FrameworkWorkloads.w1(directory: $0, n: $1, storeType: NSBinaryStoreType) },
            raw: { try FrameworkWorkloads.w1(directory: $0, n: $1) },
            baseline: "W1"),
        Workload(
            id: "W2b", title: "open and fetch all, binary store", size: { "\($0)" },
            framework: { try FrameworkWorkloads.w2(directory: $0, n: $1, storeType: NSBinaryStoreType) },
            raw: { try FrameworkWorkloads.w2(directory: $0, n: $1) },
            baseline: "W2"),
        Workload(
            id: "WX", title: "insert, external data", size: { _ in "\(ExternalDataWorkload.photoCount)x256KiB" },
            framework: { try ExternalDataWorkload.frameworkInsert(directory: $0, n: $1) },
            raw: { try ExternalDataWorkload.rawInsert(directory: $0, n: $1) }),
        Workload(
            id: "WXf", title: "fetch, external data", size: { _ in "\(ExternalDataWorkload.photoCount)x256KiB" },
            framework: { try ExternalDataWorkload.frameworkFetch(directory: $0, n: $1) },
            raw: { try ExternalDataWorkload.rawFetch(directory: $0, n: $1) }),
        Workload(
            id: "WXn", title: "fetch, external data not read", size: { _ in "\(ExternalDataWorkload.photoCount)x256KiB" },
            framework: { try ExternalDataWorkload.frameworkFetchNames(directory: $0, n: $1) },
            raw: { try ExternalDataWorkload.rawFetchNames(directory: $0, n: $1) }),
        Workload(
            id: "W4h", title: "update, history recorded", size: { "\($0)" },
            framework: { try FrameworkWorkloads.w4(directory: $0, n: $1, tracksHistory: true) },
            raw: { try FrameworkWorkloads.w4(directory: $0, n: $1) },
            baseline: "W4"),
        Workload(
            id: "W12", title: "results controller, one change", size: { _ in "\(FetchedResultsWorkload.objectCount)" },
            framework: { try FetchedResultsWorkload.oneChange(directory: $0, n: $1) },
            raw: { try FetchedResultsWorkload.performFetch(directory: $0, n: $1) },
            baseline: "performFetch"),
        Workload(
            id: "W13", title: "history of one save", size: { _ in "\(HistoryWorkload.updateCount)" },
            framework: { try HistoryWorkload.afterLongHistory(directory: $0, n: $1) },
            raw: { try HistoryWorkload.afterNoHistory(directory: $0, n: $1) },
            baseline: "no history before"),
    ]

    /// W1–W6 through the PostgreSQL store against raw libpq (`OCD_POSTGRES_URL`), each side of
    /// each run in a schema of its own.
    static let postgres: [Workload] = [
        Workload(id: "W1p", title: "insert, PostgreSQL", size: { "\($0)" },
                 framework: { try FrameworkWorkloads.w1(directory: $0, n: $1, storeType: OCDPostgreSQLStoreType) },
                 raw: { try RawPostgresWorkloads.w1(directory: $0, n: $1) }, baseline: "libpq"),
        Workload(id: "W2p", title: "fetch all, PostgreSQL", size: { "\($0)" },
                 framework: { try FrameworkWorkloads.w2(directory: $0, n: $1, storeType: OCDPostgreSQLStoreType) },
                 raw: { try RawPostgresWorkloads.w2(directory: $0, n: $1) }, baseline: "libpq"),
        Workload(id: "W3p", title: "range fetch, PostgreSQL", size: { "\($0)" },
                 framework: { try FrameworkWorkloads.w3(directory: $0, n: $1, storeType: OCDPostgreSQLStoreType) },
                 raw: { try RawPostgresWorkloads.w3(directory: $0, n: $1) }, baseline: "libpq"),
        Workload(id: "W4p", title: "update, PostgreSQL", size: { "\($0)" },
                 framework: { try FrameworkWorkloads.w4(directory: $0, n: $1, storeType: OCDPostgreSQLStoreType) },
                 raw: { try RawPostgresWorkloads.w4(directory: $0, n: $1) }, baseline: "libpq"),
        Workload(id: "W5p", title: "delete, PostgreSQL", size: { "\($0)" },
                 framework: { try FrameworkWorkloads.w5(directory: $0, n: $1, storeType: OCDPostgreSQLStoreType) },
                 raw: { try RawPostgresWorkloads.w5(directory: $0, n: $1) }, baseline: "libpq"),
        Workload(id: "W6p", title: "object graph, PostgreSQL", size: { _ in "\(BenchData.ownerCount)x\(BenchData.petsPerOwner)" },
                 framework: { try FrameworkWorkloads.w6(directory: $0, n: $1, storeType: OCDPostgreSQLStoreType) },
                 raw: { try RawPostgresWorkloads.w6(directory: $0, n: $1) }, baseline: "libpq"),
        Workload(id: "W1hp", title: "insert, history, PostgreSQL", size: { "\($0)" },
                 framework: { try FrameworkWorkloads.w1(directory: $0, n: $1, tracksHistory: true, storeType: OCDPostgreSQLStoreType) },
                 raw: { try FrameworkWorkloads.w1(directory: $0, n: $1, storeType: OCDPostgreSQLStoreType) }, baseline: "W1p"),
        Workload(id: "W4hp", title: "update, history, PostgreSQL", size: { "\($0)" },
                 framework: { try FrameworkWorkloads.w4(directory: $0, n: $1, tracksHistory: true, storeType: OCDPostgreSQLStoreType) },
                 raw: { try FrameworkWorkloads.w4(directory: $0, n: $1, storeType: OCDPostgreSQLStoreType) }, baseline: "W4p"),
        Workload(id: "W8p", title: "launch and migrate, PostgreSQL", size: { "\($0)" },
                 framework: { try MigrationWorkload.frameworkMigratePostgres(directory: $0, n: $1) },
                 raw: { try MigrationWorkload.rawMigratePostgres(directory: $0, n: $1) }, baseline: "libpq"),
    ]

    /// The workload with the given id (case-insensitive), or nil.
    static func named(_ id: String) -> Workload? {
        (all + postgres).first { $0.id.caseInsensitiveCompare(id) == .orderedSame }
    }
}

/// The data every workload uses, defined once so that both sides store exactly the same values.
enum BenchData {
    /// The fixed start date of `Item.created`, in seconds since 2001-01-01 (Core Data's epoch).
    static let startDate: Double = 700_000_000

    /// The `Item` attributes of row `i` (0..<N), as WORKLOAD.md defines them.
    static func name(_ i: Int) -> String { "item-\(i)" }
    static func score(_ i: Int) -> Int64 { Int64(i % 1000) }
    static func price(_ i: Int) -> Double { Double(i) * 0.01 }
    static func created(_ i: Int) -> Double { startDate + Double(i) }
    static func flag(_ i: Int) -> Bool { i % 2 == 0 }
    static func note(_ i: Int) -> String? { i % 2 == 0 ? "note \(i)" : nil }

    /// W3: the number of range fetches, and the lower bound of fetch `k`; the upper bound is
    /// `lo + 9` (inclusive).
    static let rangeFetchCount = 1_000
    static func rangeLow(_ k: Int) -> Int64 { Int64((k * 37) % 990) }
    /// How many of the N rows have score `score`.
    static func rowCount(score: Int64, n: Int) -> Int {
        n / 1000 + (Int(score) < n % 1000 ? 1 : 0)
    }
    /// How many rows all W3 fetches together return.
    static func expectedRangeFetchRows(n: Int) -> Int {
        (0..<rangeFetchCount).reduce(0) { total, k in
            let lo = rangeLow(k)
            return total + (lo...(lo + 9)).reduce(0) { $0 + rowCount(score: $1, n: n) }
        }
    }

    /// W4: every row whose score is even gets `price *= priceFactor`.
    static let priceFactor = 1.1

    /// W6: the size of the object graph (N is ignored) and the values of its rows.
    static let ownerCount = 10_000
    static let petsPerOwner = 20
    static func ownerName(_ owner: Int) -> String { "owner-\(owner)" }
    static func petName(owner: Int, pet: Int) -> String { "pet-\(owner)-\(pet)" }
    static func petWeight(pet: Int) -> Double { 1.0 + Double(pet) * 0.5 }
    /// The sum of every pet's weight across the graph: `ownerCount * Σ petWeight(pet:)`.
    static var expectedTotalPetWeight: Double {
        Double(ownerCount) * (0..<petsPerOwner).reduce(0) { $0 + petWeight(pet: $1) }
    }
}

/// Times a block of code with the monotonic `ContinuousClock`.
struct Stopwatch {
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    /// Starts timing now.
    init() { start = clock.now }

    /// The seconds since the stopwatch started.
    var elapsedSeconds: Double { Self.seconds(clock.now - start) }

    /// Runs `body` and returns how many seconds it took.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let stopwatch = Stopwatch()
        try body()
        return stopwatch.elapsedSeconds
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}

/// Keeps benchmark results observably "used" so that the optimizer cannot drop the work that
/// produced them. Fold a checksum of every result into it after the timed part.
enum BenchSink {
    nonisolated(unsafe) private static var accumulator = 0

    /// Records `value`; the accumulated total is never read except by `report()`.
    @inline(never)
    static func consume(_ value: Int) {
        accumulator &+= value
    }

    /// The accumulated checksum (printed to stderr at the end so the work stays observable).
    @inline(never)
    static func report() -> Int { accumulator }
}

/// A benchmark result that does not match what the workload should have produced.
struct BenchCheckError: Error, CustomStringConvertible {
    let workload: String
    let detail: String
    var description: String { "\(workload): result check failed: \(detail)" }
}
