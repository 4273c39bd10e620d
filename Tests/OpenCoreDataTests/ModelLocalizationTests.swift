import Foundation
import Testing
import OpenCoreData

/// `NSManagedObjectModel.localizationDictionary`: localized entity, property and error-string
/// names, set in code or read from the model's `<ModelName>Model.strings`, and used by
/// validation errors.
@Suite struct ModelLocalizationTests {
    static let entities = """
        <entity name="Club" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <attribute name="motto" optional="YES" attributeType="String">
                <userInfo/>
            </attribute>
        </entity>
        """

    static func requiredNameError(_ model: NSManagedObjectModel) throws -> CocoaError {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        _ = NSEntityDescription.insertNewObject(forEntityName: "Club", into: context)
        return try #require(throws: CocoaError.self) { try context.save() }
    }

    @Test func aModelWithoutAStringsFileHasNone() throws {
        let directory = TemporaryDirectory()
        let bundle = try ModelBundle(in: directory, name: "Clubs", versions: [("Clubs", Self.entities)], current: "Clubs")
        #expect(try bundle.model().localizationDictionary == nil)
    }

    @Test func theStringsFileBesideTheModelIsReadAndNamesValidationErrors() throws {
        let directory = TemporaryDirectory()
        let bundle = try ModelBundle(in: directory, name: "Clubs", versions: [("Clubs", Self.entities)], current: "Clubs")
        let strings = """
            /* Entities */
            "Entity/Club" = "Verein";
            // Properties
            "Property/name/Entity/Club" = "Vereinsname";
            "Property/motto" = "Wahlspruch";
            """
        let lproj = directory.file("Base.lproj")
        try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
        // UTF-16, as Xcode writes strings files.
        try #require(strings.data(using: .utf16)).write(to: lproj.appendingPathComponent("ClubsModel.strings"))

        let model = try bundle.model()
        #expect(model.localizationDictionary == ["Entity/Club": "Verein", "Property/name/Entity/Club": "Vereinsname",
                                                  "Property/motto": "Wahlspruch"])
        let error = try Self.requiredNameError(model)
        #expect(error.localizedDescription.contains("Verein.Vereinsname"), "\(error.localizedDescription)")
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "name", "the key stays the property's name")
    }

    @Test func aDictionarySetInCodeIsUsedAndTheModelInUseCannotChangeIt() throws {
        let model = NSManagedObjectModel()
        let club = NSEntityDescription()
        club.name = "Club"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        name.isOptional = false
        let motto = NSAttributeDescription()
        motto.name = "motto"
        motto.attributeType = .stringAttributeType
        motto.setValidationPredicates([NSPredicate(format: "length > 3")], withValidationWarnings: ["Motto too short"])
        club.properties = [name, motto]
        model.entities = [club]
        model.localizationDictionary = ["Property/name": "Name des Vereins", "ErrorString/Motto too short": "Wahlspruch zu kurz"]
        #expect(try Self.requiredNameError(model).localizedDescription.contains("Club.Name des Vereins"))

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let object = NSEntityDescription.insertNewObject(forEntityName: "Club", into: context)
        object.setValue("c", forKey: "name")
        object.setValue("ab", forKey: "motto")
        let error = try #require(throws: CocoaError.self) { try context.save() }
        #expect(error.localizedDescription == "Wahlspruch zu kurz")
    }
}
