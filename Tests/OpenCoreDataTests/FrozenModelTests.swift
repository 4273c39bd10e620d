import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Once a coordinator uses a model, editing any description of it stops the program, as Core
/// Data raises: a change then would silently disagree with the stores already opened.
@Suite struct FrozenModelTests {
    struct Frozen {
        let model: NSManagedObjectModel
        let entity: NSEntityDescription
        let attribute: NSAttributeDescription
        let relationship: NSRelationshipDescription
    }

    /// Runs `change` on a frozen model's descriptions, keeping the model alive meanwhile (its
    /// entities refer to it weakly).
    static func edit(_ change: (Frozen) -> Void) {
        let frozen = frozen()
        withExtendedLifetime(frozen) { change(frozen) }
    }

    /// A small model, frozen by a coordinator.
    static func frozen() -> Frozen {
        let person = NSEntityDescription(name: "Person")
        let name = NSAttributeDescription(name: "name", type: .stringAttributeType)
        let friends = NSRelationshipDescription(name: "friends", destination: person, toMany: true)
        friends.inverseRelationship = friends
        person.properties = [name, friends]
        let model = NSManagedObjectModel()
        model.entities = [person]
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        return Frozen(model: model, entity: person, attribute: name, relationship: friends)
    }

    @Test func minValue() async { await #expect(processExitsWith: .failure) { FrozenModelTests.edit { $0.attribute.minValue = 1 } } }
    @Test func maxValue() async { await #expect(processExitsWith: .failure) { FrozenModelTests.edit { $0.attribute.maxValue = 9 } } }
    @Test func regularExpression() async {
        await #expect(processExitsWith: .failure) { FrozenModelTests.edit { $0.attribute.regularExpression = "a+" } }
    }
    @Test func valueTransformerName() async {
        await #expect(processExitsWith: .failure) { FrozenModelTests.edit { $0.attribute.valueTransformerName = "T" } }
    }
    @Test func attributeValueClassName() async {
        await #expect(processExitsWith: .failure) { FrozenModelTests.edit { $0.attribute.attributeValueClassName = "NSString" } }
    }
    @Test func propertyUserInfo() async { await #expect(processExitsWith: .failure) { FrozenModelTests.edit { $0.attribute.userInfo = ["k": 1] } } }
    @Test func propertyRenamingIdentifier() async {
        await #expect(processExitsWith: .failure) { FrozenModelTests.edit { $0.attribute.renamingIdentifier = "old" } }
    }
    @Test func entityUserInfo() async { await #expect(processExitsWith: .failure) { FrozenModelTests.edit { $0.entity.userInfo = ["k": 1] } } }
    @Test func entityRenamingIdentifier() async {
        await #expect(processExitsWith: .failure) { FrozenModelTests.edit { $0.entity.renamingIdentifier = "Human" } }
    }
    @Test func deleteRule() async {
        await #expect(processExitsWith: .failure) { FrozenModelTests.edit { $0.relationship.deleteRule = .cascadeDeleteRule } }
    }
    @Test func versionIdentifiers() async { await #expect(processExitsWith: .failure) { FrozenModelTests.edit { $0.model.versionIdentifiers = ["2"] } } }

    /// Reading stays free, and so does editing before a coordinator uses the model.
    @Test func editingBeforeFreezingAndReadingAfterAreFine() {
        let person = NSEntityDescription(name: "Person")
        let name = NSAttributeDescription(name: "name", type: .stringAttributeType)
        name.minValue = 1
        name.regularExpression = "[A-Z].*"
        person.userInfo = ["table": "people"]
        person.properties = [name]
        let model = NSManagedObjectModel()
        model.entities = [person]
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        #expect(name.minValue as? Int == 1)
        #expect(person.userInfo?["table"] as? String == "people")
    }
}
