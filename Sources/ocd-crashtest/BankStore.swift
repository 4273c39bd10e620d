import Foundation
import OCDSQLite
import OpenCoreData

/// Opening, filling and checking the crash test's store.
struct BankStore {
    let url: URL
    let model: NSManagedObjectModel

    /// A context on a new coordinator with the store added.
    func open() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSPersistentStoreTimeoutOption: 10.0])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Creates the store with every account at its opening balance.
    func create() throws {
        let context = try open()
        try context.performAndWait {
            for number in 0..<BankModel.accountCount {
                let account = NSEntityDescription.insertNewObject(forEntityName: "Account", into: context)
                account.setValue(Int64(number), forKey: "number")
                account.setValue(BankModel.openingBalance, forKey: "balance")
            }
            try context.save()
        }
    }

    /// What is wrong with the store, or nil: SQLite's integrity check, then the bank's
    /// invariants, read through a new coordinator. Returns the number of transfers too.
    func check() throws -> (problem: String?, transfers: Int) {
        var configuration = SQLiteConnection.Configuration()
        configuration.createIfMissing = false
        let connection = try SQLiteConnection(path: url.path, configuration: configuration)
        let integrity = try connection.rows("PRAGMA integrity_check").compactMap { $0.first?.stringValue }
        guard integrity == ["ok"] else { return ("integrity_check: \(integrity.joined(separator: "; "))", 0) }
        let context = try open()
        return try context.performAndWait {
            let accounts = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account"))
            guard accounts.count == BankModel.accountCount else { return ("\(accounts.count) accounts, expected \(BankModel.accountCount)", 0) }
            let total = accounts.reduce(Int64(0)) { $0 + ($1.value(forKey: "balance") as! Int64) }
            let expected = Int64(BankModel.accountCount) * BankModel.openingBalance
            guard total == expected else { return ("the balances add up to \(total), expected \(expected)", 0) }
            for account in accounts {
                func sum(_ key: String) -> Int64 {
                    (account.value(forKey: key) as! Set<NSManagedObject>).reduce(0) { $0 + ($1.value(forKey: "amount") as! Int64) }
                }
                let balance = account.value(forKey: "balance") as! Int64
                let ledger = BankModel.openingBalance + sum("incoming") - sum("outgoing")
                guard balance == ledger else {
                    return ("account \(account.value(forKey: "number")!) has \(balance), its ledger says \(ledger)", 0)
                }
            }
            return (nil, try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Transfer")))
        }
    }
}
