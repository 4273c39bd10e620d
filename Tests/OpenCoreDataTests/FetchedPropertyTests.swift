import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Fetched properties: declared in the model (code or Xcode), read with `value(forKey:)`.
@Suite struct FetchedPropertyTests {
    /// Person gains `namesakes`: the pets named like their owner, `$FETCH_SOURCE` being the person.
    static func model() throws -> NSManagedObjectModel {
        let model = TestModel.make()
        let namesakes = NSFetchedPropertyDescription(name: "namesakes")
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Pet")
        request.predicate = try NSPredicate(validatingFormat: "name == $FETCH_SOURCE.name")
        namesakes.fetchRequest = request
        let person = model.entitiesByName["Person"]!
        person.properties = person.properties + [namesakes]
        return model
    }

    @Test(arguments: StoreKind.allCases)
    func aFetchedPropertyFetchesWithItsSource(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: try Self.model())
        let ada = stack.insert("Person", ["name": "Ada"])
        _ = stack.insert("Person", ["name": "Bo"])
        for name in ["Ada", "Ada", "Rex"] { _ = stack.insert("Pet", ["name": name]) }
        try stack.context.save()
        try stack.reopen()
        let people = try stack.fetch("Person", sortedBy: "name")
        #expect((people[0].value(forKey: "namesakes") as? [NSManagedObject])?.count == 2)
        #expect((people[1].value(forKey: "namesakes") as? [NSManagedObject])?.isEmpty == true)
        #expect(ada.entity.propertiesByName["namesakes"] is NSFetchedPropertyDescription)
    }
}
