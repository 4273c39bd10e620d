import Foundation
import CoreData
import Testing

/// Core Data's errors read through the names Apple's overlay gives them, as `catch` clauses in
/// client code read them.
@Suite struct CocoaErrorTests {
    @Test func aFailedValidationNamesItsObjectAndKey() throws {
        let note = NSEntityDescription()
        note.name = "Note"
        let title = NSAttributeDescription()
        title.name = "title"
        title.type = .string
        title.isOptional = false
        note.properties = [title]
        let model = NSManagedObjectModel()
        model.entities = [note]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let context = NSManagedObjectContext(.mainQueue)
        context.persistentStoreCoordinator = coordinator
        let untitled = NSManagedObject(entity: note, insertInto: context)

        do {
            try context.save()
            Issue.record("a note without a title was saved")
        } catch let error as CocoaError where error.code == CocoaError.validationMissingMandatoryProperty {
            #expect(error.validationKey == "title")
            #expect(error.validationObject as? NSManagedObject === untitled)
            #expect(error.persistentStoreSaveConflicts == nil)
        }
        #expect(CocoaError.Code.externalRecordImport.rawValue == 134200)
        #expect(CocoaError.persistentStoreSaveConflicts == .persistentStoreSaveConflicts)
    }
}
