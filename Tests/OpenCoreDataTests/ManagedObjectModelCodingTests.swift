import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// `NSManagedObjectModel`'s `NSSecureCoding`: a model archived with `NSKeyedArchiver` comes back
/// from `NSKeyedUnarchiver` as the same model — entities, properties, version hashes — and opens
/// the stores the original wrote.
@Suite struct ManagedObjectModelCodingTests {
    @Test func aModelArchivedAndUnarchivedIsTheSameModel() throws {
        let model = TestModel.make()
        let data = try NSKeyedArchiver.archivedData(withRootObject: model, requiringSecureCoding: true)
        let copy = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data))
        #expect(copy !== model)
        #expect(Set(copy.entitiesByName.keys) == Set(model.entitiesByName.keys))
        #expect(copy.entityVersionHashesByName == model.entityVersionHashesByName)
        let person = try #require(copy.entitiesByName["Person"])
        #expect(person.attributesByName["email"]?.regularExpression != nil)
        #expect(person.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["email"]])
        #expect(copy.entitiesByName["Animal"]?.subentities.compactMap(\.name).sorted() == ["Bird", "Dog"])

        // A store the original wrote opens with the copy, as it is.
        let directory = TemporaryDirectory()
        let url = directory.file("Coded.sqlite")
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue("Ada", forKey: "name")
            try context.save()
            try coordinator.remove(store)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: copy)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
        #expect(people.compactMap { $0.value(forKey: "name") as? String } == ["Ada"])
    }

    /// An archive of something else, or a model archive that is damaged, unarchives as an
    /// error, never as a wrong model.
    @Test func anArchiveThatIsNoModelIsRefused() throws {
        let other = try NSKeyedArchiver.archivedData(withRootObject: NSString(string: "not a model"), requiringSecureCoding: true)
        let notAModel = try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: other)
        #expect(notAModel == nil)

        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(Data("damaged".utf8) as NSData, forKey: NSManagedObjectModel.archiveKey)
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        #expect(NSManagedObjectModel(coder: unarchiver) == nil)
        // A coder that raises on failure is not told (it would end the process): nil all the same.
        let raising = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        #expect(NSManagedObjectModel(coder: raising) == nil)
    }
}
