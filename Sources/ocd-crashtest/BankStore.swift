import Foundation
import OCDSQLite
import OpenCoreData

/// Opening, filling and checking the crash test's store.
struct BankStore {
    let url: URL
    let model: NSManagedObjectModel
    /// The store's type: SQLite, or one of the atomic stores (binary, XML), which one process
    /// writes at a time.
    var storeType = NSSQLiteStoreType

    /// A context on a new coordinator with the store added.
    func open() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url,
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

    /// What is wrong with the store, or nil: SQLite's integrity check (an atomic store's file
    /// must load whole), then the bank's invariants, read through a new coordinator. Returns the
    /// number of transfers too.
    func check() throws -> (problem: String?, transfers: Int) {
        guard storeType == NSSQLiteStoreType else {
            do {
                return try check(in: try open())
            } catch {
                return ("the store does not load: \(error)", 0)
            }
        }
        var configuration = SQLiteConnection.Configuration()
        configuration.createIfMissing = false
        let connection = try SQLiteConnection(path: url.path, configuration: configuration)
        let integrity = try connection.rows("PRAGMA integrity_check").compactMap { $0.first?.stringValue }
        guard integrity == ["ok"] else { return ("integrity_check: \(integrity.joined(separator: "; "))", 0) }
        let context = try open()
        return try check(in: context)
    }

    /// The bank's invariants, read through a coordinator that has the store open.
    func check(on coordinator: NSPersistentStoreCoordinator) throws -> (problem: String?, transfers: Int) {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try check(in: context)
    }

    private func check(in context: NSManagedObjectContext) throws -> (problem: String?, transfers: Int) {
        try context.performAndWait {
            let accounts = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account"))
            guard accounts.count == BankModel.accountCount else { return ("\(accounts.count) accounts, expected \(BankModel.accountCount)", 0) }
            let total = accounts.reduce(Int64(0)) { $0 + ($1.value(forKey: "balance") as! Int64) }
            let expected = Int64(BankModel.accountCount) * BankModel.openingBalance
            guard total == expected else { return ("the balances add up to \(total), expected \(expected)", 0) }
            // The ledger summed by the store (a grouped dictionary fetch), so that checking stays
            // cheap however many transfers a run has saved.
            let outgoing = try sums(grouping: "from", in: context), incoming = try sums(grouping: "to", in: context)
            for account in accounts {
                let balance = account.value(forKey: "balance") as! Int64
                let ledger = BankModel.openingBalance + (incoming[account.objectID] ?? 0) - (outgoing[account.objectID] ?? 0)
                guard balance == ledger else {
                    return ("account \(account.value(forKey: "number")!) has \(balance), its ledger says \(ledger)", 0)
                }
            }
            if let problem = try damagedReceipt(in: context) { return (problem, 0) }
            return (nil, try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Transfer")))
        }
    }

    /// With receipts: the first receipt or statement that does not read back whole (a missing
    /// or torn external data file would), or nil.
    private func damagedReceipt(in context: NSManagedObjectContext) throws -> String? {
        for (entity, key) in [("Transfer", "receipt"), ("Account", "statement")] {
            guard model.entitiesByName[entity]?.attributesByName[key] != nil else { continue }
            let objects: [NSManagedObject]
            do {
                objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
            } catch {
                return "the \(key)s can't be read: \(error.localizedDescription)"
            }
            for object in objects {
                guard let data = object.value(forKey: key) as? Data else {
                    if entity == "Transfer" { return "a transfer has no receipt" }
                    continue
                }
                if !Receipt.isIntact(data) { return "a \(key) of \(data.count) bytes is not the one written" }
            }
        }
        return nil
    }

    /// The transfers' amounts summed per account on the `side` ("from" or "to").
    private func sums(grouping side: String, in context: NSManagedObjectContext) throws -> [NSManagedObjectID: Int64] {
        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "amount")])
        total.expressionResultType = .integer64AttributeType
        let request = NSFetchRequest<NSDictionary>(entityName: "Transfer")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = [side, total]
        request.propertiesToGroupBy = [side]
        var sums: [NSManagedObjectID: Int64] = [:]
        for row in try context.fetch(request) {
            guard let account = row[side] as? NSManagedObjectID else { continue }
            sums[account] = (row["total"] as? NSNumber)?.int64Value ?? 0
        }
        return sums
    }
}
