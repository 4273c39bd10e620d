import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

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

class TypedAnimal: NSManagedObject {
    @Managed var legs: Int16
}

final class TypedDog: TypedAnimal {
    @Managed var breed: String?
}

final class TypedBird: TypedAnimal {
    @Managed var wingspan: Double
}

/// One class for two entities whose `title` sits in different slots.
final class TypedTitled: NSManagedObject {
    @Managed var title: String?
}

@Suite struct ManagedPropertyTests {
    private func makeStack(_ kind: StoreKind) throws -> TestStack {
        let model = TestModel.make()
        model.entitiesByName["Person"]!.managedObjectClass = TypedPerson.self
        model.entitiesByName["Pet"]!.managedObjectClass = TypedPet.self
        return try TestStack(kind, model: model)
    }

    /// A value `setValue(_:forKey:)` refused (and kept to report at save) no longer stands once
    /// the property is given a value through `@Managed`, attribute or relationship alike.
    @Test(arguments: StoreKind.allCases)
    func aManagedSetterClearsAnEarlierRefusal(kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let person = TypedPerson(context: stack.context)
        person.name = "Grace"
        person.setValue("old", forKey: "age")
        let pet = TypedPet(context: stack.context)
        pet.setValue("Grace", forKey: "owner")
        let refused = #expect(throws: NSError.self) { try stack.context.save() }
        #expect(refused?.code == 1560)
        person.age = 85
        pet.owner = person
        try stack.context.save()
        let reader = stack.newContext()
        #expect(try stack.fetch("Person", in: reader).first?.value(forKey: "age") as? Int == 85)
        let savedPet = try #require(try stack.fetch("Pet", in: reader).first)
        #expect((savedPet.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String == "Grace")
    }

    /// An object of another context is refused by a `@Managed` relationship as by `setValue`:
    /// the property keeps its value and the next save fails naming it (Core Data raises).
    @Test(arguments: StoreKind.allCases)
    func aManagedRelationshipRefusesAnObjectOfAnotherContext(kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let other = stack.newContext()
        let stranger = TypedPerson(context: other)
        let pet = TypedPet(context: stack.context)
        pet.owner = stranger
        #expect(pet.owner == nil)
        let refused = #expect(throws: NSError.self) { try stack.context.save() }
        #expect(refused?.code == 1550 && refused?.userInfo[NSValidationKeyErrorKey] as? String == "owner")
        let person = TypedPerson(context: stack.context)
        person.name = "Grace"
        person.pets = [pet, TypedPet(context: other)]
        #expect(person.pets.isEmpty)
        pet.owner = person
        person.pets = [pet]
        try stack.context.save()
        #expect(person.pets == [pet])
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

    @Test(arguments: StoreKind.allCases)
    func inheritedWrappersReadTheirOwnEntitysSlots(kind: StoreKind) throws {
        let model = TestModel.make()
        model.entitiesByName["Animal"]!.managedObjectClass = TypedAnimal.self
        model.entitiesByName["Dog"]!.managedObjectClass = TypedDog.self
        model.entitiesByName["Bird"]!.managedObjectClass = TypedBird.self
        let stack = try TestStack(kind, model: model)
        let dog = TypedDog(context: stack.context)
        dog.breed = "Collie"
        dog.legs = 4
        let bird = TypedBird(context: stack.context)
        bird.wingspan = 0.3
        bird.legs = 2
        try stack.context.save()
        try stack.reopen()

        let animals = try stack.context.fetch(NSFetchRequest<TypedAnimal>(entityName: "Animal"))
        let fetchedDog = try #require(animals.compactMap { $0 as? TypedDog }.first)
        let fetchedBird = try #require(animals.compactMap { $0 as? TypedBird }.first)
        #expect(fetchedDog.legs == 4 && fetchedDog.breed == "Collie")
        #expect(fetchedBird.legs == 2 && fetchedBird.wingspan == 0.3)
        #expect(fetchedDog.value(forKey: "legs") as? Int == 4)
    }

    @Test func oneClassForTwoEntitiesFindsEachEntitysProperty() throws {
        let first = NSEntityDescription(name: "First")
        first.properties = [NSAttributeDescription(name: "rank", type: .integer64AttributeType),
                            NSAttributeDescription(name: "title", type: .stringAttributeType)]
        let second = NSEntityDescription(name: "Second")
        second.properties = [NSAttributeDescription(name: "title", type: .stringAttributeType)]
        first.managedObjectClass = TypedTitled.self
        second.managedObjectClass = TypedTitled.self
        let model = NSManagedObjectModel()
        model.entities = [first, second]
        let stack = try TestStack(.sqlite, model: model)
        let a = TypedTitled(entity: first, insertInto: stack.context)
        let b = TypedTitled(entity: second, insertInto: stack.context)
        a.title = "first"
        a.setValue(7, forKey: "rank")
        b.title = "second"
        try stack.context.save()
        try stack.reopen()

        let firsts = try stack.context.fetch(NSFetchRequest<TypedTitled>(entityName: "First"))
        let seconds = try stack.context.fetch(NSFetchRequest<TypedTitled>(entityName: "Second"))
        #expect(firsts.map(\.title) == ["first"])
        #expect(seconds.map(\.title) == ["second"])
        #expect(firsts.first?.value(forKey: "rank") as? Int == 7)
    }

    @Test func aKeyPathUsedAfterItsPropertyWasReadStillNamesIt() throws {
        let stack = try makeStack(.sqlite)
        let person = TypedPerson(context: stack.context)
        person.name = "Ada"
        person.age = 36
        _ = person.age  // resolved through the accessor first…
        try stack.context.save()
        // …then named by a key path, as #Predicate and NSSortDescriptor(keyPath:) do.
        let request = NSFetchRequest<TypedPerson>(entityName: "Person")
        request.predicate = NSPredicate(#Predicate<TypedPerson> { $0.age > 30 })
        request.sortDescriptors = [NSSortDescriptor(keyPath: \TypedPerson.name, ascending: true)]
        #expect(try stack.context.fetch(request).map(\.name) == ["Ada"])
    }
}
