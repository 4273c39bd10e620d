import Foundation
@testable import OpenCoreData
import Testing

/// A Person that records the snapshot events it is told, and what its name was at each (§1.19).
final class SnapshotWatchingPerson: NSManagedObject {
    var events: [NSSnapshotEventType] = []
    var namesAtEvents: [String?] = []
    /// Run at each event, after it is recorded.
    var onEvent: ((SnapshotWatchingPerson) -> Void)?

    override func awake(fromSnapshotEvents flags: NSSnapshotEventType) {
        super.awake(fromSnapshotEvents: flags)
        events.append(flags)
        namesAtEvents.append(value(forKey: "name") as? String)
        onEvent?(self)
    }
}

/// `awake(fromSnapshotEvents:)` (COREDATA-SEMANTICS §1.19, §9.5, §9.6): told when an undo,
/// `rollback()`, a refresh or a merge policy reset an object's values, on a SQLite store on disk.
@Suite struct SnapshotEventTests {
    private func stack() throws -> TestStack {
        let model = TestModel.make()
        model.entitiesByName["Person"]?.managedObjectClass = SnapshotWatchingPerson.self
        return try TestStack(.sqlite, model: model)
    }

    private func savedPerson(in stack: TestStack, named name: String = "Ada") throws -> SnapshotWatchingPerson {
        let person = try #require(stack.insert("Person", ["name": name]) as? SnapshotWatchingPerson)
        try stack.context.save()
        return person
    }

    /// Another context on the same coordinator saves the (one) person's age.
    private func saveAgeElsewhere(_ age: Int, in stack: TestStack) throws {
        let other = stack.newContext()
        let theirs = try #require(try stack.fetch("Person", in: other).first)
        theirs.setValue(age, forKey: "age")
        try other.save()
    }

    @Test func theRawValuesAreCoreDatas() {
        #expect(NSSnapshotEventType.undoInsertion.rawValue == 1 << 1)
        #expect(NSSnapshotEventType.undoDeletion.rawValue == 1 << 2)
        #expect(NSSnapshotEventType.undoUpdate.rawValue == 1 << 3)
        #expect(NSSnapshotEventType.rollback.rawValue == 1 << 4)
        #expect(NSSnapshotEventType.refresh.rawValue == 1 << 5)
        #expect(NSSnapshotEventType.mergePolicy.rawValue == 1 << 6)
    }

    /// §9.5: rollback raises `.rollback` on the changed and the deleted objects, which then read
    /// their saved values; a new object, which leaves, is told nothing.
    @Test func rollbackTellsTheObjectsItReturnedToTheirSavedValues() throws {
        let stack = try stack()
        let edited = try savedPerson(in: stack, named: "Ada")
        let deleted = try savedPerson(in: stack, named: "Bea")
        edited.setValue("Changed", forKey: "name")
        stack.context.delete(deleted)
        let new = try #require(stack.insert("Person", ["name": "New"]) as? SnapshotWatchingPerson)
        stack.context.rollback()
        #expect(edited.events == [.rollback])
        #expect(edited.namesAtEvents == ["Ada"])
        #expect(deleted.events == [.rollback])
        #expect(!deleted.isDeleted)
        #expect(new.events.isEmpty)
        #expect(!stack.context.hasChanges)
    }

    /// What an override sets with a primitive setter at a rollback stays, and is no change.
    @Test func valuesAnOverrideSetsAtRollbackStay() throws {
        let stack = try stack()
        let person = try savedPerson(in: stack)
        person.onEvent = { $0.setPrimitiveValue("Recomputed", forKey: "nickname") }
        person.setValue("Changed", forKey: "name")
        stack.context.rollback()
        #expect(person.events == [.rollback])
        #expect(person.value(forKey: "nickname") as? String == "Recomputed")
        #expect(person.value(forKey: "name") as? String == "Ada")
        #expect(!stack.context.hasChanges)
    }

    /// Redoing a deletion that was undone takes the object away again: `.undoInsertion`.
    @Test func redoOfADeletion() throws {
        let stack = try stack()
        let person = try savedPerson(in: stack)
        stack.context.undoManager = UndoManager()
        stack.context.delete(person)
        stack.context.processPendingChanges()
        stack.context.undo()
        stack.context.redo()
        #expect(person.events == [.undoDeletion, .undoInsertion])
        #expect(person.isDeleted)
        try stack.context.save()
        #expect(try stack.storedCount("Person") == 0)
    }

