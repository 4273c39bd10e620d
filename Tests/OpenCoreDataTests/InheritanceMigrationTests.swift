import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
import OCDSQLite

/// Lightweight migration across changes in inheritance, as Apple's guide lists them ("you can
/// create a new parent or child entity and move properties up and down the entity hierarchy;
/// you can move entities out of a hierarchy; you cannot, however, merge entity hierarchies"):
/// rows move between tables with their keys, links follow them, and new objects get keys no
/// object had.
@Suite struct InheritanceMigrationTests {
    /// Version 1: Animal with sub-entities Dog (and its Puppy) and Bird; Keepers keep animals and
    /// have a best dog; Tags tag animals.
    static let zooV1 = """
        <entity name="Animal" representedClassName="Animal" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="keeper" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Keeper" inverseName="animals" inverseEntity="Keeper"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="animals" inverseEntity="Tag"/>
        </entity>
        <entity name="Dog" representedClassName="Dog" parentEntity="Animal" syncable="YES">
            <attribute name="nickname" optional="YES" attributeType="String"/>
            <relationship name="admirers" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Keeper" inverseName="bestDog" inverseEntity="Keeper"/>
        </entity>
        <entity name="Bird" representedClassName="Bird" parentEntity="Animal" syncable="YES">
            <attribute name="wingspan" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
        </entity>
        <entity name="Puppy" representedClassName="Puppy" parentEntity="Dog" syncable="YES">
            <attribute name="age" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
        </entity>
        <entity name="Keeper" representedClassName="Keeper" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="animals" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Animal" inverseName="keeper" inverseEntity="Animal"/>
            <relationship name="bestDog" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Dog" inverseName="admirers" inverseEntity="Dog"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="animals" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Animal" inverseName="tags" inverseEntity="Animal"/>
        </entity>
        """

    /// Version 2: Bird leaves Animal's tree (a root now, declaring the name and tags it
    /// inherited, tags through Tag's new `birds`); Keeper gets a new parent entity, Person;
    /// Puppy moves from under Dog to under Animal (a puppy is no dog any more).
    static let zooV2 = """
        <entity name="Animal" representedClassName="Animal" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="keeper" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Keeper" inverseName="animals" inverseEntity="Keeper"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="animals" inverseEntity="Tag"/>
        </entity>
        <entity name="Dog" representedClassName="Dog" parentEntity="Animal" syncable="YES">
            <attribute name="nickname" optional="YES" attributeType="String"/>
            <relationship name="admirers" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Keeper" inverseName="bestDog" inverseEntity="Keeper"/>
        </entity>
        <entity name="Puppy" representedClassName="Puppy" parentEntity="Animal" syncable="YES">
            <attribute name="age" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
        </entity>
        <entity name="Bird" representedClassName="Bird" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="wingspan" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="birds" inverseEntity="Tag"/>
        </entity>
        <entity name="Person" representedClassName="Person" syncable="YES">
            <attribute name="email" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Keeper" representedClassName="Keeper" parentEntity="Person" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="animals" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Animal" inverseName="keeper" inverseEntity="Animal"/>
            <relationship name="bestDog" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Dog" inverseName="admirers" inverseEntity="Dog"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="animals" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Animal" inverseName="tags" inverseEntity="Animal"/>
            <relationship name="birds" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Bird" inverseName="tags" inverseEntity="Bird"/>
        </entity>
        """

