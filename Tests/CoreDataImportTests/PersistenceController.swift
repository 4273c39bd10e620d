// A persistence controller as Xcode's Core Data app template writes one, with the model built
// in code as Xcode's .xcdatamodeld describes it (the template loads it from there).
import Foundation
import CoreData

final class PersistenceController {
    let container: NSPersistentContainer

    static func model() -> NSManagedObjectModel {
        let item = NSEntityDescription()
        item.name = "Item"
        item.managedObjectClassName = "Item"   // as Xcode writes representedClassName
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        name.isOptional = true
        let score = NSAttributeDescription()
        score.name = "score"
        score.attributeType = .integer64AttributeType
        score.defaultValue = 0
        let timestamp = NSAttributeDescription()
        timestamp.name = "timestamp"
        timestamp.attributeType = .dateAttributeType
        item.properties = [name, score, timestamp]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    init(storeURL: URL, model: NSManagedObjectModel) {
        container = NSPersistentContainer(name: "Items", managedObjectModel: model)
        container.persistentStoreDescriptions.first!.url = storeURL
        var loadError: Error?
        container.loadPersistentStores(completionHandler: { (storeDescription, error) in
            if let error = error as NSError? {
                loadError = error
            }
        })
        if let loadError { fatalError("Unresolved error \(loadError)") }
        container.viewContext.automaticallyMergesChangesFromParent = true
    }
}
