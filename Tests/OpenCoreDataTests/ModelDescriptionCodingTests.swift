import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// `NSCoding` of the model's descriptions — entities, properties of every kind, fetch indexes
/// and their elements: archived with `NSKeyedArchiver`, each comes back from
/// `NSKeyedUnarchiver` as a copy of itself (as `copy()` makes one), with every setting, and
/// with the entities it refers to archived with it.
@Suite struct ModelDescriptionCodingTests {
    @Test func anEntityComesBackWithItsSettingsPropertiesAndRelationships() throws {
        let model = KeyedArchiveModelEncoderTests.richModel()
        let item = try #require(model.entitiesByName["Item"])
        let decoded = try roundTrip(item, as: NSEntityDescription.self)

        #expect(decoded !== item)
        #expect(decoded.name == "Item")
        #expect(decoded.versionHash == item.versionHash)
        #expect(Set(decoded.properties.map(\.name)) == Set(item.properties.map(\.name)))
        #expect(decoded.userInfo?["kind"] as? String == "täst")
        #expect(decoded.renamingIdentifier == "OldItem")
        #expect(decoded.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["name", "token"]])
        #expect(decoded.indexes.map(\.name) == ["byCount", "byNameAndPrice"])
        #expect(decoded.indexes.first?.partialIndexPredicate?.predicateFormat == "count > 0")
        let name = try #require(decoded.attributesByName["name"])
        #expect(name.defaultValue as? String == "unnamed")
        #expect(name.regularExpression == "[a-zé]+")
        #expect(!name.isOptional)
        // A relationship leads to the entity archived with it, whose inverse leads back.
        let tags = try #require(decoded.relationshipsByName["tags"])
        #expect(tags.destinationEntity?.name == "Tag")
        #expect(tags.destinationEntity?.attributesByName["label"] != nil)
        #expect(tags.inverseRelationship?.name == "items")
        #expect(tags.deleteRule == .cascadeDeleteRule)
        #expect(tags.isOrdered && tags.minCount == 1 && tags.maxCount == 9)
        // As `copy()` makes it: in no model and no inheritance tree.
        #expect(decoded.managedObjectModel == nil)
        #expect(decoded.subentities.isEmpty)
    }

