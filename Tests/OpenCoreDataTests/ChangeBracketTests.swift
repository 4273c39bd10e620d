import Foundation
import Testing
import OpenCoreData

/// Core Data's change and access brackets (`willChangeValue(forKey:)`, the set-mutation forms an
/// app's own to-many accessors call, `willAccessValue(forKey:)`): with no key-value observing
/// on Linux they tell no observer, but they fire the fault before the change, as Core Data does.
@Suite struct ChangeBracketTests {
    /// A saved club and a person, each turned back into a fault in a new context.
    static func faults() throws -> (NSManagedObject, NSManagedObject) {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: directory.file("Clubs.sqlite"))
        let writer = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        let club = NSEntityDescription.insertNewObject(forEntityName: "Club", into: writer)
        club.setValue("chess", forKey: "name")
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: writer)
        person.setValue("Ada", forKey: "name")
        try writer.save()
        let reader = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        return (reader.object(with: club.objectID), reader.object(with: person.objectID))
    }

    @Test func theSetMutationBracketsFireTheFaultAndTheChangeIsSaved() throws {
        let (club, person) = try Self.faults()
        #expect(club.isFault)
        club.willChangeValue(forKey: "members", withSetMutation: .union, using: [person])
        #expect(!club.isFault)
        club.mutableSetValue(forKey: "members").add(person)
        club.didChangeValue(forKey: "members", withSetMutation: .union, using: [person])
        try club.managedObjectContext?.save()
        #expect((club.value(forKey: "members") as? Set<NSManagedObject>)?.contains(person) == true)
        #expect(NSKeyValueSetMutationKind.union.rawValue == 1 && NSKeyValueSetMutationKind.set.rawValue == 4)
    }

    @Test func theChangeBracketFiresTheFault() throws {
        let (club, _) = try Self.faults()
        club.willChangeValue(forKey: "name")
        #expect(!club.isFault)
        club.didChangeValue(forKey: "name")
    }
}
