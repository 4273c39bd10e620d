import Foundation
import Testing
import OpenCoreData

/// `changedValuesForCurrentEvent()`: the changes since the last `processPendingChanges()`
/// (COREDATA-SEMANTICS 1.15, 4.1), with the values they replaced.
@Suite struct CurrentEventChangesTests {
    /// What `ObjectsDidChange` observers of `context` are told: each updated object's
    /// `changedValuesForCurrentEvent()`, asked during the notification.
    final class SeenChanges: @unchecked Sendable {
        // @unchecked Sendable: written only by the observer, on the context's thread, and read after.
        var changes: [[String: Any]] = []
        var token: (any NSObjectProtocol)?
    }

    static func observeUpdatedChanges(in context: NSManagedObjectContext) -> SeenChanges {
        let seen = SeenChanges()
        seen.token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { note in
            for object in (note.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject>) ?? [] {
                seen.changes.append(object.changedValuesForCurrentEvent())
            }
        }
        return seen
    }

    @Test func onlyTheCurrentEventsChangesAreReportedWithTheirOldValues() throws {
        let stack = try TestStack(.sqlite)
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        person.setValue("Ada", forKey: "name")
        person.setValue(36, forKey: "age")
        try stack.context.save()

        // 1.15's test: set a, processPendingChanges, set b: only b is reported.
        person.setValue("Ada Lovelace", forKey: "name")
        #expect(person.changedValuesForCurrentEvent()["name"] as? String == "Ada")
        stack.context.processPendingChanges()
        #expect(person.changedValuesForCurrentEvent().isEmpty)
        person.setValue(37, forKey: "age")
        let changes = person.changedValuesForCurrentEvent()
        #expect(Set(changes.keys) == ["age"])
        #expect(changes["age"] as? Int == 36)
        // changedValues() covers everything since the save, with the new values.
        #expect(person.changedValues()["name"] as? String == "Ada Lovelace" && person.changedValues()["age"] as? Int == 37)

        // A second change of the same key in the event still reports the value the event began with.
        stack.context.processPendingChanges()
        person.setValue("A. Lovelace", forKey: "name")
        person.setValue("Augusta Ada", forKey: "name")
        #expect(person.changedValuesForCurrentEvent()["name"] as? String == "Ada Lovelace")
        // Set back to what it was when the event began: no change to report.
        person.setValue("Ada Lovelace", forKey: "name")
        #expect(person.changedValuesForCurrentEvent().isEmpty)
    }

    @Test func aValueClearedInTheEventReportsItsOldValueAndANilOneNSNull() throws {
        let stack = try TestStack(.sqlite)
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        person.setValue("Ada", forKey: "name")
        person.setValue("ada@example.com", forKey: "email")
        try stack.context.save()
        person.setValue(nil, forKey: "email")
        person.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "born")
        let changes = person.changedValuesForCurrentEvent()
        #expect(changes["email"] as? String == "ada@example.com")
        #expect(changes["born"] is NSNull)
    }

    @Test func toOneRelationshipsReportTheirOldDestination() throws {
        let stack = try TestStack(.sqlite)
        let ada = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        ada.setValue("Ada", forKey: "name")
        let charles = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        charles.setValue("Charles", forKey: "name")
        let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: stack.context)
        pet.setValue(ada, forKey: "owner")
        try stack.context.save()

        pet.setValue(charles, forKey: "owner")
        #expect(pet.changedValuesForCurrentEvent()["owner"] as? NSManagedObject === ada)
        stack.context.processPendingChanges()
        pet.setValue(nil, forKey: "owner")
        #expect(pet.changedValuesForCurrentEvent()["owner"] as? NSManagedObject === charles)
        stack.context.processPendingChanges()
        pet.setValue(ada, forKey: "owner")
        #expect(pet.changedValuesForCurrentEvent()["owner"] is NSNull)
        // The inverse side is not reported: to-many relationships are left out.
        #expect(ada.changedValuesForCurrentEvent()["pets"] == nil)
    }

    @Test func aNewObjectReportsWhatDiffersFromItsDefaults() throws {
        let stack = try TestStack(.inMemory)
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        person.setValue("Ada", forKey: "name")
        person.setValue(0, forKey: "age")  // the default
        var changes = person.changedValuesForCurrentEvent()
        #expect(Set(changes.keys) == ["name"] && changes["name"] is NSNull)
        // In a later event, it starts from what it held when the event began.
        stack.context.processPendingChanges()
        person.setValue("Ada Lovelace", forKey: "name")
        changes = person.changedValuesForCurrentEvent()
        #expect(Set(changes.keys) == ["name"] && changes["name"] as? String == "Ada")
    }

    @Test func anObjectNotChangedInTheEventReportsNothing() throws {
        let stack = try TestStack(.sqlite)
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        person.setValue("Ada", forKey: "name")
        try stack.context.save()
        #expect(person.changedValuesForCurrentEvent().isEmpty)
        person.setValue("Ada Lovelace", forKey: "name")
        stack.context.processPendingChanges()
        #expect(person.changedValuesForCurrentEvent().isEmpty)
        stack.context.rollback()
        #expect(person.changedValuesForCurrentEvent().isEmpty)
        person.setValue("Augusta", forKey: "name")
        #expect(person.changedValuesForCurrentEvent()["name"] as? String == "Ada")
    }

    /// A refresh that keeps the object's changes keeps where the event began.
    @Test func aRefreshKeepingChangesKeepsWhereTheEventBegan() throws {
        let stack = try TestStack(.sqlite)
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        person.setValue("A", forKey: "name")
        try stack.context.save()
        person.setValue("B", forKey: "name")
        stack.context.processPendingChanges()
        stack.context.refresh(person, mergeChanges: true)
        #expect(person.changedValuesForCurrentEvent().isEmpty)
        person.setValue("C", forKey: "name")
        stack.context.refresh(person, mergeChanges: true)
        #expect(person.value(forKey: "name") as? String == "C")
        #expect(person.changedValuesForCurrentEvent()["name"] as? String == "B")
    }

    /// A deleted object's changes are not kept for the event, and leave nothing behind.
    @Test func anObjectBroughtBackFromDeletionReportsNoChangeOfItsOwn() throws {
        let stack = try TestStack(.sqlite)
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        person.setValue("A", forKey: "name")
        try stack.context.save()
        person.setValue("B", forKey: "name")
        stack.context.processPendingChanges()
        stack.context.delete(person)
        stack.context.insert(person)
        let seen = Self.observeUpdatedChanges(in: stack.context)
        defer { NotificationCenter.default.removeObserver(seen.token!) }
        stack.context.processPendingChanges()
        #expect(seen.changes.count == 1 && seen.changes.first?.isEmpty == true)
    }

    /// What an `ObjectsDidChange` observer sees: each event's changes, with the old values.
    @Test func anObjectsDidChangeObserverSeesEachEventsOwnChanges() throws {
        let stack = try TestStack(.sqlite)
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: stack.context)
        person.setValue("Ada", forKey: "name")
        try stack.context.save()
        let seen = Self.observeUpdatedChanges(in: stack.context)
        defer { NotificationCenter.default.removeObserver(seen.token!) }
        person.setValue("Ada Lovelace", forKey: "name")
        stack.context.processPendingChanges()
        person.setValue(36, forKey: "age")
        stack.context.processPendingChanges()
        #expect(seen.changes.count == 2)
        #expect(seen.changes.first?["name"] as? String == "Ada" && seen.changes.first?["age"] == nil)
        #expect(seen.changes.last?["age"] as? Int == 0 && seen.changes.last?["name"] == nil)
    }
}
