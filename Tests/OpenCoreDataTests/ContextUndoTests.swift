import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// Undo in a context (issue 15 item 2; §9): every kind of change is taken back and applied
/// again through `context.undo()` and `redo()`, both sides of every relationship included.
@Suite struct ContextUndoTests {
    /// A stack whose context records undo in groups made by hand, one per `step`.
    private func undoableStack(_ kind: StoreKind = .sqlite) throws -> TestStack {
        let stack = try TestStack(kind)
        let manager = UndoManager()
        manager.groupsByEvent = false
        stack.context.undoManager = manager
        return stack
    }

    /// One group of changes.
    private func step(_ stack: TestStack, _ body: () throws -> Void) rethrows {
        stack.context.undoManager!.beginUndoGrouping()
        try body()
        stack.context.processPendingChanges()
        stack.context.undoManager!.endUndoGrouping()
    }

    /// Saves without recording (the setup of a test).
    private func saved(_ stack: TestStack, _ body: () -> Void) throws {
        stack.context.undoManager!.disableUndoRegistration()
        body()
        try stack.context.save()
        stack.context.undoManager!.enableUndoRegistration()
    }

    @Test(arguments: StoreKind.allCases)
    func attributeChangesAreUndoneAndRedone(kind: StoreKind) throws {
        let stack = try undoableStack(kind)
        var ann: NSManagedObject!
        try saved(stack) { ann = stack.insert("Person", ["name": "Ann", "age": 30]) }
        step(stack) { ann.setValue("Anna", forKey: "name") }
        step(stack) { ann.setValue(31, forKey: "age") }

        stack.context.undo()
        #expect(ann.value(forKey: "age") as? Int == 30 && ann.value(forKey: "name") as? String == "Anna")
        stack.context.undo()
        #expect(ann.value(forKey: "name") as? String == "Ann")
        #expect(stack.context.undoManager?.canUndo == false)
        stack.context.redo()
        stack.context.redo()
        #expect(ann.value(forKey: "name") as? String == "Anna" && ann.value(forKey: "age") as? Int == 31)
        try stack.context.save()
        #expect(try stack.storedStrings("Person") == ["Anna"])
    }

    @Test(arguments: StoreKind.allCases)
    func anInsertIsTakenBackAndBroughtBackWithItsValues(kind: StoreKind) throws {
        let stack = try undoableStack(kind)
        var ann: NSManagedObject!
        step(stack) {
            ann = stack.insert("Person", ["name": "Ann", "age": 30])
        }
        stack.context.undo()
        #expect(stack.context.insertedObjects.isEmpty)
        #expect(ann.managedObjectContext == nil)
        #expect(!stack.context.hasChanges)
        stack.context.redo()
        #expect(stack.context.insertedObjects == [ann])
        #expect(ann.managedObjectContext === stack.context)
        #expect(ann.value(forKey: "name") as? String == "Ann")
        try stack.context.save()
        #expect(try stack.storedStrings("Person") == ["Ann"])
    }

    @Test(arguments: StoreKind.allCases)
    func aDeleteIsUndoneWithWhatItsRulesCascadedAndNullified(kind: StoreKind) throws {
        let stack = try undoableStack(kind)
        var ann: NSManagedObject!
        var pets: [NSManagedObject] = []
        try saved(stack) {
            ann = stack.insert("Person", ["name": "Ann"])
            pets = ["Rex", "Tom"].map { stack.insert("Pet", ["name": $0, "owner": ann!]) }
        }
        step(stack) { stack.context.delete(ann) }
        #expect(stack.context.deletedObjects == Set([ann] + pets))  // cascade

        stack.context.undo()
        #expect(stack.context.deletedObjects.isEmpty)
        #expect(!ann.isDeleted && pets.allSatisfy { !$0.isDeleted })
        #expect(members(ann, "pets") == Set(pets))
        #expect(pets.allSatisfy { $0.value(forKey: "owner") as? NSManagedObject === ann })

        stack.context.redo()
        #expect(stack.context.deletedObjects == Set([ann] + pets))
        try stack.context.save()
        #expect(try stack.storedCount("Person") == 0 && stack.storedCount("Pet") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func aToOneChangeIsUndoneOnBothSides(kind: StoreKind) throws {
        let stack = try undoableStack(kind)
        var ann: NSManagedObject!, bob: NSManagedObject!, rex: NSManagedObject!
        try saved(stack) {
            ann = stack.insert("Person", ["name": "Ann"])
            bob = stack.insert("Person", ["name": "Bob"])
            rex = stack.insert("Pet", ["name": "Rex", "owner": ann!])
        }
        step(stack) { rex.setValue(bob, forKey: "owner") }
        #expect(members(bob, "pets") == [rex] && members(ann, "pets").isEmpty)
        stack.context.undo()
        #expect(rex.value(forKey: "owner") as? NSManagedObject === ann)
        #expect(members(ann, "pets") == [rex] && members(bob, "pets").isEmpty)
        stack.context.redo()
        #expect(rex.value(forKey: "owner") as? NSManagedObject === bob)
        #expect(members(bob, "pets") == [rex] && members(ann, "pets").isEmpty)
    }

