import Foundation
import OpenCoreData

/// W7 of WORKLOAD.md: fetch 1,000,000 objects with a batch size of 1,000 and read one attribute
/// of each; the figure is each side's peak resident memory. Peak memory belongs to a whole
/// process, so each side reads in a child process of its own (`ocd-bench --w7-child SIDE DIR`),
/// which reports its `VmHWM` (Linux's peak resident set size).
enum MemoryWorkload {
    static let rows = 1_000_000
    static let batchSize = 1_000
    static let childFlag = "--w7-child"

    /// The framework side: fills a store (untimed, in this process), then measures the read.
    static func framework(directory: URL, n: Int) throws -> Double {
        try fillFrameworkStore(in: directory)
        return try measureChild(side: "framework", directory: directory)
    }

    /// The raw side: fills the raw table, then measures the read.
    static func raw(directory: URL, n: Int) throws -> Double {
        try RawWorkloads.fillItemStore(in: directory, n: rows)
        return try measureChild(side: "raw", directory: directory)
    }

    /// Inserts the items through contexts, a chunk per save, so that filling stays small.
    private static func fillFrameworkStore(in directory: URL) throws {
        let stack = try BenchStack(directory: directory, model: BenchModel.items())
        let chunk = 100_000
        for start in stride(from: 0, to: rows, by: chunk) {
            try FrameworkWorkloads.insertItems(start..<min(start + chunk, rows), into: stack.context)
            try stack.context.save()
            stack.context.reset()
        }
        try stack.close()
    }

    /// Runs this executable as the child for `side` and returns its peak memory in MiB.
    private static func measureChild(side: String, directory: URL) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [childFlag, side, directory.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, let kibibytes = Double(text) else {
            throw BenchCheckError(workload: "W7", detail: "the \(side) child failed (status \(process.terminationStatus), output '\(text)')")
        }
        return kibibytes / 1024
    }

    // MARK: The child

    /// Runs the child when the arguments ask for it; returns its exit code, or nil.
    static func runChildIfRequested(_ arguments: [String]) -> Int32? {
        guard arguments.count == 3, arguments[0] == childFlag else { return nil }
        let directory = URL(fileURLWithPath: arguments[2])
        do {
            let sum = arguments[1] == "raw" ? try readRaw(directory) : try readFramework(directory)
            BenchSink.consume(sum)
            print(peakResidentKiB())
            return 0
        } catch {
            FileHandle.standardError.write(Data("ocd-bench W7 child: \(error)\n".utf8))
            return 1
        }
    }

    /// Every item through `fetchInBatches`, reading `score`.
    private static func readFramework(_ directory: URL) throws -> Int {
        let stack = try BenchStack(directory: directory, model: BenchModel.items())
        let request = NSFetchRequest<Item>(entityName: "Item")
        request.fetchBatchSize = batchSize
        var sum = 0
        var count = 0
        for item in try stack.context.fetchInBatches(request) {
            sum &+= Int(item.score)
            count += 1
        }
        guard count == rows else { throw BenchCheckError(workload: "W7", detail: "read \(count) items, expected \(rows)") }
        return sum
    }

    /// Every row of one SELECT, reading `score`.
    private static func readRaw(_ directory: URL) throws -> Int {
        let db = try RawDatabase.open(in: directory)
        let select = try db.prepare("SELECT \(ItemRow.columns) FROM item")
        var sum = 0
        var count = 0
        while try select.step() {
            sum &+= Int(ItemRow(select).score)
            count += 1
        }
        guard count == rows else { throw BenchCheckError(workload: "W7", detail: "read \(count) rows, expected \(rows)") }
        return sum
    }

    /// `VmHWM` of /proc/self/status, in KiB.
    private static func peakResidentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        }
        return -1
    }
}
