import Foundation
import OpenCoreData

/// `ocd history STORE [--after N|DATE] [--author NAME] [--json]`: the persistent history a
/// SQLite store records — OpenCoreData's or Apple's Core Data's — transaction by transaction,
/// with their changes. The store is opened read-only and left as it was.
enum HistoryCommand {
    static func run(_ arguments: [String]) -> Int32 {
        Output.exitCode {
            var rest: [String] = []
            var after: String?
            var author: String?
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "--after":
                    guard let value = remaining.popFirst() else { throw UsageError("--after needs a transaction number or a date") }
                    after = value
                case "--author":
                    guard let value = remaining.popFirst() else { throw UsageError("--author needs a name") }
                    author = value
                default:
                    rest.append(argument)
                }
            }
            let options = try CommandOptions(rest, allowsModel: true)
            let url = try options.existingPath(what: "store")
            let transactions = try read(url, modelPath: options.modelPath, after: try after.map(Boundary.init), author: author)
            if options.json {
                try Output.printJSON(HistoryReport(store: url.path, transactions: transactions.map(HistoryReport.Transaction.init)))
            } else {
                for transaction in transactions { print(text(of: transaction)) }
                if transactions.isEmpty { print("No transactions.") }
            }
        }
    }

    /// Where to start: after a transaction number, or after a date (ISO 8601).
    enum Boundary {
        case transaction(Int64)
        case date(Date)

        init(_ text: String) throws {
            if let number = Int64(text) {
                self = .transaction(number)
            } else if let date = ISO8601DateFormatter().date(from: text) {
                self = .date(date)
            } else {
                throw UsageError("--after takes a transaction number or an ISO 8601 date (2026-12-01T09:30:00Z), not '\(text)'")
            }
        }
    }

    private static func read(_ url: URL, modelPath: String?, after: Boundary?, author: String?) throws -> [NSPersistentHistoryTransaction] {
        let (model, _) = try StoreCommand.model(for: url, modelPath: modelPath)
        StoreCommand.registerStandInTransformers(for: model)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [
            NSReadOnlyPersistentStoreOption: true, OCDSQLiteReadImmutableOption: true, NSPersistentHistoryTrackingKey: true,
        ])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        // After a number: everything, then the transactions above it, so that a number before
        // deleted history or past the last transaction lists what there is rather than failing
        // as an expired token does.
        let request: NSPersistentHistoryChangeRequest = switch after {
        case .date(let date)?: .fetchHistory(after: date)
        case .transaction?, nil: .fetchHistory(after: nil as NSPersistentHistoryToken?)
        }
        if let author {
            let filter = NSPersistentHistoryTransaction.fetchRequest!
            filter.predicate = NSPredicate(format: "author == %@", author)
            request.fetchRequest = filter
        }
        let transactions = try context.performAndWait {
            (try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
        }
        guard case .transaction(let number)? = after else { return transactions }
        return transactions.filter { $0.transactionNumber > number }
    }

    private static func text(of transaction: NSPersistentHistoryTransaction) -> String {
        var lines = ["Transaction \(transaction.transactionNumber) at \(ISO8601DateFormatter().string(from: transaction.timestamp))"
            + " by \(transaction.author ?? "no author") (context \(transaction.contextName ?? "unnamed"),"
            + " \(transaction.processID), \(transaction.bundleID)): \(transaction.changes?.count ?? 0) changes"]
        for change in transaction.changes ?? [] {
            let kind = ["insert", "update", "delete"][change.changeType.rawValue]
            var line = "  \(kind) \(change.changedObjectID.uriRepresentation().absoluteString)"
            if let properties = change.updatedProperties { line += " " + properties.map(\.name).sorted().joined(separator: ", ") }
            if let tombstone = change.tombstone, !tombstone.isEmpty {
                line += " (kept: " + tombstone.map { "\($0.key) = \($0.value)" }.sorted().joined(separator: ", ") + ")"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

/// `ocd history --json` (Docs/ocd-json.md).
struct HistoryReport: Encodable {
    let store: String
    let transactions: [Transaction]

    struct Transaction: Encodable {
        let number: Int64
        let timestamp: JSONValue
        let author: String?
        let contextName: String?
        let bundleID: String
        let processID: String
        let changes: [Change]

        init(_ transaction: NSPersistentHistoryTransaction) {
            number = transaction.transactionNumber
            timestamp = JSONValue(transaction.timestamp, type: .dateAttributeType)
            author = transaction.author
            contextName = transaction.contextName
            bundleID = transaction.bundleID
            processID = transaction.processID
            changes = (transaction.changes ?? []).map(Change.init)
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(number, forKey: .number)
            try container.encode(timestamp, forKey: .timestamp)
            try container.encode(author, forKey: .author)  // null when there is none, not left out
            try container.encode(contextName, forKey: .contextName)
            try container.encode(bundleID, forKey: .bundleID)
            try container.encode(processID, forKey: .processID)
            try container.encode(changes, forKey: .changes)
        }

        private enum CodingKeys: String, CodingKey { case number, timestamp, author, contextName, bundleID, processID, changes }
    }

    struct Change: Encodable {
        let id: Int64
        let type: String
        let entity: String
        let uri: String
        let updatedProperties: [String]?
        let tombstone: [String: JSONValue]?

        init(_ change: NSPersistentHistoryChange) {
            id = change.changeID
            type = ["insert", "update", "delete"][change.changeType.rawValue]
            entity = change.changedObjectID.entity.name ?? ""
            uri = change.changedObjectID.uriRepresentation().absoluteString
            updatedProperties = change.updatedProperties?.map(\.name).sorted()
            let attributes = change.changedObjectID.entity.attributesByName
            tombstone = change.tombstone.map { values in
                values.reduce(into: [String: JSONValue]()) { result, entry in
                    let name = "\(entry.key)"
                    result[name] = JSONValue(entry.value, type: attributes[name]?.attributeType ?? .stringAttributeType)
                }
            }
        }
    }
}