    /// §9.6: an undo that sets several values of an object back tells it once, with
    /// `.undoUpdate`, when every value is back; a redo tells it again.
    @Test func undoOfAnUpdateTellsTheObjectOnceWithItsValuesBack() throws {
        let stack = try stack()
        let person = try savedPerson(in: stack)
        stack.context.undoManager = UndoManager()
        person.setValue("Changed", forKey: "name")
        person.setValue(41, forKey: "age")
        stack.context.processPendingChanges()
        #expect(person.events.isEmpty)
        stack.context.undo()
        #expect(person.events == [.undoUpdate])
        #expect(person.namesAtEvents == ["Ada"])
        #expect(person.value(forKey: "age") as? Int64 == 0)
        stack.context.redo()
        #expect(person.events == [.undoUpdate, .undoUpdate])
        #expect(person.namesAtEvents == ["Ada", "Changed"])
    }

    /// §9.6: undoing an insertion tells the object `.undoInsertion` (it has left the context);
    /// redoing it brings the object back with `.undoDeletion`.
    @Test func undoOfAnInsertionAndItsRedo() throws {
        let stack = try stack()
        stack.context.undoManager = UndoManager()
        let person = try #require(stack.insert("Person", ["name": "Ada"]) as? SnapshotWatchingPerson)
        stack.context.processPendingChanges()
        stack.context.undo()
        #expect(person.events == [.undoInsertion])
        #expect(person.managedObjectContext == nil)
        stack.context.redo()
        #expect(person.events == [.undoInsertion, .undoDeletion])
        #expect(person.managedObjectContext === stack.context)
        try stack.context.save()
        #expect(try stack.storedCount("Person") == 1)
    }

    /// §9.6: undoing a deletion tells the object `.undoDeletion`, and it is no longer deleted.
    @Test func undoOfADeletion() throws {
        let stack = try stack()
        let person = try savedPerson(in: stack)
        stack.context.undoManager = UndoManager()
        stack.context.delete(person)
        stack.context.processPendingChanges()
        stack.context.undo()
        #expect(person.events == [.undoDeletion])
        #expect(!person.isDeleted)
        try stack.context.save()
        #expect(try stack.storedCount("Person") == 1)
    }

    /// An undo run straight through the undo manager (as an app's Edit menu does) is told at the
    /// end of its event — the undo manager's checkpoints process the context's pending changes —
    /// once, and before that event's ObjectsDidChange.
    @Test func anUndoThroughTheUndoManagerIsToldBeforeItsObjectsDidChange() throws {
        let stack = try stack()
        let person = try savedPerson(in: stack)
        let undoManager = UndoManager()
        stack.context.undoManager = undoManager
        person.setValue("Changed", forKey: "name")
        person.setValue(41, forKey: "age")
        stack.context.processPendingChanges()
        let seen = EventsSeenAtPosting(person)
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: stack.context,
                                                              queue: nil) { _ in seen.record() }
        defer { NotificationCenter.default.removeObserver(observer) }
        undoManager.undo()
        stack.context.processPendingChanges()
        #expect(person.events == [.undoUpdate])
        #expect(person.namesAtEvents == ["Ada"])
        #expect(seen.events == [.undoUpdate])
    }

    /// A refresh that keeps the object realized (it has changes, merged back on top of the
    /// store's new values) tells `.refresh`; one that turns it into a fault tells nothing.
    @Test func refreshKeepingChangesTellsRefresh() throws {
        let stack = try stack()
        let person = try savedPerson(in: stack)
        try saveAgeElsewhere(50, in: stack)

        person.setValue("Mine", forKey: "name")
        stack.context.refresh(person, mergeChanges: true)
        #expect(person.events == [.refresh])
        #expect(person.namesAtEvents == ["Mine"])
        #expect(person.value(forKey: "age") as? Int64 == 50)

        stack.context.refresh(person, mergeChanges: false)
        #expect(person.events == [.refresh])
        #expect(person.isFault)
    }

    /// A save whose conflict a merge policy settles tells the object `.mergePolicy`; the error
    /// policy, which settles nothing, tells nothing.
    @Test func aMergePolicySettlingAConflictTellsMergePolicy() throws {
        let stack = try stack()
        let person = try savedPerson(in: stack)
        try saveAgeElsewhere(50, in: stack)

        person.setValue("Mine", forKey: "name")
        #expect(throws: CocoaError.self) { try stack.context.save() }
        #expect(person.events.isEmpty)
        stack.context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try stack.context.save()
        #expect(person.events == [.mergePolicy])
        #expect(try stack.storedStrings("Person") == ["Mine"])
        #expect(person.value(forKey: "age") as? Int64 == 50)
    }
}

/// The events a person had when a notification was posted.
private final class EventsSeenAtPosting: @unchecked Sendable {
    // @unchecked Sendable: used on the test's thread only; the context posts synchronously there.
    private let person: SnapshotWatchingPerson
    private(set) var events: [NSSnapshotEventType]?

    init(_ person: SnapshotWatchingPerson) { self.person = person }

    func record() { events = person.events }
}