    @Test func toManyAndOrderedChangesAreUndoneOnBothSides() throws {
        let stack = try undoableStack()
        var list: NSManagedObject!, songs: [NSManagedObject] = [], club: NSManagedObject!, ann: NSManagedObject!
        try saved(stack) {
            list = stack.insert("Playlist", ["title": "Mix"])
            songs = ["a", "b", "c"].map { stack.insert("Song", ["title": $0]) }
            list.setValue(NSOrderedSet(array: songs), forKey: "songs")
            club = stack.insert("Club", ["name": "Chess"])
            ann = stack.insert("Person", ["name": "Ann"])
        }
        step(stack) {
            list.setValue(NSOrderedSet(array: [songs[2], songs[0]]), forKey: "songs")
            club.mutableSetValue(forKey: "members").add(ann!)
        }
        #expect(orderedMembers(list, "songs") == [songs[2], songs[0]])
        #expect(songs[1].value(forKey: "playlist") == nil)
        #expect(members(ann, "clubs") == [club])

        stack.context.undo()
        #expect(orderedMembers(list, "songs") == songs)
        #expect(songs.allSatisfy { $0.value(forKey: "playlist") as? NSManagedObject === list })
        #expect(members(club, "members").isEmpty && members(ann, "clubs").isEmpty)

        stack.context.redo()
        #expect(orderedMembers(list, "songs") == [songs[2], songs[0]])
        #expect(members(ann, "clubs") == [club])
        try stack.context.save()
        try stack.reopen()
        let stored = try stack.fetch("Playlist")[0]
        #expect(orderedMembers(stored, "songs").map { $0.value(forKey: "title") as? String } == ["c", "a"])
    }

    // MARK: Across saves and merges

    @Test(arguments: StoreKind.allCases)
    func anUndoneChangeAfterASaveIsAPendingChange(kind: StoreKind) throws {
        let stack = try undoableStack(kind)
        var ann: NSManagedObject!
        try saved(stack) { ann = stack.insert("Person", ["name": "Ann"]) }
        step(stack) { ann.setValue("Anna", forKey: "name") }
        try stack.context.save()
        stack.context.undo()
        #expect(stack.context.hasChanges)
        #expect(ann.value(forKey: "name") as? String == "Ann")
        try stack.context.save()
        #expect(try stack.storedStrings("Person") == ["Ann"])
    }

    @Test(arguments: StoreKind.allCases)
    func undoingASavedInsertDeletesAndUndoingASavedDeleteInsertsAgain(kind: StoreKind) throws {
        let stack = try undoableStack(kind)
        var ann: NSManagedObject!
        step(stack) { ann = stack.insert("Person", ["name": "Ann"]) }
        try stack.context.save()
        stack.context.undo()
        #expect(ann.isDeleted)
        try stack.context.save()
        #expect(try stack.storedCount("Person") == 0)

        stack.context.undoManager!.removeAllActions()
        var bob: NSManagedObject!
        try saved(stack) { bob = stack.insert("Person", ["name": "Bob", "age": 40]) }
        step(stack) { stack.context.delete(bob) }
        try stack.context.save()
        #expect(try stack.storedCount("Person") == 0)
        stack.context.undo()
        #expect(bob.isInserted)
        try stack.context.save()
        #expect(try stack.storedStrings("Person") == ["Bob"])
        #expect(try stack.fetch("Person", in: stack.newContext())[0].value(forKey: "age") as? Int == 40)
    }

