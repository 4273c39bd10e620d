import OpenCoreData

/// The crash test's model: accounts with balances, and a ledger of transfers between them.
/// Its invariants hold after every save, so they hold in any store a crash leaves behind:
/// the balances add up to what the bank started with, and each account's balance is its
/// opening balance plus what the ledger says came in, minus what went out.
enum BankModel {
    static let accountCount = 16
    static let openingBalance: Int64 = 1_000

    static func make() -> NSManagedObjectModel {
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
        transfer.properties = [
            NSAttributeDescription(name: "amount", type: .integer64AttributeType, optional: false),
            NSAttributeDescription(name: "writer", type: .integer64AttributeType, optional: false),
            from, to,
        ]
        let model = NSManagedObjectModel()
        model.entities = [account, transfer]
        return model
    }
}