    /// A version 1 store: Rex the dog (nicknamed, kept by Ann, tagged "pet", Cy's best dog),
    /// Tweety the bird (kept by Ann, tagged "pet"), Bo the puppy (Ann's best dog), Blob the plain
    /// animal (kept by Ann); a bird inserted last and deleted, so that the tree's last key is no
    /// object's.
    static func writeZoo(at url: URL, bundle: ModelBundle) throws {
        let (container, error) = LightweightMigrationTests.container(try bundle.model(), at: url)
        #expect(error == nil)
        let context = container.viewContext
        let ann = NSEntityDescription.insertNewObject(forEntityName: "Keeper", into: context)
        ann.setValue("Ann", forKey: "name")
        let pet = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
        pet.setValue("pet", forKey: "label")
        func animal(_ entity: String, _ name: String, kept: Bool, tagged: Bool, _ values: [String: Any] = [:]) {
            let animal = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            animal.setValue(name, forKey: "name")
            for (key, value) in values { animal.setValue(value, forKey: key) }
            if kept { animal.setValue(ann, forKey: "keeper") }
            if tagged { animal.setValue(Set([pet]), forKey: "tags") }
        }
        animal("Dog", "Rex", kept: true, tagged: true, ["nickname": "Rexy"])
        animal("Bird", "Tweety", kept: true, tagged: true, ["wingspan": NSNumber(value: 0.3)])
        animal("Puppy", "Bo", kept: false, tagged: false, ["age": NSNumber(value: Int16(1))])
        animal("Animal", "Blob", kept: true, tagged: false)
        let cy = NSEntityDescription.insertNewObject(forEntityName: "Keeper", into: context)
        cy.setValue("Cy", forKey: "name")
        let animals = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))
        ann.setValue(animals.first { $0.value(forKey: "name") as? String == "Bo" }, forKey: "bestDog")
        cy.setValue(animals.first { $0.value(forKey: "name") as? String == "Rex" }, forKey: "bestDog")
        try context.save()
        let last = NSEntityDescription.insertNewObject(forEntityName: "Bird", into: context)
        try context.save()
        context.delete(last)
        try context.save()
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
    }

    static func names(_ objects: Any?) -> [String] {
        ((objects as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
    }

    /// The objects of `entity` and its sub-entities, by name where the entity has one.
    static func fetch(_ entity: String, in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        if entity != "Person" { request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)] }
        return try context.fetch(request)
    }

    /// Every object of the version 1 store, where version 2 puts it, with its values and links.
    static func expectZooV2(in context: NSManagedObjectContext) throws {
        #expect(try fetch("Animal", in: context).map { "\($0.entity.name ?? "") \($0.value(forKey: "name") as? String ?? "")" }
                == ["Animal Blob", "Puppy Bo", "Dog Rex"])
        let rex = try #require(try fetch("Dog", in: context).first { $0.value(forKey: "name") as? String == "Rex" })
        #expect(rex.value(forKey: "nickname") as? String == "Rexy")
        #expect(try fetch("Dog", in: context).map { $0.value(forKey: "name") as? String } == ["Rex"])
        let bo = try #require(try fetch("Animal", in: context).first { $0.value(forKey: "name") as? String == "Bo" })
        #expect(bo.entity.name == "Puppy")
        #expect((bo.value(forKey: "age") as? NSNumber)?.intValue == 1)

        let birds = try fetch("Bird", in: context)
        #expect(birds.count == 1)
        let tweety = try #require(birds.first)
        #expect(tweety.value(forKey: "name") as? String == "Tweety")
        #expect((tweety.value(forKey: "wingspan") as? NSNumber)?.doubleValue == 0.3)

        let people = try fetch("Person", in: context)
        #expect(people.map { $0.entity.name } == ["Keeper", "Keeper"])
        let ann = try #require(people.first { $0.value(forKey: "name") as? String == "Ann" })
        let cy = try #require(people.first { $0.value(forKey: "name") as? String == "Cy" })
        // Bo is no dog any more: Ann's best dog link went; Cy's to Rex stays.
        #expect(ann.value(forKey: "bestDog") == nil)
        #expect((cy.value(forKey: "bestDog") as? NSManagedObject)?.value(forKey: "name") as? String == "Rex")
        #expect(names(rex.value(forKey: "admirers")) == ["Cy"])
        // A bird is no animal: Ann keeps the animals, and Tweety left her.
        #expect(names(ann.value(forKey: "animals")) == ["Blob", "Rex"])
        let pet = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")).first)
        #expect(names(pet.value(forKey: "animals")) == ["Rex"])
        #expect(names(pet.value(forKey: "birds")) == ["Tweety"])
        #expect(names(tweety.value(forKey: "tags")).isEmpty)  // tags have labels, not names
        #expect(((tweety.value(forKey: "tags") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "label") as? String } == ["pet"])
    }

    /// New objects of every moved tree get keys no object had, and everything survives a reopen.
    static func expectNewObjectsFit(_ container: NSPersistentContainer) throws {
        let context = container.viewContext
        for (entity, name) in [("Bird", "Polly"), ("Keeper", "Bob"), ("Dog", "Fido"), ("Puppy", "Pip"), ("Animal", "Moss")] {
            NSEntityDescription.insertNewObject(forEntityName: entity, into: context).setValue(name, forKey: "name")
        }
        NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue("p@example.com", forKey: "email")
        try context.save()
        let ids = try ["Bird", "Person", "Animal"].flatMap { try fetch($0, in: context).map(\.objectID) }
        #expect(Set(ids).count == ids.count)
        #expect(try fetch("Bird", in: context).count == 2)
        #expect(try fetch("Person", in: context).count == 4)
        #expect(try fetch("Animal", in: context).count == 6)
    }

    @Test func rowsMoveBetweenTreesWithTheirValuesAndLinks() throws {
        let directory = TemporaryDirectory()
        let bundle = try ModelBundle(in: directory, name: "Zoo", versions: [("Zoo", Self.zooV1), ("Zoo 2", Self.zooV2)], current: "Zoo")
        let url = directory.file("Zoo.sqlite")
        try Self.writeZoo(at: url, bundle: bundle)
        let animalsLastKey = try SQLiteConnection(path: url.path).scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Animal'").int64Value ?? 0
        try bundle.makeCurrent("Zoo 2")
        let (container, error) = LightweightMigrationTests.container(try bundle.model(), at: url)
        #expect(error == nil)
        try Self.expectZooV2(in: container.viewContext)

        // Core Data's layout: one table per tree, each root's key counter past its table's keys.
        let raw = try SQLiteConnection(path: url.path)
        let tables = Set(try raw.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' AND name NOT LIKE 'Z\\_%' ESCAPE '\\'")
            .compactMap { $0[0].stringValue })
        #expect(tables == ["ZANIMAL", "ZBIRD", "ZPERSON", "ZTAG"])
        for (table, root) in [("ZBIRD", "Bird"), ("ZPERSON", "Person")] {
            let last = try raw.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = ?", [.text(root)]).int64Value ?? 0
            let highest = try raw.scalar("SELECT max(Z_PK) FROM \(table)").int64Value ?? 0
            #expect(last >= highest && highest > 0, "\(root)")
        }
        // Bird's keys came from Animal's tree: they continue after its last key, also one
        // whose object was deleted.
        #expect(try raw.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Bird'").int64Value ?? 0 >= animalsLastKey)
        #expect(animalsLastKey > (try raw.scalar("SELECT max(Z_PK) FROM ZANIMAL").int64Value ?? 0))
        #expect(try raw.scalar("SELECT count(*) FROM ZANIMAL WHERE ZNAME = 'Tweety'").int64Value == 0)

        try Self.expectNewObjectsFit(container)
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        let (reopened, reopenError) = LightweightMigrationTests.container(try bundle.model(), at: url)
        #expect(reopenError == nil)
        #expect(try Self.fetch("Animal", in: reopened.viewContext).count == 6)
        #expect(try Self.fetch("Bird", in: reopened.viewContext).compactMap { $0.value(forKey: "name") as? String } == ["Polly", "Tweety"])
    }

    /// A sub-entity with no columns of its own leaves its tree: the old table keeps its rows in
    /// place (no rebuild), the leaver's rows move to a table of their own, and its to-one, which
    /// becomes a many-to-many, keeps its links (the join table is filled before the rows go).
    @Test func aSubEntityLeavingATableKeptInPlaceKeepsItsLinks() throws {
        let v1 = """
            <entity name="Animal" representedClassName="Animal" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="keeper" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Keeper" inverseName="animals" inverseEntity="Keeper"/>
            </entity>
            <entity name="Fish" representedClassName="Fish" parentEntity="Animal" syncable="YES"/>
            <entity name="Keeper" representedClassName="Keeper" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="animals" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Animal" inverseName="keeper" inverseEntity="Animal"/>
            </entity>
            """
        let v2 = """
            <entity name="Animal" representedClassName="Animal" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="keeper" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Keeper" inverseName="animals" inverseEntity="Keeper"/>
            </entity>
            <entity name="Fish" representedClassName="Fish" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="keepers" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Keeper" inverseName="fish" inverseEntity="Keeper" elementID="keeper"/>
            </entity>
            <entity name="Keeper" representedClassName="Keeper" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="animals" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Animal" inverseName="keeper" inverseEntity="Animal"/>
                <relationship name="fish" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Fish" inverseName="keepers" inverseEntity="Fish"/>
            </entity>
            """
        let directory = TemporaryDirectory()
        let bundle = try ModelBundle(in: directory, name: "Pond", versions: [("Pond", v1), ("Pond 2", v2)], current: "Pond")
        let url = directory.file("Pond.sqlite")
        do {
            let (container, error) = LightweightMigrationTests.container(try bundle.model(), at: url)
            #expect(error == nil)
            let context = container.viewContext
            let ann = NSEntityDescription.insertNewObject(forEntityName: "Keeper", into: context)
            ann.setValue("Ann", forKey: "name")
            for (entity, name) in [("Animal", "Frog"), ("Fish", "Nemo"), ("Fish", "Dory")] {
                let animal = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                animal.setValue(name, forKey: "name")
                if name != "Dory" { animal.setValue(ann, forKey: "keeper") }
            }
            try context.save()
            try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        }
        func rootPage() throws -> Int64? {
            try SQLiteConnection(path: url.path).scalar("SELECT rootpage FROM sqlite_master WHERE name = 'ZANIMAL'").int64Value
        }
        let pageBefore = try rootPage()
        try bundle.makeCurrent("Pond 2")
        let (container, error) = LightweightMigrationTests.container(try bundle.model(), at: url)
        #expect(error == nil)
        #expect(try rootPage() == pageBefore)
        let context = container.viewContext
        #expect(try Self.fetch("Animal", in: context).compactMap { $0.value(forKey: "name") as? String } == ["Frog"])
        let fish = try Self.fetch("Fish", in: context)
        #expect(fish.compactMap { $0.value(forKey: "name") as? String } == ["Dory", "Nemo"])
        #expect(Self.names(fish[1].value(forKey: "keepers")) == ["Ann"])
        #expect(Self.names(fish[0].value(forKey: "keepers")).isEmpty)
        let ann = try #require(try Self.fetch("Keeper", in: context).first)
        #expect(Self.names(ann.value(forKey: "animals")) == ["Frog"])
        #expect(Self.names(ann.value(forKey: "fish")) == ["Nemo"])
    }

    /// The migration manager, copying objects through the same inferred mapping (as for stores of
    /// other types), arrives at the same objects.
    @Test func theMigrationManagerMovesTheSameObjects() throws {
        let directory = TemporaryDirectory()
        let bundle = try ModelBundle(in: directory, name: "Zoo", versions: [("Zoo", Self.zooV1), ("Zoo 2", Self.zooV2)], current: "Zoo")
        let sourceURL = directory.file("Zoo.sqlite")
        try Self.writeZoo(at: sourceURL, bundle: bundle)
        let v1 = try bundle.model()
        try bundle.makeCurrent("Zoo 2")
        let v2 = try bundle.model()
        let destinationURL = directory.file("Zoo 2.sqlite")
        try NSMigrationManager(sourceModel: v1, destinationModel: v2)
            .migrateStore(from: sourceURL, sourceType: NSSQLiteStoreType, with: nil, toDestinationURL: destinationURL, destinationType: NSSQLiteStoreType)
        let (container, error) = LightweightMigrationTests.container(v2, at: destinationURL)
        #expect(error == nil)
        try Self.expectZooV2(in: container.viewContext)
        try Self.expectNewObjectsFit(container)
    }

    /// Objects of two trees brought under one root could share keys: not inferable (134190,
    /// naming both entities and their old trees), whether a root moves under another tree or
    /// a new entity becomes the parent of two roots.
    @Test(arguments: [
        ("<entity name=\"Tag\" representedClassName=\"Tag\" syncable=\"YES\">",
         "<entity name=\"Tag\" representedClassName=\"Tag\" parentEntity=\"Animal\" syncable=\"YES\">",
         "entities 'Animal' and 'Tag' share the inheritance tree of 'Animal' but were in the trees of 'Animal' and 'Tag'"),
        ("<entity name=\"Keeper\" representedClassName=\"Keeper\" syncable=\"YES\">",
         "<entity name=\"Being\" representedClassName=\"Being\" syncable=\"YES\"/><entity name=\"Keeper\" representedClassName=\"Keeper\" parentEntity=\"Being\" syncable=\"YES\">",
         "entities 'Bird' and 'Keeper' share the inheritance tree of 'Being' but were in the trees of 'Animal' and 'Keeper'"),
    ])
    func treesCannotBeMerged(_ change: (String, String, String)) throws {
        var merged = Self.zooV1.replacingOccurrences(of: change.0, with: change.1)
        if change.2.contains("Being") {
            // Bird leaves Animal for the new root too.
            merged = merged.replacingOccurrences(of: "<entity name=\"Bird\" representedClassName=\"Bird\" parentEntity=\"Animal\"",
                                                 with: "<entity name=\"Bird\" representedClassName=\"Bird\" parentEntity=\"Being\"")
        }
        #expect(merged != Self.zooV1)
        let directory = TemporaryDirectory()
        let bundle = try ModelBundle(in: directory, name: "Zoo", versions: [("Zoo", Self.zooV1), ("Zoo 2", merged)], current: "Zoo")
        let url = directory.file("Zoo.sqlite")
        try Self.writeZoo(at: url, bundle: bundle)
        let bytes = try Data(contentsOf: url)
        let v1 = try bundle.model()
        try bundle.makeCurrent("Zoo 2")
        let error = try #require(throws: CocoaError.self) {
            try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: try bundle.model())
        }
        #expect(error.code.rawValue == 134190)
        #expect(error.message.contains(change.2 + "; inference cannot merge inheritance trees"))
        let (_, openError) = LightweightMigrationTests.container(try bundle.model(), at: url)
        #expect((openError as? CocoaError)?.code.rawValue == 134140)
        #expect(try Data(contentsOf: url) == bytes)
    }
}
