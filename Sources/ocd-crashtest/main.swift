import Foundation
import OpenCoreData

/// `ocd-crashtest`: proves that a save is atomic across crashes. Writer processes save
/// transfers between accounts into one SQLite store and are killed with SIGKILL at random
/// moments; after each kill the store is checked with SQLite's integrity check and the bank's
/// invariants (see `BankModel`). `writers` runs several processes saving the same objects at
/// once under a merge policy, and checks what the policy promises (see `ManyWritersRun`).
///
///     ocd-crashtest run [--kills N] [--writers W] [--seed S] [--store DIR] [--type sqlite|binary|xml] [--receipts external]
///     ocd-crashtest migrations [--kills N] [--seed S] [--transfers T] [--mapping inferred|custom|staged]
///     ocd-crashtest writers [--writers W] [--rounds R] [--policy P] [--seed S]
///     ocd-crashtest writer STORE WRITER SEED TYPE [receipts] (started by `run`)
///     ocd-crashtest board-writer STORE WRITER ROUNDS POLICY SEED (started by `writers`)
///     ocd-crashtest migrator STORE BUNDLE MAPPING (started by `migrations`)
///     ocd-crashtest history-writer STORE ENTITY ATTRIBUTE COUNT (started by the history tests)
let arguments = Array(CommandLine.arguments.dropFirst())

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: ocd-crashtest run [--kills N] [--writers W] [--seed S] [--store DIR] [--type sqlite|binary|xml (one writer)] [--receipts external]\n       ocd-crashtest migrations [--kills N] [--seed S] [--transfers T] [--mapping inferred|custom|staged]\n       ocd-crashtest writers [--writers W] [--rounds R] [--policy error|objectTrump|storeTrump|overwrite|rollback] [--seed S]\n".utf8))
    exit(2)
}

/// Calls `body` with each `--option value` pair after the command; a missing value is a usage error.
func forEachOption(_ body: (String, String) -> Void) {
    var remaining = arguments.dropFirst()
    while let option = remaining.popFirst() {
        guard let value = remaining.popFirst() else { usage() }
        body(option, value)
    }
}

/// Exits with 0 when `run` passes, 1 when it fails or throws (saying why).
func exitWithResult(_ run: () throws -> Bool) -> Never {
    do {
        exit(try run() ? 0 : 1)
    } catch {
        FileHandle.standardError.write(Data("ocd-crashtest: \(error)\n".utf8))
        exit(1)
    }
}

switch arguments.first {
case "writer":
    guard [5, 6].contains(arguments.count), let writer = Int64(arguments[2]), let seed = UInt64(arguments[3]) else { usage() }
    let receipts = arguments.count == 6 && arguments[5] == "receipts"
    let store = BankStore(url: URL(fileURLWithPath: arguments[1]), model: BankModel.make(receipts: receipts), storeType: arguments[4])
    do { try Writer.run(store: store, writer: writer, seed: seed) } catch {
        FileHandle.standardError.write(Data("ocd-crashtest writer: \(error)\n".utf8))
        exit(1)
    }
case "board-writer":
    guard arguments.count == 6, let writer = Int(arguments[2]), let rounds = Int(arguments[3]),
          let policy = ManyWritersRun.Policy(rawValue: arguments[4]), let seed = UInt64(arguments[5]) else { usage() }
    do { try BoardWriter.run(url: URL(fileURLWithPath: arguments[1]), writer: writer, rounds: rounds, policy: policy, seed: seed) } catch {
        FileHandle.standardError.write(Data("ocd-crashtest board-writer: \(error)\n".utf8))
        exit(1)
    }
case "writers":
    var options = ManyWritersRun.Options()
    forEachOption { option, value in
        switch option {
        case "--writers": options.writers = Int(value) ?? { usage() }()
        case "--rounds": options.rounds = Int(value) ?? { usage() }()
        case "--seed": options.seed = UInt64(value) ?? { usage() }()
        case "--policy": options.policy = ManyWritersRun.Policy(rawValue: value) ?? { usage() }()
        default: usage()
        }
    }
    exitWithResult { try ManyWritersRun(options: options).run() }
case "history-writer":
    guard arguments.count == 5, let count = Int(arguments[4]) else { usage() }
    do { try HistoryWriter.run(url: URL(fileURLWithPath: arguments[1]), entity: arguments[2], attribute: arguments[3], count: count) } catch {
        FileHandle.standardError.write(Data("ocd-crashtest history-writer: \(error)\n".utf8))
        exit(1)
    }
case "migrator":
    guard arguments.count == 4, let mapping = MigrationKillRun.Mapping(rawValue: arguments[3]) else { usage() }
    do { try MigrationKillRun.migrate(store: URL(fileURLWithPath: arguments[1]), bundle: URL(fileURLWithPath: arguments[2]), mapping: mapping) } catch {
        FileHandle.standardError.write(Data("ocd-crashtest migrator: \(error)\n".utf8))
        exit(1)
    }
case "migrations":
    var options = MigrationKillRun.Options()
    forEachOption { option, value in
        switch option {
        case "--kills": options.kills = Int(value) ?? { usage() }()
        case "--seed": options.seed = UInt64(value) ?? { usage() }()
        case "--transfers": options.transfers = Int(value) ?? { usage() }()
        case "--mapping":
            options.mapping = MigrationKillRun.Mapping(rawValue: value) ?? { usage() }()
        default: usage()
        }
    }
    exitWithResult { try MigrationKillRun(options: options).run() }
case "run":
    var options = KillRun.Options()
    forEachOption { option, value in
        switch option {
        case "--kills": options.kills = Int(value) ?? { usage() }()
        case "--writers": options.writers = Int(value) ?? { usage() }()
        case "--seed": options.seed = UInt64(value) ?? { usage() }()
        case "--store": options.directory = URL(fileURLWithPath: value)
        case "--type": options.storeType = KillRun.Options.storeTypes[value] ?? { usage() }()
        case "--receipts":
            guard value == "external" else { usage() }
            options.receipts = true
        default: usage()
        }
    }
    // An atomic store's file is one process's: writers in several would overwrite each other.
    if options.storeType != NSSQLiteStoreType && options.writers != 1 { usage() }
    exitWithResult { try KillRun(options: options).run() }
default:
    usage()
}
