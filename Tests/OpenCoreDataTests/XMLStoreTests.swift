import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// The XML store's file (`Docs/XMLStoreFormat.md`): the layout Apple's XML store writes, files in
/// that layout read back, text that XML cannot carry as it is, and the clear error — with the file
/// left as it was — for a file that is not a store or does not hold together. The shared
/// behaviour of every store runs on it in `StoreBehaviourTests`.
@Suite struct XMLStoreTests {
    /// Departments with employees, in camel case, as an application names them.
    private static func companyModel() -> NSManagedObjectModel {
        let department = NSEntityDescription(name: "Department")
        let employee = NSEntityDescription(name: "Employee")
        let employees = NSRelationshipDescription(name: "employees", destination: employee, toMany: true)
        let worksIn = NSRelationshipDescription(name: "department", destination: department)
        employees.inverseRelationship = worksIn
        worksIn.inverseRelationship = employees
        department.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), employees]
        employee.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType),
                               NSAttributeDescription(name: "salary", type: .integer32AttributeType),
                               NSAttributeDescription(name: "hireDate", type: .dateAttributeType), worksIn]
        let model = NSManagedObjectModel()
        model.entities = [department, employee]
        return model
    }

    private func context(for url: URL, model: NSManagedObjectModel = XMLStoreTests.companyModel()) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private func fetch(_ entity: String, in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request)
    }

    @Test func theFileHasTheLayoutOfApplesXMLStore() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Company.xml")
        let context = try context(for: url)
        let engineering = NSEntityDescription.insertNewObject(forEntityName: "Department", into: context)
        engineering.setValue("Engineering", forKey: "name")
        let alice = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        alice.setValue("Alice", forKey: "name")
        alice.setValue(Int32(100), forKey: "salary")
        alice.setValue(Date(timeIntervalSinceReferenceDate: 445_103_622.25), forKey: "hireDate")
        alice.setValue(engineering, forKey: "department")
        try context.save()

        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix("<?xml version=\"1.0\" standalone=\"yes\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n"))
        #expect(text.contains("<database>\n    <databaseInfo>\n        <version>134481920</version>\n"))
        #expect(text.contains("<UUID>\(context.persistentStoreCoordinator!.persistentStores[0].identifier)</UUID>"))
        #expect(text.contains("<nextObjectID>3</nextObjectID>"))
        #expect(text.contains("<metadata><plist version=\"1.0\">"))
        #expect(text.contains("<key>NSStoreModelVersionHashes</key>"))
        let aliceID = try #require(alice.objectID.primaryKey), engineeringID = try #require(engineering.objectID.primaryKey)
        #expect(text.contains("<object type=\"EMPLOYEE\" id=\"z\(aliceID)\">"))
        #expect(text.contains("<relationship name=\"department\" type=\"0/1\" destination=\"DEPARTMENT\" idrefs=\"z\(engineeringID)\"></relationship>"))
        #expect(text.contains("<object type=\"DEPARTMENT\" id=\"z\(engineeringID)\">"))
        #expect(text.contains("<relationship name=\"employees\" type=\"0/0\" destination=\"EMPLOYEE\" idrefs=\"z\(aliceID)\"></relationship>"))
        #expect(text.contains("<attribute name=\"hiredate\" type=\"date\">445103622.25000000000000000000</attribute>"))
        #expect(text.contains("<attribute name=\"salary\" type=\"int32\">100</attribute>"))
        #expect(aliceID != engineeringID)
    }

    @Test func aFileInTheLayoutOfApplesXMLStoreIsRead() throws {
        // Written as Apple's store writes one: upper-case entities, lower-case properties, no
        // version hashes, an unset to-one without idrefs.
        let directory = TemporaryDirectory()
        let url = directory.file("Apple.xml")
        try """
        <?xml version="1.0"?>
        <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

        <database>
            <databaseInfo>
                <version>134481920</version>
                <UUID>7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE</UUID>
                <nextObjectID>105</nextObjectID>
                <metadata></metadata>
            </databaseInfo>
            <object type="DEPARTMENT" id="z104">
                <attribute name="name" type="string">Engineering</attribute>
                <relationship name="employees" type="0/0" destination="EMPLOYEE" idrefs="z102"></relationship>
            </object>
            <object type="EMPLOYEE" id="z102">
                <attribute name="name" type="string">Alice</attribute>
                <attribute name="salary" type="int32">100</attribute>
                <attribute name="hiredate" type="date">445103622.25000000000000000000</attribute>
                <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z104"></relationship>
            </object>
            <object type="EMPLOYEE" id="z103">
                <attribute name="name" type="string">Bob</attribute>
                <attribute name="salary" type="int32">90</attribute>
                <relationship name="department" type="1/1" destination="DEPARTMENT"></relationship>
            </object>
        </database>
        """.write(to: url, atomically: true, encoding: .utf8)
        let context = try context(for: url)
        #expect(context.persistentStoreCoordinator?.persistentStores.first?.identifier == "7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE")
        let employees = try fetch("Employee", in: context)
        #expect(employees.map { $0.value(forKey: "name") as? String } == ["Alice", "Bob"])
        #expect(employees[0].value(forKey: "salary") as? Int32 == 100)
        #expect((employees[0].value(forKey: "hireDate") as? Date)?.timeIntervalSinceReferenceDate == 445_103_622.25)
        #expect((employees[0].value(forKey: "department") as? NSManagedObject)?.value(forKey: "name") as? String == "Engineering")
        #expect(employees[1].value(forKey: "department") == nil)
        #expect(employees[0].objectID.uriRepresentation().lastPathComponent == "p102")
        // A new object gets an id the file has not used.
        let carol = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        carol.setValue("Carol", forKey: "name")
        try context.save()
        #expect(carol.objectID.primaryKey == 105)
    }

    @Test func textThatXMLCannotCarryAsItIsComesBack() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Text.xml")
        let names = ["<b>Tom & \"Jerry\"</b>", "line\r\nbreak", "bell\u{7}and\u{0}nul", "  spaced  ", "日本語 🎉"]
        let context = try context(for: url)
        for name in names {
            NSEntityDescription.insertNewObject(forEntityName: "Department", into: context).setValue(name, forKey: "name")
        }
        try context.save()
        let reread = try self.context(for: url)
        let read = try fetch("Department", in: reread).compactMap { $0.value(forKey: "name") as? String }
        #expect(Set(read) == Set(names), "\(read.map { Array($0.unicodeScalars) })")
    }

    @Test func propertiesThatDifferOnlyInCaseCannotBeSaved() throws {
        let model = NSManagedObjectModel()
        let note = NSEntityDescription(name: "Note")
        note.properties = [NSAttributeDescription(name: "title", type: .stringAttributeType),
                           NSAttributeDescription(name: "Title", type: .stringAttributeType)]
        model.entities = [note]
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.xml")
        let context = try context(for: url, model: model)
        NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("a", forKey: "title")
        let error = try #require(throws: CocoaError.self) { try context.save() }
        #expect(error.message.contains("its properties title and Title differ only in case"))
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test(arguments: [
        ("{\"not\": \"xml\"}", CocoaError.Code.persistentStoreInvalidType, "is not an XML store"),
        ("<plist version=\"1.0\"><dict/></plist>", .persistentStoreInvalidType, "is not an XML store"),
        ("<database><databaseInfo></database>", .fileReadCorruptFile, "is not well-formed XML (line 1"),
        ("<database><databaseInfo/><object type=\"DEPARTMENT\" id=\"z1\"><relationship name=\"employees\" idrefs=\"z9\"></relationship></object></database>",
         .fileReadCorruptFile, "refers to z9, which the file does not hold"),
        ("<database><databaseInfo/><object type=\"SHIP\" id=\"z1\"></object></database>",
         .fileReadCorruptFile, "is of the entity SHIP, which the model does not have"),
        ("<database><databaseInfo/><object type=\"EMPLOYEE\" id=\"z1\"><attribute name=\"salary\" type=\"int32\">lots</attribute></object></database>",
         .fileReadCorruptFile, "the value of Employee.salary of z1 (line 1) is not a int32 value"),
    ])
    func aFileThatIsNotAStoreOrDoesNotHoldTogetherIsRefusedAndLeftAsItIs(contents: String, code: CocoaError.Code, reason: String) throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Bad.xml")
        try contents.write(to: url, atomically: true, encoding: .utf8)
        let error = try #require(throws: CocoaError.self) { _ = try context(for: url) }
        #expect(error.code == code)
        #expect(error.message.contains(url.path))
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(try String(contentsOf: url, encoding: .utf8) == contents)
    }
}
