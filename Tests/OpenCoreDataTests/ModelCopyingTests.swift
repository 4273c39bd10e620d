import Foundation
import Testing
import OpenCoreData

/// `NSCopying` of the model classes. Apple's documentation of `NSEntityDescription` and
/// `NSManagedObjectModel`: a model in use cannot be changed — "create a copy, modify the copy,
/// and then discard the objects with the old model".
@Suite struct ModelCopyingTests {
    /// The test model, with what only a copy must carry over besides: a fetch index, a
    /// configuration, a fetch request template and a fetched property.
    private func richModel() -> NSManagedObjectModel {
        let model = TestModel.make()
        let person = model.entitiesByName["Person"]!
        let age = person.propertiesByName["age"]!
        person.indexes = [NSFetchIndexDescription(name: "byAge", elements: [NSFetchIndexElementDescription(property: age, collationType: .binary)])]
        person.uniquenessConstraints = [["email"], [person.propertiesByName["name"]!, "born"]]
        let club = model.entitiesByName["Club"]!
        let heavyPets = NSFetchedPropertyDescription(name: "heavyPets")
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Pet")
        request.entity = model.entitiesByName["Pet"]
        request.predicate = NSPredicate(format: "weight > 10")
        heavyPets.fetchRequest = request
        club.properties.append(heavyPets)
        model.setEntities([person, model.entitiesByName["Pet"]!], forConfigurationName: "People")
        let adults = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
        adults.entity = person
        adults.predicate = NSPredicate(format: "age >= $AGE")
        model.setFetchRequestTemplate(adults, forName: "Adults")
        model.versionIdentifiers = ["v2"]
        return model
    }

    @Test func aModelInUseIsChangedThroughItsCopyAndTheCopyOpensTheSameStore() throws {
        let stack = try TestStack(.sqlite)
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        person.setValue("Ada", forKey: "name")
        try stack.context.save()
        #expect(stack.model.isFrozen)

        let copy = try #require(stack.model.copy() as? NSManagedObjectModel)
        #expect(!copy.isFrozen)
        // Same version hashes: the copy opens the store without a migration.
        for entity in stack.model.entities {
            #expect(copy.entitiesByName[entity.name!]?.versionHash == entity.versionHash, "\(entity.name!)")
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: copy)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: stack.storeURL,
                                           options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let found = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(found.map { $0.value(forKey: "name") as? String } == ["Ada"])
        #expect(found.first?.entity === copy.entitiesByName["Person"])
    }

