import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// A fault whose row cannot be read (the store fails under it) reads nil, is not taken for a
/// deleted object, and cannot be saved: nothing is written from values that were never read.
/// Core Data stops the program here instead ("could not fulfill a fault").
@Suite struct FaultFailureTests {
    @Test func anUnreadableFaultReadsNilAndRefusesToBeSaved() throws {
        let stack = try TestStack(.sqlite)
        _ = stack.insert("Person", ["name": "Ada", "age": 36])
        try stack.context.save()
        try stack.reopen()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.includesPropertyValues = false
        let person = try #require(try stack.context.fetch(request).first)
        #expect(person.isFault)

        let connection = try #require(stack.sqliteConnection)
        try connection.execute("ALTER TABLE ZPERSON RENAME TO ZPERSON_AWAY")
        #expect(person.value(forKey: "name") == nil)
        #expect(!person.isFault)
        #expect(!person.isDeleted)

        person.setValue(40, forKey: "age")
        let error = #expect(throws: (any Error).self) { try stack.context.save() }
        #expect(error?.code == NSManagedObjectValidationError)
        #expect(error?.message.contains("could not be read from the store") == true)

        // A rollback keeps it registered (its row exists); once the store can be read again,
        // it reads the row.
        stack.context.rollback()
        #expect(person.managedObjectContext === stack.context)
        try connection.execute("ALTER TABLE ZPERSON_AWAY RENAME TO ZPERSON")
        #expect(person.value(forKey: "name") as? String == "Ada")
        person.setValue(39, forKey: "age")
        stack.context.refresh(person, mergeChanges: false)
        #expect(person.value(forKey: "name") as? String == "Ada")
        #expect(person.value(forKey: "age") as? Int == 36)
        person.setValue(41, forKey: "age")
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.fetch("Person").first?.value(forKey: "age") as? Int == 41)
    }
}
