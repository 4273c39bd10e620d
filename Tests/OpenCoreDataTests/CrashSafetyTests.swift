import Foundation
import OCDSQLite
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Saves are atomic across crashes: `ocd-crashtest` starts writer processes that save transfers
/// between accounts, kills them with SIGKILL at random moments, and after each kill checks the
/// store (SQLite's integrity check, and the balances against the ledger). The default suite runs
/// a few kills; `swift run ocd-crashtest run --kills 1000 --writers 2` runs many.
@Suite struct CrashSafetyTests {
    @Test(arguments: [1, 2])
    func killedWritersLeaveAConsistentStore(writers: Int) throws {
        let result = try OCD.run(["run", "--kills", "5", "--writers", "\(writers)", "--seed", "\(writers * 7)"],
                                 executable: OCD.product("ocd-crashtest"))
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("5 kills of \(writers) writer(s)"))
        #expect(result.output.hasSuffix(", 0 failures\n"), "\(result.output)")
    }

    /// External binary data: writers whose transfers carry receipts, some in files of their own,
    /// and replace each account's statement (its old file deleted once the save is final), are
    /// killed at random; every receipt and statement then reads back whole, so no row names a
    /// missing or torn file. `swift run ocd-crashtest run --kills 100 --writers 2 --receipts
    /// external` runs many.
    @Test func killedWritersOfExternalDataLeaveEveryFileARowNames() throws {
        let result = try OCD.run(["run", "--kills", "5", "--writers", "2", "--seed", "21", "--receipts", "external"],
                                 executable: OCD.product("ocd-crashtest"))
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("5 kills of 2 writer(s) of a SQLite store with receipts"))
        #expect(result.output.hasSuffix(", 0 failures\n"), "\(result.output)")
        #expect(!result.output.contains(", 0 transfers saved"), "\(result.output)")
    }

    /// An atomic store's save rewrites its whole file: a writer killed at any moment leaves the
    /// file of the save before or the file of the save after, which loads whole and balances.
    /// `swift run ocd-crashtest run --kills 100 --type binary` (or `xml`) runs many.
    @Test(arguments: ["binary", "xml"])
    func killedWritersOfAnAtomicStoreLeaveTheOldFileOrTheNew(type: String) throws {
        let result = try OCD.run(["run", "--kills", "5", "--type", type, "--seed", "5"], executable: OCD.product("ocd-crashtest"))
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("5 kills of 1 writer(s) of a \(type == "binary" ? NSBinaryStoreType : NSXMLStoreType) store"))
        #expect(result.output.hasSuffix(", 0 failures\n"), "\(result.output)")
        #expect(!result.output.contains(", 0 transfers saved"), "\(result.output)")
    }

    /// A migration is atomic across crashes too: a process migrating a store is killed at a
    /// random moment, and the store is then the old version or the new one, whole, and opens
    /// with the new one. `swift run ocd-crashtest migrations --kills 100` runs many.
    @Test func killsDuringAMigrationLeaveEitherVersionWhole() throws {
        let result = try OCD.run(["migrations", "--kills", "5", "--seed", "11", "--transfers", "5000"],
                                 executable: OCD.product("ocd-crashtest"))
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("5 kills during lightweight migration"))
        #expect(result.output.hasSuffix(", 0 failures\n"), "\(result.output)")
    }

    /// The same through a mapping model of the application's own: the store is migrated into a
    /// new file that then takes its place; a kill at any moment leaves one version, whole.
    /// `swift run ocd-crashtest migrations --mapping custom --kills 100` runs many.
    @Test func killsDuringACustomMigrationLeaveEitherVersionWhole() throws {
        let result = try OCD.run(["migrations", "--mapping", "custom", "--kills", "5", "--seed", "12", "--transfers", "2000"],
                                 executable: OCD.product("ocd-crashtest"))
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("5 kills during custom migration"))
        #expect(result.output.hasSuffix(", 0 failures\n"), "\(result.output)")
    }

    /// The same through an `NSStagedMigrationManager`'s two stages to a third version: a kill
    /// leaves the store whole at one of the three, and at the third, the custom stage's handler
    /// done or recorded as owed (the next add runs it). `swift run ocd-crashtest migrations
    /// --mapping staged --kills 100` runs many.
    @Test func killsDuringAStagedMigrationLeaveOneVersionWhole() throws {
        let result = try OCD.run(["migrations", "--mapping", "staged", "--kills", "5", "--seed", "13", "--transfers", "2000"],
                                 executable: OCD.product("ocd-crashtest"))
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("5 kills during staged migration"))
        #expect(result.output.hasSuffix(", 0 failures\n"), "\(result.output)")
    }

    /// The check can fail: a balance changed behind the ledger's back is found.
    @Test func theCheckFindsABalanceTheLedgerDoesNotExplain() throws {
        let directory = TemporaryDirectory()
        let result = try OCD.run(["run", "--kills", "1", "--store", directory.url.path], executable: OCD.product("ocd-crashtest"))
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let store = directory.file("Bank.sqlite")
        do {
            let connection = try SQLiteConnection(path: store.path)
            try connection.execute("UPDATE ZACCOUNT SET ZBALANCE = ZBALANCE + 1 WHERE Z_PK = 1")
            try connection.execute("UPDATE ZACCOUNT SET ZBALANCE = ZBALANCE - 1 WHERE Z_PK = 2")
        }
        let again = try OCD.run(["run", "--kills", "1", "--store", directory.url.path], executable: OCD.product("ocd-crashtest"))
        #expect(again.status == 1)
        #expect(again.output.contains("kill 1: account "), "\(again.output)")
    }
}
