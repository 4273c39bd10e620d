import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

/// `NSManagedObjectContext.detectConflicts(for:)`: optimistic locking for an object the save
/// depends on without changing it. Apple's documentation: "If on the next invocation of save()
/// the object has been modified in the persistent store, the save fails."
@Suite struct ConflictDetectionTests {
    static let stores: [StoreKind] = [.sqlite, .inMemory, .atomic, .binary, .xml]

    /// Ada and Bob saved; `mine` are this context's copies, sorted by name.
    private func savedPeople(_ kind: StoreKind) throws -> (TestStack, [NSManagedObject]) {
        let stack = try TestStack(kind)
        for name in ["Ada", "Bob"] { stack.insert("Person", ["name": name, "age": 30]) }
        try stack.context.save()
        return (stack, try stack.fetch("Person", sortedBy: "name"))
    }

    /// Ada's and Bob's ages as the store has them, read after reopening it.
    private func storedAges(of stack: TestStack) throws -> [Int] {
        try stack.reopen()
        return try stack.fetch("Person", sortedBy: "name").map { $0.value(forKey: "age") as! Int }
    }

    /// Another context sets Ada's age (or deletes her) and saves first.
    private func changeAdaElsewhere(in stack: TestStack, delete: Bool = false) throws {
        let other = stack.newContext()
        let ada = try #require(try stack.fetch("Person", NSPredicate(format: "name == 'Ada'"), in: other).first)
        if delete { other.delete(ada) } else { ada.setValue(41, forKey: "age") }
        try other.save()
    }

    @Test(arguments: stores)
    func aMarkedObjectChangedElsewhereFailsTheSaveAndNothingIsWritten(kind: StoreKind) throws {
        let (stack, mine) = try savedPeople(kind)
        stack.context.detectConflicts(for: mine[0])
        try changeAdaElsewhere(in: stack)

        mine[1].setValue(52, forKey: "age")
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code == .managedObjectMerge)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.sourceObject === mine[0])
        #expect(conflicts.first?.oldVersionNumber == 1)
        #expect(conflicts.first?.newVersionNumber == 2)
        #expect(conflicts.first?.persistedSnapshot?["age"] as? Int64 == 41)

        // Bob's change was not written, and stays pending.
        #expect(stack.context.hasChanges)
        #expect(try storedAges(of: stack) == [41, 30])
    }

    @Test(arguments: stores)
    func aMarkedObjectDeletedElsewhereIsAConflict(kind: StoreKind) throws {
        let (stack, mine) = try savedPeople(kind)
        stack.context.detectConflicts(for: mine[0])
        try changeAdaElsewhere(in: stack, delete: true)

        mine[1].setValue(52, forKey: "age")
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(conflicts.map(\.newVersionNumber) == [0])
        #expect(conflicts.first?.persistedSnapshot == nil)
    }

    @Test(arguments: stores)
    func anUnmarkedUnchangedObjectIsNotChecked(kind: StoreKind) throws {
        let (stack, mine) = try savedPeople(kind)
        try changeAdaElsewhere(in: stack)
        mine[1].setValue(52, forKey: "age")
        try stack.context.save()
        #expect(try storedAges(of: stack) == [41, 52])
    }

    @Test(arguments: stores)
    func theMarkLastsUntilASuccessfulSave(kind: StoreKind) throws {
        let (stack, mine) = try savedPeople(kind)
        stack.context.detectConflicts(for: mine[0])
        mine[1].setValue(52, forKey: "age")
        try stack.context.save()  // Ada unchanged in the store: no conflict

        try changeAdaElsewhere(in: stack)
        mine[1].setValue(53, forKey: "age")
        try stack.context.save()  // the mark went with the first save
        #expect(try storedAges(of: stack) == [41, 53])
    }

    @Test func aResetForgetsTheMarks() throws {
        let (stack, mine) = try savedPeople(.sqlite)
        stack.context.detectConflicts(for: mine[0])
        #expect(stack.context.conflictDetectionMarks.count == 1)
        stack.context.reset()
        #expect(stack.context.conflictDetectionMarks.isEmpty)
        try changeAdaElsewhere(in: stack)
        let bob = try #require(try stack.fetch("Person", NSPredicate(format: "name == 'Bob'")).first)
        bob.setValue(52, forKey: "age")
        try stack.context.save()
    }

    /// Every policy but the error policy settles a marked object's conflict by giving it the
    /// store's version: the context changed nothing of it, so nothing of the context's is written
    /// (overwrite does not put back the age Ada had when the context read her); Bob's change is.
    @Test(arguments: stores, [NSMergePolicyType.mergeByPropertyStoreTrumpMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType,
                              .overwriteMergePolicyType, .rollbackMergePolicyType])
    func theMergePolicySettlesTheConflict(kind: StoreKind, policy: NSMergePolicyType) throws {
        let (stack, mine) = try savedPeople(kind)
        stack.context.mergePolicy = NSMergePolicy(merge: policy)
        stack.context.detectConflicts(for: mine[0])
        try changeAdaElsewhere(in: stack)

        mine[1].setValue(52, forKey: "age")
        let updated = LockedState<Set<NSManagedObjectID>>([])
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: stack.context, queue: nil) { note in
            let ids = Set(((note.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject>) ?? []).map(\.objectID))
            updated.withLock { $0 = ids }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try stack.context.save()
        #expect(updated.withLock { $0 } == [mine[1].objectID])
        #expect(mine[0].value(forKey: "age") as? Int == 41)
        #expect(!mine[0].hasChanges)
        #expect(try storedAges(of: stack) == [41, 52])
    }

    /// A store of one's own gets the marked objects in its save request's `lockedObjects`, and
    /// checks them itself.
    @Test func anIncrementalStoreIsHandedTheLockedObjects() throws {
        let (stack, mine) = try savedPeople(.json)
        let store = try #require(stack.coordinator.persistentStores.first as? JSONFileStore)
        stack.context.detectConflicts(for: mine[0])
        mine[1].setValue(52, forKey: "age")
        try stack.context.save()
        #expect(store.lastLockedObjectIDs == [mine[0].objectID])

        mine[1].setValue(53, forKey: "age")
        try stack.context.save()
        #expect(store.lastLockedObjectIDs == nil)
    }
}