    /// A copy of the model a store keeps, with an entity added, opens the store: the store's
    /// own entity numbers are found, and the new entity is numbered after them.
    @Test func aCopyOfAStoresCachedModelOpensItWithANewEntity() throws {
        let stack = try TestStack(.sqlite)
        let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: stack.context)
        pet.setValue("Rex", forKey: "name")
        try stack.context.save()
        let cached = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: stack.storeURL)
        let copy = try #require(cached.copy() as? NSManagedObjectModel)
        let aardvark = NSEntityDescription(name: "Aardvark")
        aardvark.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType)]
        copy.entities.append(aardvark)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: copy)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: stack.storeURL,
                                           options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let newcomer = NSEntityDescription.insertNewObject(forEntityName: "Aardvark", into: context)
        newcomer.setValue("Arthur", forKey: "name")
        try context.save()
        context.reset()
        #expect(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet")).map { $0.value(forKey: "name") as? String } == ["Rex"])
        #expect(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Aardvark")).map { $0.value(forKey: "name") as? String } == ["Arthur"])
    }

    @Test func aCopyChangesWithoutChangingTheOriginal() throws {
        let model = TestModel.make()
        let copy = try #require(model.copy() as? NSManagedObjectModel)
        let person = try #require(copy.entitiesByName["Person"])
        person.properties.append(NSAttributeDescription(name: "note", type: .stringAttributeType))
        person.propertiesByName["age"]?.isOptional = false
        (person.propertiesByName["pets"] as? NSRelationshipDescription)?.deleteRule = .denyDeleteRule
        copy.entities.first { $0.name == "Club" }?.name = "Society"

        let original = try #require(model.entitiesByName["Person"])
        #expect(original.propertiesByName["note"] == nil)
        #expect(original.propertiesByName["age"]?.isOptional == true)
        #expect((original.propertiesByName["pets"] as? NSRelationshipDescription)?.deleteRule == .cascadeDeleteRule)
        #expect(model.entitiesByName["Club"] != nil && model.entitiesByName["Society"] == nil)
        #expect(original.versionHash != person.versionHash)
    }

    @Test func everyReferenceInACopiedModelLeadsToTheCopies() throws {
        let model = richModel()
        let copy = try #require(model.copy() as? NSManagedObjectModel)
        let originals = Set(model.entities.map(ObjectIdentifier.init))
        #expect(copy.entities.map(\.name) == model.entities.map(\.name))
        #expect(copy.entities.allSatisfy { !originals.contains(ObjectIdentifier($0)) && $0.managedObjectModel === copy })

        let person = try #require(copy.entitiesByName["Person"])
        let pet = try #require(copy.entitiesByName["Pet"])
        let pets = try #require(person.relationshipsByName["pets"])
        let owner = try #require(pet.relationshipsByName["owner"])
        #expect(pets.destinationEntity === pet && owner.destinationEntity === person)
        #expect(pets.inverseRelationship === owner && owner.inverseRelationship === pets)
        #expect(pets.isToMany && pets.deleteRule == .cascadeDeleteRule)
        #expect(copy.entitiesByName["Playlist"]?.relationshipsByName["songs"]?.isOrdered == true)

        let animal = try #require(copy.entitiesByName["Animal"])
        #expect(animal.isAbstract)
        #expect(animal.subentities.map(\.name) == ["Dog", "Bird"])
        #expect(animal.subentities.allSatisfy { $0.superentity === animal && $0 === copy.entitiesByName[$0.name!] })
        #expect(copy.entitiesByName["Dog"]?.propertiesByName["legs"] === animal.propertiesByName["legs"])

        #expect(copy.entities(forConfigurationName: "People")?.map(ObjectIdentifier.init) == [person, pet].map(ObjectIdentifier.init))

        let index = try #require(person.indexes.first)
        #expect(index.name == "byAge" && index.entity === person)
        #expect(index.elements.first?.property === person.propertiesByName["age"])
        #expect(index.elements.first?.indexDescription === index)
        #expect(person.uniquenessConstraints.first as? [String] == ["email"])
        let second = try #require(person.uniquenessConstraints.last)
        #expect(second.first as? NSPropertyDescription === person.propertiesByName["name"])
        #expect(second.last as? String == "born")

        let template = try #require(copy.fetchRequestTemplate(forName: "Adults"))
        #expect(template.entity === person && template !== model.fetchRequestTemplate(forName: "Adults"))
        #expect(template.predicate?.predicateFormat == "age >= $AGE")
        let heavyPets = try #require(copy.entitiesByName["Club"]?.propertiesByName["heavyPets"] as? NSFetchedPropertyDescription)
        #expect(heavyPets.fetchRequest?.entity === pet)
        #expect(copy.versionIdentifiers == model.versionIdentifiers)
    }

    @Test func attributeCopiesKeepEverySetting() throws {
        let attribute = NSAttributeDescription(name: "score", type: .integer32AttributeType, optional: false, defaultValue: 7)
        attribute.minValue = 1
        attribute.maxValue = 10
        attribute.isIndexed = true
        attribute.isTransient = true
        attribute.userInfo = ["unit": "points"]
        attribute.versionHashModifier = "v2"
        attribute.renamingIdentifier = "points"
        attribute.preservesValueInHistoryOnDeletion = true
        attribute.allowsExternalBinaryDataStorage = true
        attribute.valueTransformerName = "NSSecureUnarchiveFromData"
        attribute.attributeValueClassName = "NSNumber"
        let entity = NSEntityDescription(name: "Game")
        entity.properties = [attribute]

        let copy = try #require(attribute.copy() as? NSAttributeDescription)
        #expect(copy !== attribute && copy.entity == nil)
        #expect(copy.name == "score" && copy.attributeType == .integer32AttributeType && !copy.isOptional)
        #expect(copy.defaultValue as? Int == 7 && copy.minValue as? Int == 1 && copy.maxValue as? Int == 10)
        #expect(copy.isIndexed && copy.isTransient && copy.preservesValueInHistoryOnDeletion && copy.allowsExternalBinaryDataStorage)
        #expect(copy.userInfo?["unit"] as? String == "points")
        #expect(copy.versionHashModifier == "v2" && copy.renamingIdentifier == "points")
        #expect(copy.valueTransformerName == "NSSecureUnarchiveFromData" && copy.attributeValueClassName == "NSNumber")
        #expect(copy.validationPredicates.map(\.predicateFormat) == attribute.validationPredicates.map(\.predicateFormat))
        #expect(copy.versionHash == attribute.versionHash)

        copy.name = "points"
        copy.maxValue = 100
        #expect(attribute.name == "score" && attribute.maxValue as? Int == 10)
    }

    @Test func customValidationRulesAreCopied() throws {
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        title.setValidationPredicates([NSPredicate(format: "length >= 3")], withValidationWarnings: ["Too short"])
        let copy = try #require(title.copy() as? NSAttributeDescription)
        #expect(copy.validationPredicates.map(\.predicateFormat) == ["length >= 3"])
        #expect(copy.validationWarnings as? [String] == ["Too short"])
    }

    @Test func eachKindOfPropertyCopiesAsItsKind() throws {
        let derived = NSDerivedAttributeDescription(name: "count", type: .integer64AttributeType)
        derived.derivationExpression = NSExpression(format: "pages.@count")
        derived.derivationExpressionFormat = "pages.@count"
        let derivedCopy = try #require(derived.copy() as? NSDerivedAttributeDescription)
        #expect(derivedCopy.derivationExpression?.description == derived.derivationExpression?.description)
        #expect(derivedCopy.derivationExpressionFormat == "pages.@count")

        let expression = NSExpressionDescription(name: "total")
        expression.expression = NSExpression(format: "sum:(price)")
        expression.expressionResultType = .doubleAttributeType
        let expressionCopy = try #require(expression.copy() as? NSExpressionDescription)
        #expect(expressionCopy.name == "total" && expressionCopy.expressionResultType == .doubleAttributeType)
        #expect(expressionCopy.expression?.description == expression.expression?.description)

        let fetched = NSFetchedPropertyDescription(name: "recent")
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
        request.fetchLimit = 5
        fetched.fetchRequest = request
        let fetchedCopy = try #require(fetched.copy() as? NSFetchedPropertyDescription)
        #expect(fetchedCopy.fetchRequest !== request)
        #expect(fetchedCopy.fetchRequest?.entityName == "Note" && fetchedCopy.fetchRequest?.fetchLimit == 5)
    }

    /// A relationship copied alone keeps the original's destination and inverse.
    @Test func aRelationshipCopiedAloneKeepsItsDestinationAndInverse() throws {
        let model = TestModel.make()
        let pets = try #require(model.entitiesByName["Person"]?.relationshipsByName["pets"])
        let copy = try #require(pets.copy() as? NSRelationshipDescription)
        #expect(copy.entity == nil)
        #expect(copy.destinationEntity === pets.destinationEntity && copy.inverseRelationship === pets.inverseRelationship)
        #expect(copy.isToMany && copy.minCount == pets.minCount && copy.deleteRule == .cascadeDeleteRule && copy.isOptional == pets.isOptional)

        let person = try #require(model.entitiesByName["Person"]?.copy() as? NSEntityDescription)
        let copiedPets = try #require(person.relationshipsByName["pets"])
        #expect(copiedPets !== pets && copiedPets.destinationEntity === pets.destinationEntity)
        #expect(copiedPets.inverseRelationship === pets.inverseRelationship)
    }

    /// An entity copied alone joins another model: its relationships to itself lead to the copy.
    @Test func anEntityCopiedAloneJoinsAnotherModel() throws {
        let node = NSEntityDescription(name: "Node")
        let label = NSAttributeDescription(name: "label", type: .stringAttributeType)
        let parent = NSRelationshipDescription(name: "parent", destination: node)
        let children = NSRelationshipDescription(name: "children", destination: node, toMany: true)
        parent.inverseRelationship = children
        children.inverseRelationship = parent
        node.properties = [label, parent, children]
        node.indexes = [NSFetchIndexDescription(name: "byLabel", elements: [NSFetchIndexElementDescription(property: label, collationType: .binary)])]
        node.uniquenessConstraints = [[label]]
        node.userInfo = ["kind": "tree"]

        let copy = try #require(node.copy() as? NSEntityDescription)
        #expect(copy.managedObjectModel == nil && copy.superentity == nil && copy.subentities.isEmpty)
        #expect(copy.userInfo?["kind"] as? String == "tree")
        let copiedParent = try #require(copy.relationshipsByName["parent"])
        let copiedChildren = try #require(copy.relationshipsByName["children"])
        #expect(copiedParent.inverseRelationship === copiedChildren && copiedChildren.inverseRelationship === copiedParent)
        // A relationship to the entity itself leads to the copy.
        #expect(copiedParent.destinationEntity === copy && copiedChildren.destinationEntity === copy)
        #expect(copy.indexes.first?.elements.first?.property === copy.propertiesByName["label"])
        #expect((copy.uniquenessConstraints.first?.first as? NSPropertyDescription) === copy.propertiesByName["label"])

        copy.name = "Folder"
        let model = NSManagedObjectModel()
        model.entities = [copy]
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: directory.file("Folders.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let root = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
        root.setValue("root", forKey: "label")
        let leaf = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
        leaf.setValue("leaf", forKey: "label")
        leaf.setValue(root, forKey: "parent")
        try context.save()
        #expect((root.value(forKey: "children") as? Set<NSManagedObject>)?.count == 1)
        #expect(node.name == "Node" && node.relationshipsByName["parent"]?.destinationEntity === node)
    }

    @Test func fetchIndexCopiesKeepTheirElements() throws {
        let score = NSAttributeDescription(name: "score", type: .integer64AttributeType)
        let element = NSFetchIndexElementDescription(property: score, collationType: .binary)
        element.isAscending = false
        let index = NSFetchIndexDescription(name: "byScore", elements: [element])
        index.partialIndexPredicate = NSPredicate(format: "score > 0")
        let copy = try #require(index.copy() as? NSFetchIndexDescription)
        #expect(copy !== index && copy.name == "byScore" && copy.entity == nil)
        #expect(copy.partialIndexPredicate?.predicateFormat == "score > 0")
        let copiedElement = try #require(copy.elements.first)
        #expect(copiedElement !== element && copiedElement.indexDescription === copy)
        #expect(copiedElement.property === score && copiedElement.propertyName == "score")
        #expect(!copiedElement.isAscending && copiedElement.collationType == .binary)
        #expect(element.indexDescription === index)
    }

    /// An entity's class carries over: objects of the copy are of the original's class.
    @Test func aCopiedEntityKeepsItsClass() throws {
        let model = NSManagedObjectModel()
        let entity = NSEntityDescription(name: "CopiedThing")
        entity.properties = [NSAttributeDescription(name: "title", type: .stringAttributeType)]
        entity.managedObjectClass = CopiedThing.self
        model.entities = [entity]
        let copy = try #require(model.copy() as? NSManagedObjectModel)
        let copiedEntity = try #require(copy.entitiesByName["CopiedThing"])
        #expect(copiedEntity.managedObjectClassName == entity.managedObjectClassName)
        #expect(copiedEntity.managedObjectClass == CopiedThing.self)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: copy)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(NSEntityDescription.insertNewObject(forEntityName: "CopiedThing", into: context) is CopiedThing)
    }
}

final class CopiedThing: NSManagedObject {}
