import OpenCoreData

/// The crash test's model: accounts with balances, and a ledger of transfers between them.
/// Its invariants hold after every save, so they hold in any store a crash leaves behind:
/// the balances add up to what the bank started with, and each account's balance is its
/// opening balance plus what the ledger says came in, minus what went out.
enum BankModel {
    static let accountCount = 16
    static let openingBalance: Int64 = 1_000

    /// With `receipts`, every transfer carries a receipt and every account a statement of its
    /// last transfer: binary values that allow external storage, some above the 128 KiB that
    /// sends them to files (`Receipt`), so that kills land while files are written and deleted.
    static func make(receipts: Bool = false) -> NSManagedObjectModel {
        let account = NSEntityDescription(name: "Account")
        let transfer = NSEntityDescription(name: "Transfer")
        let outgoing = NSRelationshipDescription(name: "outgoing", destination: transfer, toMany: true, deleteRule: .denyDeleteRule)
        let incoming = NSRelationshipDescription(name: "incoming", destination: transfer, toMany: true, deleteRule: .denyDeleteRule)
        let from = NSRelationshipDescription(name: "from", destination: account)
        let to = NSRelationshipDescription(name: "to", destination: account)
        outgoing.inverseRelationship = from
        from.inverseRelationship = outgoing
        incoming.inverseRelationship = to
        to.inverseRelationship = incoming
        from.isOptional = false
        to.isOptional = false
        account.properties = [
            NSAttributeDescription(name: "number", type: .integer64AttributeType, optional: false),
            NSAttributeDescription(name: "balance", type: .integer64AttributeType, optional: false),
            outgoing, incoming,
        ]
        account.uniquenessConstraints = [["number"]]
        if receipts {
            account.properties.append(Receipt.attribute("statement"))
        }
        transfer.properties = [
            NSAttributeDescription(name: "amount", type: .integer64AttributeType, optional: false),
            NSAttributeDescription(name: "writer", type: .integer64AttributeType, optional: false),
            from, to,
        ]
        if receipts {
            transfer.properties.append(Receipt.attribute("receipt"))
        }
        let model = NSManagedObjectModel()
        model.entities = [account, transfer]
        return model
    }
}
