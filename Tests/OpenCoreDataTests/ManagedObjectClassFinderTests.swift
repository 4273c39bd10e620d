import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

// Classes named by their models the way Xcode writes `representedClassName`: unqualified,
// with a leading dot ("Current Product Module"), or qualified with another app's module.
final class FinderOwner: NSManagedObject {
    @Managed var name: String?
    @Managed var pets: Set<FinderPet>
}

final class FinderPet: NSManagedObject {
    @Managed var name: String?
    @Managed var owner: FinderOwner?
}

final class FinderTag: NSManagedObject {
    @Managed var label: String?
}

class FinderVehicle: NSManagedObject {
    @Managed var wheels: Int16
}

final class FinderBike: FinderVehicle {}

/// Named by no code but a model: found in the module of the classes that are.
final class FinderLoner: NSManagedObject {}

/// Two classes named FinderShelf: only the top-level one is what a model's "FinderShelf" means.
final class FinderShelf: NSManagedObject {}
enum FinderElsewhere {
    final class FinderShelf: NSManagedObject {}
}

/// An entity's class found from the class name its model gives (issue 18, item 5): on Apple's
/// platforms `@objc(Name)` makes an unqualified name unique; on Linux the class is found once
/// code names it or another class of its module.
@Suite struct ManagedObjectClassFinderTests {
    /// Owners with pets, tags, and vehicles with bikes, every class named as Xcode names it.
    static func model() -> NSManagedObjectModel {
        let owner = NSEntityDescription(name: "Owner")
        owner.managedObjectClassName = "FinderOwner"
        let pet = NSEntityDescription(name: "Pet")
        pet.managedObjectClassName = ".FinderPet"
        let pets = NSRelationshipDescription(name: "pets", destination: pet, toMany: true)
        let petOwner = NSRelationshipDescription(name: "owner", destination: owner)
        pets.inverseRelationship = petOwner
        petOwner.inverseRelationship = pets
        owner.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), pets]
        pet.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), petOwner]
        let tag = NSEntityDescription(name: "Tag")
        tag.managedObjectClassName = "SomeOtherApp.FinderTag"
        tag.properties = [NSAttributeDescription(name: "label", type: .stringAttributeType)]
        let vehicle = NSEntityDescription(name: "Vehicle")
        vehicle.managedObjectClassName = "FinderVehicle"
        vehicle.properties = [NSAttributeDescription(name: "wheels", type: .integer16AttributeType, defaultValue: 2)]
        let bike = NSEntityDescription(name: "Bike")
        bike.managedObjectClassName = "FinderBike"
        let unicycle = NSEntityDescription(name: "Unicycle")   // names no class: its superentity's
        vehicle.subentities = [bike, unicycle]
        let model = NSManagedObjectModel()
        model.entities = [owner, pet, tag, vehicle, bike, unicycle]
        return model
    }

    @Test func unqualifiedClassNamesFindTheirClassesAfterAReopen() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        let ada = FinderOwner(context: stack.context)
        ada.name = "Ada"
        for name in ["Rex", "Fido"] {
            let pet = FinderPet(context: stack.context)
            pet.name = name
            pet.owner = ada
        }
        try stack.context.save()
        try stack.reopen()

        let owners = try stack.context.fetch(NSFetchRequest<FinderOwner>(entityName: "Owner"))
        #expect(owners.map(\.name) == ["Ada"])
        // A `Set<FinderPet>` keeps only FinderPets: both are, though the model says ".FinderPet".
        let pets = try #require(owners.first).pets
        #expect(pets.compactMap(\.name).sorted() == ["Fido", "Rex"])
        #expect(pets.allSatisfy { $0.owner === owners.first })
    }

    @Test func untypedFetchesMakeObjectsOfTheirClasses() throws {
        NSManagedObjectModel.registerManagedObjectClasses([FinderTag.self, FinderVehicle.self, FinderBike.self])
        let stack = try TestStack(.sqlite, model: Self.model())
        let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: stack.context)
        tag.setValue("red", forKey: "label")
        let bike = NSEntityDescription.insertNewObject(forEntityName: "Bike", into: stack.context)
        _ = NSEntityDescription.insertNewObject(forEntityName: "Unicycle", into: stack.context)
        try stack.context.save()
        try stack.reopen()

        #expect(tag is FinderTag)
        #expect(bike is FinderBike)
        // "SomeOtherApp.FinderTag": no module SomeOtherApp here, so the class of this one's name.
        let tags = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
        #expect((tags.first as? FinderTag)?.label == "red")
        let vehicles = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Vehicle"))
        #expect(vehicles.count == 2)
        #expect(vehicles.filter { $0 is FinderBike }.count == 1)
        // An entity that names no class makes objects of its superentity's.
        let unicycle = try #require(vehicles.first { $0.entity.name == "Unicycle" })
        #expect(type(of: unicycle) == FinderVehicle.self)
        #expect((unicycle as? FinderVehicle)?.wheels == 2)
    }

    @Test func aClassFindsItsEntityByTheNameTheModelGives() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        #expect(FinderOwner.entity().name == "Owner")
        #expect(FinderPet.entity(in: stack.context)?.name == "Pet")
        #expect(stack.model.entitiesByName["Pet"]?.managedObjectClass == FinderPet.self)
        #expect(stack.model.entitiesByName["Unicycle"]?.managedObjectClass == FinderVehicle.self)
        let request = FinderOwner.fetchRequest()
        #expect(request.entityName == "Owner")
    }

    @Test func aClassTwoEntitiesNameFindsNeither() throws {
        let model = Self.model()
        let other = NSEntityDescription(name: "OtherOwner")
        other.managedObjectClassName = "FinderOwner"
        other.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType),
                            NSRelationshipDescription(name: "pets", destination: model.entitiesByName["Pet"]!, toMany: true)]
        model.entities += [other]
        let stack = try TestStack(.inMemory, model: model)
        #expect(FinderOwner.entity(in: stack.context) == nil)
        // The objects still are of the class both name.
        let owner = NSEntityDescription.insertNewObject(forEntityName: "OtherOwner", into: stack.context)
        #expect(owner is FinderOwner)
    }

    @Test func aNameNoClassAnswersMakesManagedObjects() throws {
        let model = Self.model()
        model.entitiesByName["Tag"]!.managedObjectClassName = "NoSuchClassAnywhere"
        let stack = try TestStack(.sqlite, model: model)
        let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: stack.context)
        tag.setValue("blue", forKey: "label")
        try stack.context.save()
        try stack.reopen()
        let tags = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
        #expect(tags.count == 1)
        #expect(type(of: try #require(tags.first)) == NSManagedObject.self)
        #expect(tags.first?.value(forKey: "label") as? String == "blue")
    }

    @Test func aClassNoCodeNamesIsFoundInTheModuleOfOnesThatAre() {
        ManagedObjectClassFinder.announce(FinderOwner.self)
        #expect(ManagedObjectClassFinder.managedObjectClass(named: "FinderLoner") == FinderLoner.self)
        #expect(ManagedObjectClassFinder.managedObjectClass(named: ".FinderLoner") == FinderLoner.self)
        #expect(ManagedObjectClassFinder.managedObjectClass(named: "OpenCoreDataTests.FinderLoner") == FinderLoner.self)
        #expect(ManagedObjectClassFinder.managedObjectClass(named: "NoSuchClassAnywhere") == nil)
        #expect(ManagedObjectClassFinder.managedObjectClass(named: "NSManagedObject") == nil)
        #expect(ManagedObjectClassFinder.managedObjectClass(named: "") == nil)
    }

    @Test func anUnqualifiedNameMeansATopLevelClassAndCodeSettlesTheRest() throws {
        ManagedObjectClassFinder.announce(FinderElsewhere.FinderShelf.self)
        ManagedObjectClassFinder.announce(FinderShelf.self)
        #expect(ManagedObjectClassFinder.managedObjectClass(named: "FinderShelf") == FinderShelf.self)
        #expect(ManagedObjectClassFinder.name("FinderShelf", canMean: FinderElsewhere.FinderShelf.self))
        #expect(!ManagedObjectClassFinder.name("OpenCoreDataTests.FinderShelf", canMean: FinderOwner.self))

        let shelf = NSEntityDescription(name: "Shelf")
        shelf.managedObjectClassName = "FinderShelf"
        let model = NSManagedObjectModel()
        model.entities = [shelf]
        let stack = try TestStack(.inMemory, model: model)
        #expect(FinderShelf(context: stack.context).entity === shelf)
        #expect(NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: stack.context) is FinderShelf)
        // The nested class of the same name is not this entity's: its class is settled.
        #expect(FinderElsewhere.FinderShelf.entity(in: stack.context) == nil)
    }

    @Test func aClassWhoseManagedPropertiesTheEntityLacksIsNotItsClass() throws {
        ManagedObjectClassFinder.announce(FinderPet.self)
        // Another model's entity that happens to name FinderPet, without FinderPet's properties.
        let label = NSEntityDescription(name: "Label")
        label.managedObjectClassName = "FinderPet"
        label.properties = [NSAttributeDescription(name: "text", type: .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [label]
        let stack = try TestStack(.inMemory, model: model)
        let object = NSEntityDescription.insertNewObject(forEntityName: "Label", into: stack.context)
        #expect(type(of: object) == NSManagedObject.self)
        object.setValue("kept", forKey: "text")
        try stack.context.save()
    }
}