    @Test func undoAfterAMergeLeavesTheMergedValuesAlone() throws {
        let stack = try undoableStack()
        var ann: NSManagedObject!
        try saved(stack) { ann = stack.insert("Person", ["name": "Ann", "age": 30]) }
        step(stack) { ann.setValue("Anna", forKey: "name") }
        let other = stack.newContext()
        let recorder = NotificationRecorder(.NSManagedObjectContextDidSave, object: other)
        try stack.fetch("Person", in: other)[0].setValue(44, forKey: "age")
        try other.save()
        stack.context.mergeChanges(fromContextDidSave: try #require(recorder.notifications.first))
        #expect(ann.value(forKey: "age") as? Int == 44)
        stack.context.undo()
        #expect(ann.value(forKey: "name") as? String == "Ann")
        #expect(ann.value(forKey: "age") as? Int == 44)
    }

    // MARK: Recording on and off

    @Test func nothingIsRecordedWithRegistrationDisabledOrWithoutAnUndoManager() throws {
        let stack = try undoableStack()
        stack.context.undoManager!.disableUndoRegistration()
        step(stack) { stack.insert("Person", ["name": "Ann"]) }
        stack.context.undoManager!.enableUndoRegistration()
        #expect(stack.context.undoManager?.canUndo == false)

        let plain = try TestStack(.sqlite)
        #expect(plain.context.undoManager == nil)
        plain.insert("Person", ["name": "Bob"])
        plain.context.undo()
        #expect(plain.context.insertedObjects.count == 1)
    }

    @Test func rollbackAndResetClearTheUndoStack() throws {
        let stack = try undoableStack()
        step(stack) { stack.insert("Person", ["name": "Ann"]) }
        stack.context.rollback()
        #expect(stack.context.undoManager?.canUndo == false)
        step(stack) { stack.insert("Person", ["name": "Bob"]) }
        stack.context.reset()
        #expect(stack.context.undoManager?.canUndo == false)
    }

    @Test func withGroupingByEventUndoTakesBackEverythingSinceTheLastGroup() throws {
        let stack = try TestStack(.sqlite)
        stack.context.undoManager = UndoManager()
        let ann = stack.insert("Person", ["name": "Ann"])
        ann.setValue("Anna", forKey: "name")
        stack.context.processPendingChanges()
        stack.context.undo()
        #expect(!stack.context.hasChanges)
        stack.context.redo()
        #expect(stack.context.insertedObjects == [ann])
        #expect(ann.value(forKey: "name") as? String == "Anna")
    }

    // MARK: What review found

    @Test func deleteRulesJoinTheGroupOfTheDeletionWithoutProcessingByHand() throws {
        let stack = try undoableStack()
        var ann: NSManagedObject!
        var pets: [NSManagedObject] = []
        try saved(stack) {
            ann = stack.insert("Person", ["name": "Ann"])
            pets = ["Rex", "Tom"].map { stack.insert("Pet", ["name": $0, "owner": ann!]) }
        }
        let manager = stack.context.undoManager!
        manager.beginUndoGrouping()
        stack.context.delete(ann)
        manager.endUndoGrouping()  // the checkpoint before closing runs the delete rules
        stack.context.undo()
        #expect(stack.context.deletedObjects.isEmpty)
        try stack.context.save()
        #expect(try stack.storedCount("Pet") == 2)
        #expect(members(ann, "pets") == Set(pets))
    }

    @Test func undoingASavedInsertRevertsItsRelationshipsBeforeDeletingIt() throws {
        let stack = try undoableStack()
        var rex: NSManagedObject!, bob: NSManagedObject!
        try saved(stack) {
            bob = stack.insert("Person", ["name": "Bob"])
            rex = stack.insert("Pet", ["name": "Rex", "owner": bob!])
        }
        var ann: NSManagedObject!
        step(stack) {
            ann = stack.insert("Person", ["name": "Ann"])
            rex.setValue(ann, forKey: "owner")
        }
        try stack.context.save()
        stack.context.undo()
        #expect(ann.isDeleted)
        #expect(rex.value(forKey: "owner") as? NSManagedObject === bob)
        #expect(!rex.isDeleted)  // Ann's cascade must not reach Rex
        try stack.context.save()
        #expect(try stack.storedStrings("Pet") == ["Rex"])
        #expect(try stack.storedStrings("Person") == ["Bob"])
    }

    @Test func anObjectInsertedThenDeletedInALaterGroupComesBackOnce() throws {
        let stack = try undoableStack()
        var ann: NSManagedObject!
        step(stack) { ann = stack.insert("Person", ["name": "Ann"]) }
        step(stack) { stack.context.delete(ann) }
        stack.context.undo()
        #expect(stack.context.insertedObjects == [ann])
        try stack.context.save()
        #expect(try stack.storedCount("Person") == 1)
    }

    @Test func aDeletedFaultComesBackWithItsValuesAfterTheDeletionIsSaved() throws {
        let stack = try undoableStack()
        try saved(stack) { stack.insert("Club", ["name": "Chess"]) }
        stack.context.reset()
        let club = try stack.fetch("Club")[0]
        stack.context.refresh(club, mergeChanges: false)
        #expect(club.isFault)
        step(stack) { stack.context.delete(club) }
        try stack.context.save()
        stack.context.undo()
        #expect(club.value(forKey: "name") as? String == "Chess")
        try stack.context.save()
        #expect(try stack.storedStrings("Club") == ["Chess"])
    }

    @Test func addingAnExistingMemberOfAnUnloadedManyToManyAndUndoingKeepsIt() throws {
        let stack = try undoableStack()
        try saved(stack) {
            let club = stack.insert("Club", ["name": "Chess"])
            let ann = stack.insert("Person", ["name": "Ann"])
            club.mutableSetValue(forKey: "members").add(ann)
        }
        stack.context.reset()
        let club = try stack.fetch("Club")[0]
        let ann = try stack.fetch("Person")[0]
        step(stack) { club.mutableSetValue(forKey: "members").add(ann) }
        stack.context.undo()
        try stack.context.save()
        try stack.reopen()
        #expect(strings(members(try stack.fetch("Club")[0], "members")) == ["Ann"])
    }

    @Test func redoAfterASaveIsAPendingChangeToo() throws {
        let stack = try undoableStack()
        var ann: NSManagedObject!
        try saved(stack) { ann = stack.insert("Person", ["name": "Ann"]) }
        step(stack) { ann.setValue("Anna", forKey: "name") }
        stack.context.undo()
        try stack.context.save()
        stack.context.redo()
        #expect(stack.context.hasChanges)
        try stack.context.save()
        #expect(try stack.storedStrings("Person") == ["Anna"])
    }

    @Test func anAutomaticMergeRecordsNothingWhenGroupingByEvent() throws {
        let stack = try TestStack(.sqlite)
        let ann = stack.insert("Person", ["name": "Ann", "age": 30])
        try stack.context.save()
        stack.context.undoManager = UndoManager()
        ann.setValue("Anna", forKey: "name")
        stack.context.undo()
        #expect(stack.context.undoManager?.canRedo == true)
        let other = stack.newContext()
        let recorder = NotificationRecorder(.NSManagedObjectContextDidSave, object: other)
        try stack.fetch("Person", in: other)[0].setValue(44, forKey: "age")
        try other.save()
        stack.context.mergeChanges(fromContextDidSave: try #require(recorder.notifications.first))
        // The merge neither cleared the redo stack nor became something to undo.
        #expect(stack.context.undoManager?.canRedo == true)
        stack.context.redo()
        #expect(ann.value(forKey: "name") as? String == "Anna")
        #expect(ann.value(forKey: "age") as? Int == 44)
    }

    @Test func anOrderedMoveIsUndone() throws {
        let stack = try undoableStack()
        var list: NSManagedObject!, songs: [NSManagedObject] = []
        try saved(stack) {
            list = stack.insert("Playlist", ["title": "Mix"])
            songs = ["a", "b", "c"].map { stack.insert("Song", ["title": $0]) }
            list.setValue(NSOrderedSet(array: songs), forKey: "songs")
        }
        step(stack) { list.mutableOrderedSetValue(forKey: "songs").moveObjects(at: IndexSet(integer: 0), to: 2) }
        #expect(orderedMembers(list, "songs") == [songs[1], songs[2], songs[0]])
        stack.context.undo()
        #expect(orderedMembers(list, "songs") == songs)
        stack.context.redo()
        #expect(orderedMembers(list, "songs") == [songs[1], songs[2], songs[0]])
    }

    @Test func aNewObjectInANestedGroupIsTakenBackWithThatGroup() throws {
        let stack = try undoableStack()
        var bob: NSManagedObject!, rex: NSManagedObject!
        try saved(stack) {
            bob = stack.insert("Person", ["name": "Bob"])
            rex = stack.insert("Pet", ["name": "Rex", "owner": bob!])
        }
        let manager = stack.context.undoManager!
        manager.beginUndoGrouping()
        bob.setValue("Bobby", forKey: "name")
        let cy = stack.insert("Person", ["name": "Cy"])  // new in the outer group
        manager.beginUndoGrouping()
        cy.setValue("Cyrus", forKey: "name")  // changed in the nested one: recorded there
        let ann = stack.insert("Person", ["name": "Ann"])
        rex.setValue(ann, forKey: "owner")
        stack.context.processPendingChanges()
        manager.endUndoGrouping()

        manager.undoNestedGroup()  // only the nested group: Ann leaves, Rex goes back to Bob
        #expect(ann.managedObjectContext == nil)
        #expect(rex.value(forKey: "owner") as? NSManagedObject === bob)
        #expect(members(bob, "pets") == [rex])
        #expect(bob.value(forKey: "name") as? String == "Bobby")
        #expect(cy.value(forKey: "name") as? String == "Cy")
        manager.endUndoGrouping()
        stack.context.undo()
        #expect(bob.value(forKey: "name") as? String == "Bob")
        try stack.context.save()
        #expect(try stack.storedStrings("Person") == ["Bob"])
    }
}
