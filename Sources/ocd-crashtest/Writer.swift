import Foundation
import OpenCoreData

/// A writer process: transfers between random accounts, one save each, until it is killed.
/// A save that meets another writer's change (133020) is rolled back, the objects refreshed,
/// and the transfer tried again.
enum Writer {
    private static let savedMark = Data([0x2E])

    static func run(store: BankStore, writer: Int64, seed: UInt64) throws -> Never {
        var random = SplitMix(seed: seed)
        let context = try store.open()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Account")
            request.sortDescriptors = [NSSortDescriptor(key: "number", ascending: true)]
            while true {
                let accounts = try context.fetch(request)
                transfer(between: accounts, by: writer, random: &random, in: context)
                do {
                    try context.save()
                    // One byte per save on stdout: `KillRun` times its kills by these.
                    FileHandle.standardOutput.write(savedMark)
                } catch let error as CocoaError where error.code == .managedObjectMerge {
                    context.rollback()
                    for account in accounts { context.refresh(account, mergeChanges: false) }
                }
            }
        }
        fatalError("unreachable")
    }
}

extension Writer {
    /// Moves a random amount between two random accounts, and records it in the ledger (unsaved).
    static func transfer(between accounts: [NSManagedObject], by writer: Int64, random: inout SplitMix, in context: NSManagedObjectContext) {
        let from = accounts[Int(random.next() % UInt64(accounts.count))]
        let to = accounts[Int(random.next() % UInt64(accounts.count))]
        let amount = Int64(random.next() % 50) + 1
        from.setValue((from.value(forKey: "balance") as! Int64) - amount, forKey: "balance")
        to.setValue((to.value(forKey: "balance") as! Int64) + amount, forKey: "balance")
        let transfer = NSEntityDescription.insertNewObject(forEntityName: "Transfer", into: context)
        transfer.setValue(amount, forKey: "amount")
        transfer.setValue(writer, forKey: "writer")
        transfer.setValue(from, forKey: "from")
        transfer.setValue(to, forKey: "to")
        if transfer.entity.attributesByName["receipt"] != nil {
            // A new value for the receipt, and one that replaces the account's statement (whose
            // file, if it had one, goes with the save).
            transfer.setValue(Receipt.make(&random), forKey: "receipt")
            from.setValue(Receipt.make(&random), forKey: "statement")
        }
    }
}

/// A small seeded generator, so that a writer's run can be repeated.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
