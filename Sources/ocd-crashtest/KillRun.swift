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
            try waitForKillMoment(of: writers, random: &random)
            for writer in writers { kill(writer.process.processIdentifier, SIGKILL) }
            for writer in writers { writer.process.waitUntilExit() }
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

    /// A writer process and the pipe on which it reports each save.
    private struct RunningWriter {
        let process: Process
        let saves: FileHandle
    }

    private func startWriter(store: BankStore, writer: Int, seed: UInt64) throws -> RunningWriter {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = ["writer", store.url.path, String(writer), String(seed), store.storeType]
            + (options.receipts ? ["receipts"] : [])
        let saves = Pipe()
        process.standardOutput = saves
        try process.run()
        return RunningWriter(process: process, saves: saves.fileHandleForReading)
    }

    /// Waits for the moment of a round's kill, measured in the writers' saves rather than in
    /// wall-clock time, so that a slow or busy machine gets the same mix of kills: one round in
    /// four kills 2 to 120 ms after the start (while a writer opens the store or makes its first
    /// save); the others after 1 to 4 saves reported by the writers, plus up to 20 ms (most land
    /// inside a save). A writer that dies on its own ends the wait; the check then tells why.
    private func waitForKillMoment(of writers: [RunningWriter], random: inout SplitMix) throws {
        let choice = random.next()
        guard choice % 4 != 0 else {
            usleep(useconds_t(2_000 + random.next() % 118_000))
            return
        }
        var saves = 0
        let wanted = Int(choice / 4 % 4) + 1
        var descriptors = writers.map { pollfd(fd: $0.saves.fileDescriptor, events: Int16(POLLIN), revents: 0) }
        let deadline = Date().addingTimeInterval(60)
        var buffer = [UInt8](repeating: 0, count: 64)
        while saves < wanted, Date() < deadline {
            guard poll(&descriptors, nfds_t(descriptors.count), 1_000) > 0 else { continue }
            for index in descriptors.indices where descriptors[index].revents != 0 {
                let count = read(descriptors[index].fd, &buffer, buffer.count)
                if count <= 0 { return }  // the writer exited
                saves += count
            }
        }
        usleep(useconds_t(random.next() % 20_000))
    }
}
