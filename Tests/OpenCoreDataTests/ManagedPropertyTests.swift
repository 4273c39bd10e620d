import Foundation
import Testing
@testable import OpenCoreData

final class TypedPerson: NSManagedObject {
    @Managed var name: String
    @Managed var age: Int64
    @Managed var email: String?
    @Managed var height: Double
    @Managed var active: Bool
    @Managed var born: Date?
    @Managed var pets: Set<TypedPet>
}

final class TypedPet: NSManagedObject {
    @Managed var name: String?
    @Managed var weight: Double
    @Managed var owner: TypedPerson?
}

@Suite struct ManagedPropertyTests {
    private func makeStack(_ kind: StoreKind) throws -> TestStack {
        let model = TestModel.make()
        model.entitiesByName["Person"]!.managedObjectClass = TypedPerson.self
        model.entitiesByName["Pet"]!.managedObjectClass = TypedPet.self
        return try TestStack(kind, model: model)
    }

    @Test(arguments: StoreKind.allCases)
    func typedPropertiesRoundTripThroughTheStore(kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let person = TypedPerson(context: stack.context)
        person.name = "Grace"
        person.age = 85
        person.email = "grace@navy.mil"
        person.height = 1.7
        person.active = true
        let pet = TypedPet(context: stack.context)
        pet.name = "Bug"
        pet.weight = 0.1
        pet.owner = person
        #expect(person.pets == [pet])
        #expect(person.value(forKey: "email") as? String == "grace@navy.mil")
        try stack.context.save()
        try stack.reopen()

        let request = NSFetchRequest<TypedPerson>(entityName: "Person")
        let fetched = try #require(try stack.context.fetch(request).first)
        #expect(fetched.name == "Grace")
        #expect(fetched.age == 85)
        #expect(fetched.email == "grace@navy.mil")
        #expect(fetched.height == 1.7)
        #expect(fetched.active)
        #expect(fetched.born == nil)
        #expect(fetched.pets.map(\.name) == ["Bug"])
        #expect(fetched.pets.first?.owner === fetched)
    }

    @Test func settingThroughTheWrapperTracksChangesAndInverses() throws {
        let stack = try makeStack(.sqlite)
        let person = TypedPerson(context: stack.context)
        person.name = "A"
        try stack.context.save()
        person.email = nil
        #expect(!person.hasChanges || person.changedValues().isEmpty)
        person.age = 3
        #expect(person.isUpdated)
        #expect(person.changedValues()["age"] as? Int == 3)
        let pet = TypedPet(context: stack.context)
        person.pets = [pet]
        #expect(pet.owner === person)
        pet.owner = nil
        #expect(person.pets.isEmpty)
    }
}
