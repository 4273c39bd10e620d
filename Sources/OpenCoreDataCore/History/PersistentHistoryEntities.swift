import Foundation

/// The entities that describe history transactions and changes to a fetch request
/// (`NSPersistentHistoryTransaction.fetchRequest`, `NSPersistentHistoryChange.fetchRequest`),
/// in a model of their own: they are not entities of the application's model and have no table.
enum PersistentHistoryEntities {
    static let transactionName = "NSPersistentHistoryTransaction"
    static let changeName = "NSPersistentHistoryChange"

    static var transaction: NSEntityDescription { model.entitiesByName[transactionName]! }
    static var change: NSEntityDescription { model.entitiesByName[changeName]! }

    private static let model: NSManagedObjectModel = {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }
        let transaction = NSEntityDescription()
        transaction.name = transactionName
        transaction.properties = [
            attribute("author", .stringAttributeType), attribute("bundleID", .stringAttributeType),
            attribute("contextName", .stringAttributeType), attribute("processID", .stringAttributeType),
            attribute("storeID", .stringAttributeType), attribute("timestamp", .dateAttributeType),
            attribute("transactionNumber", .integer64AttributeType),
        ]
        let change = NSEntityDescription()
        change.name = changeName
        change.properties = [
            attribute("changeID", .integer64AttributeType), attribute("changeType", .integer64AttributeType),
            attribute("changedEntity", .stringAttributeType), attribute("changedObjectID", .objectIDAttributeType),
            attribute("transactionNumber", .integer64AttributeType),
        ]
        let model = NSManagedObjectModel()
        model.entities = [transaction, change]
        return model
    }()
}
