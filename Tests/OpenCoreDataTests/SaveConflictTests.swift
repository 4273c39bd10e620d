import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// A save that meets conflicts reports every one of them as data: an `NSMergeConflict` per row
/// changed or deleted elsewhere since it was read, an `NSConstraintConflict` naming the saved
/// object a new one collides with; and writes nothing.
@Suite struct SaveConflictTests {
    @Test(arguments: StoreKind.allCases)
    func everyChangedOrDeletedRowIsAMergeConflict(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        for name in ["Ada", "Bob", "Cy"] { _ = stack.insert("Person", ["name": name, "age": 30]) }
        try stack.context.save()
        let mine = try stack.fetch("Person", sortedBy: "name")

        // Another context changes Ada and Bob and deletes Cy, and saves first.
        let other = stack.newContext()
        let theirs = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).sorted {
            ($0.value(forKey: "name") as! String) < ($1.value(forKey: "name") as! String)
        }
        theirs[0].setValue(41, forKey: "age")
        theirs[1].setValue(42, forKey: "age")
        other.delete(theirs[2])
        try other.save()

        for (index, person) in mine.enumerated() { person.setValue(50 + index, forKey: "age") }
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code == .managedObjectMerge)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(conflicts.count == 3)
        let byName = Dictionary(uniqueKeysWithValues: conflicts.map { ($0.sourceObject.value(forKey: "name") as! String, $0) })
        for (name, theirAge) in [("Ada", 41), ("Bob", 42)] {
            let conflict = try #require(byName[name])
            #expect(conflict.oldVersionNumber == 1)
            #expect(conflict.newVersionNumber == 2)
            #expect(conflict.cachedSnapshot?["age"] as? Int64 == 30)
            #expect(conflict.persistedSnapshot?["age"] as? Int64 == Int64(theirAge))
            #expect((conflict.objectSnapshot?["age"] as? Int64).map { $0 >= 50 } == true)
        }
        let deleted = try #require(byName["Cy"])
        #expect(deleted.newVersionNumber == 0)
        #expect(deleted.persistedSnapshot == nil)
        #expect(error.message.hasPrefix("Could not merge changes (3 objects): "))

        // Nothing was written: the store has the other context's values.
        #expect(stack.context.hasChanges)
        try stack.reopen()
        #expect(try stack.fetch("Person", sortedBy: "name").map { $0.value(forKey: "age") as! Int } == [41, 42])
    }

    /// Deleting many rows, some of which another context changed or deleted first: exactly those
    /// are conflicts (the SQLite store deletes rows in batches, and must still tell them apart),
    /// and nothing is deleted.
    @Test(arguments: StoreKind.allCases, [[10], [10, 200, 299]])
    func deletingRowsChangedOrDeletedElsewhereReportsExactlyThose(kind: StoreKind, changedElsewhere: [Int]) throws {
        let stack = try TestStack(kind)
        for index in 0..<300 { _ = stack.insert("Person", ["name": String(format: "p%03d", index), "age": 30]) }
        try stack.context.save()
        let mine = try stack.fetch("Person", sortedBy: "name")

        // The first listed is changed elsewhere, the others deleted elsewhere.
        let other = stack.newContext()
        let theirs = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).sorted {
            ($0.value(forKey: "name") as! String) < ($1.value(forKey: "name") as! String)
        }
        theirs[changedElsewhere[0]].setValue(41, forKey: "age")
        for index in changedElsewhere.dropFirst() { other.delete(theirs[index]) }
        try other.save()

        for person in mine { stack.context.delete(person) }
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code == .managedObjectMerge)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        let versions = Dictionary(uniqueKeysWithValues: conflicts.map { ($0.sourceObject.value(forKey: "name") as! String, $0.newVersionNumber) })
        var expected = [String(format: "p%03d", changedElsewhere[0]): 2]
        for index in changedElsewhere.dropFirst() { expected[String(format: "p%03d", index)] = 0 }
        #expect(versions == expected)

        // Nothing was deleted by this save.
        try stack.reopen()
        #expect(try stack.fetch("Person", sortedBy: "name").count == 300 - (changedElsewhere.count - 1))
    }

    /// Deleting a fault whose row another context deleted first: the row cannot be read, so the
    /// context knows no version of it, and the save still fails with it as a conflict.
    @Test(arguments: StoreKind.allCases)
    func deletingAFaultWhoseRowIsGoneIsAMergeConflict(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let gone = stack.insert("Person", ["name": "Ann"])
        _ = stack.insert("Person", ["name": "Bob"])
        try stack.context.save()
        let mine = stack.newContext()
        let fault = mine.object(with: gone.objectID)
        stack.context.delete(gone)
        try stack.context.save()

        mine.delete(fault)
        let error = try #require(throws: CocoaError.self) { try mine.save() }
        #expect(error.code == .managedObjectMerge)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(conflicts.map(\.newVersionNumber) == [0])
        #expect(conflicts.first?.sourceObject === fault)
    }

    @Test(arguments: StoreKind.allCases)
    func aUniquenessConflictNamesTheSavedObjectByQuery(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let saved = stack.insert("Person", ["name": "Ada", "email": "ada@example.com"])
        try stack.context.save()
        let duplicate = stack.insert("Person", ["name": "Ada Two", "email": "ada@example.com"])
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code == .managedObjectConstraintMerge)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
        let conflict = try #require(conflicts.first)
        #expect(conflict.constraint == ["email"])
        #expect(conflict.constraintValues["email"] as? String == "ada@example.com")
        #expect(conflict.conflictingObjects.first === duplicate)
        #expect(conflict.databaseObject === saved)
        #expect(conflict.databaseSnapshot?["name"] as? String == "Ada")
        #expect(conflict.conflictingSnapshots.first?["name"] as? String == "Ada Two")
    }

    /// One save breaking a constraint twice: a new object takes a saved object's email, and two
    /// new objects share another. Both conflicts are reported, each with its objects; nothing is
    /// written and the context keeps its changes.
    @Test(arguments: StoreKind.allCases)
    func everyUniquenessConflictOfASaveIsReported(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let saved = stack.insert("Person", ["name": "Ada", "email": "ada@example.com"])
        try stack.context.save()
        let taker = stack.insert("Person", ["name": "Ada Two", "email": "ada@example.com"])
        let first = stack.insert("Person", ["name": "Bo", "email": "bo@example.com"])
        let second = stack.insert("Person", ["name": "Bo Two", "email": "bo@example.com"])
        let fine = stack.insert("Person", ["name": "Cy", "email": "cy@example.com"])
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect(error.code == .managedObjectConstraintMerge)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
        #expect(conflicts.count == 2)
        let withSaved = try #require(conflicts.first { $0.databaseObject != nil })
        #expect(withSaved.databaseObject === saved)
        #expect(withSaved.conflictingObjects.map(ObjectIdentifier.init) == [ObjectIdentifier(taker)])
        #expect(withSaved.constraintValues["email"] as? String == "ada@example.com")
        let amongNew = try #require(conflicts.first { $0.databaseObject == nil })
        #expect(Set(amongNew.conflictingObjects.map(ObjectIdentifier.init)) == [ObjectIdentifier(first), ObjectIdentifier(second)])
        #expect(amongNew.databaseSnapshot == nil)
        #expect(amongNew.constraintValues["email"] as? String == "bo@example.com")
        #expect(error.message.hasPrefix("Uniqueness constraint violated (2 conflicts): "))

        #expect(fine.isInserted && taker.isInserted && stack.context.hasChanges)
        try stack.reopen()
        #expect(try stack.storedStrings("Person") == ["Ada"])
    }

    /// A changed object that takes another saved object's value conflicts with that object.
    @Test(arguments: StoreKind.allCases)
    func aChangedObjectConflictsWithTheSavedHolderOfItsNewValue(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada", "email": "ada@example.com"])
        let bo = stack.insert("Person", ["name": "Bo", "email": "bo@example.com"])
        try stack.context.save()
        bo.setValue("ada@example.com", forKey: "email")
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.databaseObject === ada)
        #expect(conflicts.first?.conflictingObjects.first === bo)
        #expect(conflicts.first?.databaseSnapshot?["email"] as? String == "ada@example.com")
        try stack.reopen()
        #expect(try stack.storedStrings("Person", "email") == ["ada@example.com", "bo@example.com"])
    }

    /// A value freed by one object and taken by another in the same save is no conflict,
    /// whichever of the two the store writes first.
    @Test(arguments: StoreKind.allCases)
    func aValueFreedAndTakenInOneSaveIsNoConflict(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ada = stack.insert("Person", ["name": "Ada", "email": "a@example.com"])
        try stack.context.save()
        ada.setValue("b@example.com", forKey: "email")
        stack.insert("Person", ["name": "Ann", "email": "a@example.com"])
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.storedStrings("Person", "email") == ["a@example.com", "b@example.com"])
        // The conflicts of a failed save are the error's conflictList too, as in Core Data.
        stack.insert("Person", ["name": "Bea", "email": "b@example.com"])
        let error = try #require(throws: CocoaError.self) { try stack.context.save() }
        #expect((error.userInfo["conflictList"] as? [NSConstraintConflict])?.count == 1)
    }
}
