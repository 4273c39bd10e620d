import OpenCoreData

/// The example's model, built in code: journal entries with an `age` and a `time`, each at a
/// place; deleting a place deletes its entries.
enum ExampleModel {
    static func make() -> NSManagedObjectModel {
        let entry = NSEntityDescription(name: "Entry")
        let age = NSAttributeDescription(name: "age", type: .integer64AttributeType, optional: false, defaultValue: 0)
        let time = NSAttributeDescription(name: "time", type: .dateAttributeType, optional: false)
        let note = NSAttributeDescription(name: "note", type: .stringAttributeType)

        let place = NSEntityDescription(name: "Place")
        let name = NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false)
        place.uniquenessConstraints = [["name"]]

        let entries = NSRelationshipDescription(name: "entries", destination: entry, toMany: true, deleteRule: .cascadeDeleteRule)
        let at = NSRelationshipDescription(name: "place", destination: place)
        entries.inverseRelationship = at
        at.inverseRelationship = entries

        entry.properties = [age, time, note, at]
        place.properties = [name, entries]
        let model = NSManagedObjectModel()
        model.entities = [entry, place]
        return model
    }
}
