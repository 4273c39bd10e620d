import Foundation
import OCDSQLite
import OpenCoreData

/// Several writer processes save changes to the same objects of one store at once, each under
/// the same merge policy, and the store is then checked against what that policy promises: no
/// save fails with `SQLITE_BUSY`, no insert is lost, and what each policy keeps is kept —
///
/// - error (conflicts retried by the writer, as an app does): no update is lost at all, so every
///   board's `touches` is writers × rounds;
/// - object trump and store trump (property by property): every writer's own slot holds its last
///   round, since no other writer changes it; concurrent bumps of `touches` may be lost;
/// - overwrite and rollback: a writer's slot may be overwritten or rolled back, as they say.
struct ManyWritersRun {
    enum Policy: String, CaseIterable {
        case error, objectTrump, storeTrump, overwrite, rollback

        var mergePolicy: NSMergePolicy {
            switch self {
            case .error: .error
            case .objectTrump: .mergeByPropertyObjectTrump
            case .storeTrump: .mergeByPropertyStoreTrump
            case .overwrite: .overwrite
            case .rollback: .rollback
            }
        }

        /// Whether every writer's slot must hold its last round at the end.
        var keepsEveryWritersOwnChanges: Bool { [.error, .objectTrump, .storeTrump].contains(self) }
    }

    struct Options {
        var writers = 4
        var rounds = 50
        var policy = Policy.objectTrump
        var seed: UInt64 = 1
    }

    let options: Options

    /// Whether the writers all finished and the store keeps what the policy promises; prints one
    /// line per failure and a summary.
    func run() throws -> Bool {
        guard (1...BoardModel.maximumWriters).contains(options.writers) else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "--writers must be 1 to \(BoardModel.maximumWriters)"])
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-writers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Boards.sqlite")
        try Self.createStore(at: url)

        var random = SplitMix(seed: options.seed)
        let writers = try (0..<options.writers).map { writer in
            (writer, try startWriter(url: url, writer: writer, seed: random.next()))
        }
        var problems: [String] = []
        var conflicts = 0
        for (writer, process) in writers {
            let output = process.standardOutput as! Pipe
            let error = process.standardError as! Pipe
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let complaint = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if process.terminationStatus != 0 {
                problems.append("writer \(writer) failed (status \(process.terminationStatus)): \(complaint.trimmingCharacters(in: .whitespacesAndNewlines))")
            }
            conflicts += Int(printed.split(separator: " ").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0)
        }
        if problems.isEmpty { problems = try check(url) }
        for problem in problems { print(problem) }
        print("\(options.writers) writers × \(options.rounds) rounds under \(options.policy.rawValue): "
              + "\(conflicts) conflicts retried by the writers, \(problems.count) failures")
        return problems.isEmpty
    }

    private func startWriter(url: URL, writer: Int, seed: UInt64) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = ["board-writer", url.path, String(writer), String(options.rounds), options.policy.rawValue, String(seed)]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        return process
    }

    /// A context on a new coordinator with the board store added.
    static func open(_ url: URL) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BoardModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private static func createStore(at url: URL) throws {
        let context = try open(url)
        try context.performAndWait {
            for number in 0..<BoardModel.boardCount {
                let board = NSEntityDescription.insertNewObject(forEntityName: "Board", into: context)
                board.setValue(Int64(number), forKey: "number")
            }
            try context.save()
        }
    }

    /// What the store holds that the policy does not allow, read through a new coordinator.
    private func check(_ url: URL) throws -> [String] {
        var configuration = SQLiteConnection.Configuration()
        configuration.createIfMissing = false
        let integrity = try SQLiteConnection(path: url.path, configuration: configuration)
            .rows("PRAGMA integrity_check").compactMap { $0.first?.stringValue }
        guard integrity == ["ok"] else { return ["integrity_check: \(integrity.joined(separator: "; "))"] }
        let context = try Self.open(url)
        return try context.performAndWait {
            var problems: [String] = []
            let boards = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Board"))
            if boards.count != BoardModel.boardCount { problems.append("\(boards.count) boards, expected \(BoardModel.boardCount)") }
            let rounds = Int64(options.rounds), writers = Int64(options.writers)
            for board in boards {
                let number = board.value(forKey: "number") as! Int64
                let touches = board.value(forKey: "touches") as! Int64
                if options.policy == .error ? touches != writers * rounds : !(1...writers * rounds).contains(touches) {
                    problems.append("board \(number) was touched \(touches) times by \(writers) writers × \(rounds) rounds")
                }
                // The last save of all wrote every board whole, in its writer's last round.
                let slots = (0..<options.writers).map { board.value(forKey: BoardModel.slot($0)) as! Int64 }
                if options.policy == .overwrite && !slots.contains(rounds) {
                    problems.append("board \(number): no writer's slot holds its last round (\(slots))")
                }
                for writer in 0..<options.writers {
                    let last = board.value(forKey: BoardModel.slot(writer)) as! Int64
                    if options.policy.keepsEveryWritersOwnChanges ? last != rounds : !(0...rounds).contains(last) {
                        problems.append("board \(number): writer \(writer)'s slot holds round \(last) of \(rounds)")
                    }
                }
            }
            // Every mark, once: an insert is never a conflict, whatever the policy.
            let marks = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Mark"))
            let pinned = Set(marks.map { "\($0.value(forKey: "writer")!)/\($0.value(forKey: "round")!)" })
            if marks.count != options.writers * options.rounds || pinned.count != marks.count {
                problems.append("\(marks.count) marks (\(pinned.count) distinct), expected \(options.writers * options.rounds)")
            }
            let reachable = boards.reduce(0) { $0 + (($1.value(forKey: "marks") as? Set<NSManagedObject>)?.count ?? 0) }
            if reachable != marks.count { problems.append("\(reachable) marks reachable from the boards, \(marks.count) stored") }
            return problems
        }
    }
}

/// A writer process of `ManyWritersRun`: `rounds` saves, each changing every board. Under the
/// error policy a conflicting save is rolled back and the round done again; under the others the
/// policy settles it and the save must succeed. Prints how many conflicts it retried.
enum BoardWriter {
    static func run(url: URL, writer: Int, rounds: Int, policy: ManyWritersRun.Policy, seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let context = try ManyWritersRun.open(url)
        context.mergePolicy = policy.mergePolicy
        let request = NSFetchRequest<NSManagedObject>(entityName: "Board")
        request.sortDescriptors = [NSSortDescriptor(key: "number", ascending: true)]
        var conflicts = 0
        try context.performAndWait {
            var round = 1
            while round <= rounds {
                let boards = try context.fetch(request)
                for board in boards {
                    board.setValue(Int64(round), forKey: BoardModel.slot(writer))
                    board.setValue((board.value(forKey: "touches") as! Int64) + 1, forKey: "touches")
                }
                let mark = NSEntityDescription.insertNewObject(forEntityName: "Mark", into: context)
                mark.setValue(Int64(writer), forKey: "writer")
                mark.setValue(Int64(round), forKey: "round")
                mark.setValue(boards[Int(random.next() % UInt64(boards.count))], forKey: "board")
                do {
                    try context.save()
                    round += 1
                } catch let error as CocoaError where error.code == .managedObjectMerge && policy == .error {
                    conflicts += 1
                    context.rollback()
                    for board in boards { context.refresh(board, mergeChanges: false) }
                }
            }
        }
        print("writer \(writer) conflicts \(conflicts)")
    }
}