    /// An entity built in code outside any model is archived with the entities it reaches.
    @Test func anEntityInNoModelComesBackWithTheEntitiesItReaches() throws {
        let person = NSEntityDescription(name: "Person")
        let pet = NSEntityDescription(name: "Pet")
        let pets = NSRelationshipDescription(name: "pets", destination: pet, toMany: true)
        let owner = NSRelationshipDescription(name: "owner", destination: person)
        pets.inverseRelationship = owner
        owner.inverseRelationship = pets
        person.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false), pets]
        pet.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), owner]

        let decoded = try roundTrip(person, as: NSEntityDescription.self)
        let decodedPet = try #require(decoded.relationshipsByName["pets"]?.destinationEntity)
        #expect(decodedPet.name == "Pet" && decodedPet !== pet)
        #expect(decoded.relationshipsByName["pets"]?.inverseRelationship?.entity === decodedPet)
        #expect(decodedPet.relationshipsByName["owner"]?.destinationEntity?.name == "Person")
        #expect(decoded.versionHash == person.versionHash)
    }

    /// A decoded property is a property like any built in code: it joins a new model, whose
    /// store keeps its rules and its values across a reopen.
    @Test func aDecodedPropertyJoinsAModelThatSaves() throws {
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType, optional: false)
        title.minValue = 2
        let decoded = try roundTrip(title, as: NSAttributeDescription.self)
        let note = NSEntityDescription(name: "Note")
        note.properties = [decoded]
        let model = NSManagedObjectModel()
        model.entities = [note]
        let url = TemporaryDirectory().file("Decoded.sqlite")
        func context() throws -> NSManagedObjectContext {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        let writer = try context()
        let object = NSEntityDescription.insertNewObject(forEntityName: "Note", into: writer)
        object.setValue("x", forKey: "title")
        // The minimum length came through: a one-letter title does not save.
        #expect(throws: NSError.self) { try writer.save() }
        object.setValue("xy", forKey: "title")
        try writer.save()
        let notes = try context().fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
        #expect(notes.compactMap { $0.value(forKey: "title") as? String } == ["xy"])
    }

    @Test func propertiesOfEveryKindComeBackAsTheirClassWithTheirSettings() throws {
        let model = KeyedArchiveModelEncoderTests.richModel()
        let item = try #require(model.entitiesByName["Item"])

        let name = try roundTrip(try #require(item.attributesByName["name"]), as: NSAttributeDescription.self)
        #expect(name.attributeType == .stringAttributeType)
        #expect(name.minValue as? Int == 3 && name.maxValue as? Int == 50)
        #expect(name.renamingIdentifier == "title")
        #expect(name.preservesValueInHistoryOnDeletion)
        #expect(name.entity == nil)
        let price = try roundTrip(try #require(item.attributesByName["price"]), as: NSAttributeDescription.self)
        #expect(price.defaultValue as? Decimal == Decimal(string: "12.50"))
        let blob = try roundTrip(try #require(item.attributesByName["blob"]), as: NSAttributeDescription.self)
        #expect(blob.allowsExternalBinaryDataStorage)
        #expect(blob.defaultValue as? Data == Data([0, 1, 2, 255]))

        let items = try roundTrip(try #require(model.entitiesByName["Tag"]?.relationshipsByName["items"]), as: NSRelationshipDescription.self)
        #expect(items.destinationEntity?.name == "Item")
        #expect(items.inverseRelationship?.name == "tags")
        #expect(items.isToMany && items.deleteRule == .denyDeleteRule)

        let similar = try roundTrip(try #require(item.propertiesByName["similar"] as? NSFetchedPropertyDescription), as: NSFetchedPropertyDescription.self)
        #expect(similar.fetchRequest?.predicate?.predicateFormat == "name == $FETCH_SOURCE.name")
        #expect(similar.fetchRequest?.entityName == "Item")

        let tagCount = try roundTrip(try #require(item.propertiesByName["tagCount"] as? NSDerivedAttributeDescription), as: NSDerivedAttributeDescription.self)
        #expect(tagCount.derivationExpression?.description == "tags.@count")
        #expect(tagCount.attributeType == .integer64AttributeType)
    }

    /// An element of a composite attribute comes back on its own; the composite with its elements.
    @Test func compositeAttributesAndTheirElementsComeBack() throws {
        let quake = try #require(CompositeAttributeTests.makeModel().entitiesByName["Quake"])
        let magnitude = try #require(quake.attributesByName["magnitude"] as? NSCompositeAttributeDescription)
        let decoded = try roundTrip(magnitude, as: NSCompositeAttributeDescription.self)
        #expect(decoded.elements.map(\.name) == magnitude.elements.map(\.name))
        let epicenter = try #require(magnitude.elements.last as? NSCompositeAttributeDescription)
        let longitude = try roundTrip(try #require(epicenter.elements.last), as: NSAttributeDescription.self)
        #expect(longitude.name == "longitude" && longitude.attributeType == .doubleAttributeType)
        let richter = try roundTrip(magnitude.elements[0], as: NSAttributeDescription.self)
        #expect(richter.maxValue as? Double == 10 || richter.maxValue as? Int == 10)
        #expect(!richter.isOptional)
    }

    /// A property built in code and added to no entity yet is archived all the same.
    @Test func aPropertyInNoEntityComesBack() throws {
        let rating = NSAttributeDescription(name: "rating", type: .integer16AttributeType, optional: false, defaultValue: 3)
        rating.minValue = 1
        rating.maxValue = 5
        rating.setValidationPredicates([NSPredicate(format: "SELF != 4")], withValidationWarnings: ["not four"])
        let decoded = try roundTrip(rating, as: NSAttributeDescription.self)
        #expect(decoded.name == "rating" && decoded.attributeType == .integer16AttributeType)
        #expect(decoded.defaultValue as? Int16 == 3 || decoded.defaultValue as? Int == 3)
        #expect(!decoded.isOptional)
        #expect(decoded.validationWarnings.compactMap { $0 as? String } == ["not four"])
        #expect(decoded.validationPredicates.map(\.predicateFormat).contains("SELF != 4"))
    }

    @Test func anExpressionDescriptionComesBack() throws {
        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "price")])
        total.expressionResultType = .doubleAttributeType
        let decoded = try roundTrip(total, as: NSExpressionDescription.self)
        #expect(decoded.name == "total")
        #expect(decoded.expressionResultType == .doubleAttributeType)
        #expect(decoded.expression?.description == total.expression?.description)
    }

    @Test func fetchIndexesAndTheirElementsComeBack() throws {
        let item = try #require(KeyedArchiveModelEncoderTests.richModel().entitiesByName["Item"])
        let byNameAndPrice = try #require(item.indexes.last)
        let decoded = try roundTrip(byNameAndPrice, as: NSFetchIndexDescription.self)
        #expect(decoded.name == "byNameAndPrice")
        #expect(decoded.elements.map { $0.property?.name } == ["name", "price"])
        #expect(decoded.elements.map(\.isAscending) == [true, false])
        #expect(decoded.elements.first?.property?.entity?.name == "Item")

        let element = try roundTrip(byNameAndPrice.elements[1], as: NSFetchIndexElementDescription.self)
        #expect(element.property?.name == "price" && element.propertyName == "price")
        #expect(!element.isAscending && element.collationType == .binary)
        #expect(element.indexDescription == nil)

        // An index built in code, in no entity yet.
        let score = NSAttributeDescription(name: "score", type: .doubleAttributeType)
        let loose = NSFetchIndexDescription(name: "byScore", elements: [NSFetchIndexElementDescription(property: score, collationType: .binary)])
        let decodedLoose = try roundTrip(loose, as: NSFetchIndexDescription.self)
        #expect(decodedLoose.name == "byScore" && decodedLoose.elements.first?.property?.name == "score")
        let looseElement = try roundTrip(NSFetchIndexElementDescription(property: score, collationType: .binary), as: NSFetchIndexElementDescription.self)
        #expect(looseElement.property?.name == "score")
    }

    /// A coder that holds no description, or another kind of one, gives nil (and the
    /// unarchiver's error) — never a wrong description.
    @Test func aCoderWithoutTheDescriptionGivesNilAndAnError() throws {
        let nothing = NSKeyedArchiver(requiringSecureCoding: false)
        nothing.finishEncoding()
        let empty = try unarchiver(for: nothing.encodedData)
        #expect(NSEntityDescription(coder: empty) == nil)
        #expect(empty.error != nil)

        let relationship = try #require(KeyedArchiveModelEncoderTests.richModel().entitiesByName["Tag"]?.relationshipsByName["items"])
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        relationship.encode(with: archiver)
        archiver.finishEncoding()
        let coder = try unarchiver(for: archiver.encodedData)
        #expect(NSAttributeDescription(coder: coder) == nil)
        #expect(NSRelationshipDescription(coder: try unarchiver(for: archiver.encodedData))?.name == "items")

        let damaged = NSKeyedArchiver(requiringSecureCoding: false)
        damaged.encode(Data("damaged".utf8) as NSData, forKey: "OCDDescriptionModelArchive")
        damaged.encode("Item" as NSString, forKey: "OCDDescriptionEntity")
        damaged.finishEncoding()
        #expect(NSEntityDescription(coder: try unarchiver(for: damaged.encodedData)) == nil)
    }

    /// What the model archive cannot hold (a fetched property whose predicate is a block) is
    /// not archived: it decodes as nil instead of as a different description.
    @Test func whatTheArchiveCannotHoldDecodesAsNil() throws {
        let item = NSEntityDescription(name: "Item")
        let similar = NSFetchedPropertyDescription(name: "similar")
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        request.predicate = NSPredicate { _, _ in true }
        similar.fetchRequest = request
        item.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), similar]
        let data = try NSKeyedArchiver.archivedData(withRootObject: item, requiringSecureCoding: false)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        #expect(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) == nil)
    }

    /// A copy of a decoded relationship keeps the entities archived with it alive, as the decoded
    /// one does.
    @Test func aCopyOfADecodedRelationshipKeepsItsDestination() throws {
        let model = KeyedArchiveModelEncoderTests.richModel()
        let items = try #require(model.entitiesByName["Tag"]?.relationshipsByName["items"])
        var decoded: NSRelationshipDescription? = try roundTrip(items, as: NSRelationshipDescription.self)
        let copy = try #require(decoded?.copy() as? NSRelationshipDescription)
        decoded = nil
        #expect(copy.destinationEntity?.name == "Item")
        #expect(copy.inverseRelationship?.name == "tags")
    }

    /// An application's subclass, written as for Apple's SDK (`required init?(coder:)` calling
    /// `super.init(coder:)`), comes back as itself.
    @Test func anApplicationsSubclassComesBackAsItself() throws {
        let audited = AuditedAttribute(name: "total", type: .decimalAttributeType)
        audited.isOptional = false
        let decoded = try roundTrip(audited, as: AuditedAttribute.self)
        #expect(decoded.name == "total" && decoded.attributeType == .decimalAttributeType && !decoded.isOptional)
        #expect(decoded.decodedThroughSuper)
    }

    /// What the archive cannot name is not archived: entities sharing a name, a composite that
    /// contains itself. A property taken out of its entity is archived as one in none.
    @Test func whatTheArchiveCannotNameEncodesNothing() throws {
        let first = NSEntityDescription(name: "Twin")
        let second = NSEntityDescription(name: "Twin")
        first.properties = [NSRelationshipDescription(name: "other", destination: second)]
        #expect(try archivedBytes(first) == nil)

        let looping = NSCompositeAttributeDescription()
        looping.name = "looping"
        looping.elements = [looping]
        #expect(try archivedBytes(looping) == nil)

        let entity = NSEntityDescription(name: "Note")
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        let body = NSAttributeDescription(name: "title", type: .integer64AttributeType)
        entity.properties = [title]
        entity.properties = [body]
        let decoded = try roundTrip(title, as: NSAttributeDescription.self)
        #expect(decoded.attributeType == .stringAttributeType)
    }

    /// Decoded as the root object, a description the coder does not hold makes the unarchiver
    /// report that the class failed to decode.
    @Test func anUnarchiverReportsADescriptionThatFailedToDecode() throws {
        let relationship = try #require(KeyedArchiveModelEncoderTests.richModel().entitiesByName["Tag"]?.relationshipsByName["items"])
        let data = try NSKeyedArchiver.archivedData(withRootObject: relationship, requiringSecureCoding: false)
        let unarchiver = try unarchiver(for: data)
        unarchiver.setClass(NSAttributeDescription.self, forClassName: NSStringFromClass(NSRelationshipDescription.self))
        #expect(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) == nil)
        #expect(unarchiver.error != nil)
    }

    // MARK: Helpers

    /// What `NSKeyedArchiver` writes for `description` under the description archive's keys;
    /// nil when it wrote nothing there.
    private func archivedBytes(_ description: NSObject & NSCoding) throws -> Data? {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        description.encode(with: archiver)
        archiver.finishEncoding()
        let unarchiver = try unarchiver(for: archiver.encodedData)
        guard unarchiver.containsValue(forKey: "OCDDescriptionModelArchive") else { return nil }
        return unarchiver.decodeObject(of: NSData.self, forKey: "OCDDescriptionModelArchive") as Data?
    }

    /// `description` through `NSKeyedArchiver` and `NSKeyedUnarchiver`, as an app archives it.
    private func roundTrip<T: NSObject & NSCoding>(_ description: T, as type: T.Type) throws -> T {
        let data = try NSKeyedArchiver.archivedData(withRootObject: description, requiringSecureCoding: false)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        let decoded = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
        #expect(unarchiver.error == nil)
        return try #require(decoded as? T)
    }

    private func unarchiver(for data: Data) throws -> NSKeyedUnarchiver {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        return unarchiver
    }
}

/// An application's own attribute class, with the initializers Apple's SDK has it write.
final class AuditedAttribute: NSAttributeDescription, @unchecked Sendable {
    // @unchecked Sendable: as its superclass, changed only while the model is being built.
    private(set) var decodedThroughSuper = false

    override init(name: String, type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil) {
        super.init(name: name, type: type, optional: optional, defaultValue: defaultValue)
    }

    required init?(coder: NSCoder) {
        super.init(coder: coder)
        decodedThroughSuper = true
    }
}
