import Foundation
import OpenCoreData

/// Starts writers, kills them at a random moment, checks the store; as many times as asked.
struct KillRun {
    struct Options {
        var kills = 100
        var writers = 1
        var seed: UInt64 = 1
        var directory: URL?
        /// `sqlite`, or an atomic store: `binary`, `xml`.
        var storeType = NSSQLiteStoreType
        /// Whether transfers carry receipts kept as external binary data (`BankModel`).
        var receipts = false

        /// The store types `--type` names.
        static let storeTypes = ["sqlite": NSSQLiteStoreType, "binary": NSBinaryStoreType, "xml": NSXMLStoreType]
    }

    let options: Options

    /// Whether every check passed; prints one line per failure and a summary.
    func run() throws -> Bool {
        let directory = options.directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("ocd-crashtest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if options.directory == nil { try? FileManager.default.removeItem(at: directory) } }
        let fileName = options.storeType == NSSQLiteStoreType ? "Bank.sqlite" : "Bank.\(options.storeType.lowercased())"
        let store = BankStore(url: directory.appendingPathComponent(fileName), model: BankModel.make(receipts: options.receipts),
                              storeType: options.storeType)
        // A store given with --store is used as it is when it exists (to check it again).
        if !FileManager.default.fileExists(atPath: store.url.path) { try store.create() }
        var random = SplitMix(seed: options.seed)
        var failures = 0, transfers = 0, lastTransfers = 0, killsWithProgress = 0
        for round in 1...options.kills {
            let writers = try (0..<options.writers).map { writer in
                try startWriter(store: store, writer: writer, seed: random.next())
            }
            // Between 2 and 120 ms: some kills land while a writer opens the store, most while
            // it is saving.
            usleep(useconds_t(2_000 + random.next() % 118_000))
            for writer in writers { kill(writer.processIdentifier, SIGKILL) }
            for writer in writers { writer.waitUntilExit() }
            let (problem, count) = try store.check()
            if let problem {
                failures += 1
                print("kill \(round): \(problem)")
            }
            if count > lastTransfers { killsWithProgress += 1 }
            lastTransfers = count
            transfers = count
        }
        print("\(options.kills) kills of \(options.writers) writer(s) of a \(options.storeType) store\(options.receipts ? " with receipts" : ""), \(transfers) transfers saved, "
              + "\(killsWithProgress) kills after new saves, \(failures) failures")
        return failures == 0
    }

    private func startWriter(store: BankStore, writer: Int, seed: UInt64) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = ["writer", store.url.path, String(writer), String(seed), store.storeType]
            + (options.receipts ? ["receipts"] : [])
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }
}
