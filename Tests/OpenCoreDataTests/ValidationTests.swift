import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Validation at save (§5.2–§5.6) and uniqueness constraints (§8.10). In the test model
/// Person.name is mandatory, Person.age is within 0…150, Person.email matches `[^@]+@[^@]+`
/// and is unique.
@Suite struct ValidationTests {
    /// Saves and returns the error thrown (recording an issue when nothing is thrown).
    private func saveError(_ stack: TestStack, sourceLocation: SourceLocation = #_sourceLocation) -> NSError? {
        let error = #expect(throws: (any Error).self, sourceLocation: sourceLocation) { try stack.context.save() }
        return error.map { $0 as NSError }
    }

    // MARK: One rule, one code

    @Test(arguments: StoreKind.allCases)
    func missingMandatoryAttributeIs1570(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["age": 30])
        let error = try #require(saveError(stack))
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == 1570)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "name")
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === person)
        #expect(try stack.storedCount("Person") == 0)
    }

    @Test(arguments: [(StoreKind.sqlite, 151, 1610), (.sqlite, -1, 1620), (.inMemory, 151, 1610), (.inMemory, -1, 1620),
                      (.sqlite, 1_000_000, 1610), (.inMemory, Int.min, 1620)])
    func numberOutOfRangeIs1610Or1620(kind: StoreKind, age: Int, code: Int) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada", "age": age])
        let error = try #require(saveError(stack))
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == code)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "age")
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === person)
        #expect(try stack.storedCount("Person") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func numbersAtTheLimitsAreValid(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Old", "age": 150])
        _ = stack.insert("Person", ["name": "New", "age": 0])
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.fetch("Person", sortedBy: "age").map { $0.value(forKey: "age") as? Int } == [0, 150])
    }

    @Test(arguments: StoreKind.allCases)
    func stringFailingTheRegexIs1680(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada", "email": "not-an-address"])
        let error = try #require(saveError(stack))
        #expect(error.code == 1680)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "email")
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === person)
        // The pattern must match the whole string: two @ fail too.
        person.setValue("a@b@c", forKey: "email")
        #expect(saveError(stack)?.code == 1680)
        person.setValue("ada@example.com", forKey: "email")
        try stack.context.save()
        #expect(try stack.storedStrings("Person", "email") == ["ada@example.com"])
    }

    @Test(arguments: StoreKind.allCases)
    func severalErrorsAre1560WithTheDetails(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        // One object with two problems, and a second invalid object.
        let first = stack.insert("Person", ["age": 200])
        let second = stack.insert("Person", ["name": "Bob", "email": "bob"])
        let error = try #require(saveError(stack))
        // §5.4: one error with code 1560 listing the individual errors.
        #expect(error.code == 1560)
        let details = try #require(error.userInfo[NSDetailedErrorsKey] as? [Error])
        #expect(details.count == 3)
        let found = Set(details.map { detail -> String in
            let info = (detail as NSError).userInfo
            let object = info[NSValidationObjectErrorKey] as? NSManagedObject
            let who = object === first ? "first" : object === second ? "second" : "?"
            return "\(who).\(info[NSValidationKeyErrorKey] as? String ?? "?").\(detail.code)"
        })
        #expect(found == ["first.name.1570", "first.age.1610", "second.email.1680"])
        #expect(try stack.storedCount("Person") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func twoInvalidObjectsGive1560AndOneGivesItsOwnCode(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", [:])
        let other = stack.insert("Person", [:])
        let error = try #require(saveError(stack))
        #expect(error.code == 1560)
        #expect((error.userInfo[NSDetailedErrorsKey] as? [Error])?.count == 2)
        // §5.4: with a single error the specific error is thrown directly.
        other.setValue("Other", forKey: "name")
        #expect(saveError(stack)?.code == 1570)
    }

    // MARK: Values of the wrong type, unknown keys

    @Test(arguments: StoreKind.allCases)
    func aValueOfTheWrongTypeIsReportedAtSaveAs1550(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada", "age": 30])
        // Core Data raises at once; OpenCoreData's non-throwing setValue records the problem.
        person.setValue("old", forKey: "age")
        #expect(person.value(forKey: "age") as? Int == 30)
        let error = try #require(saveError(stack))
        #expect(error.code == 1550)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "age")
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === person)
        #expect(error.localizedDescription.contains("Person"))
        #expect(error.localizedDescription.contains("age"))
        // The place is named once, with the reason the value was refused.
        #expect(error.localizedDescription.components(separatedBy: "Validation failed for").count == 2)
        #expect(error.localizedDescription.contains("unacceptable value"))
        #expect(try stack.storedCount("Person") == 0)
        // Setting a good value clears the problem.
        person.setValue(31, forKey: "age")
        try stack.context.save()
        #expect(try stack.fetch("Person", in: stack.newContext()).first?.value(forKey: "age") as? Int == 31)
    }

    /// A refusal is reported by the next save even when nothing else changed the object since
    /// it was saved; a set of objects with a member that is no object is refused whole.
    @Test(arguments: StoreKind.allCases)
    func aRefusalOnASavedObjectFailsTheNextSave(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada", "age": 30])
        let club = stack.insert("Club", ["name": "Chess"])
        try stack.context.save()
        person.setValue("old", forKey: "age")
        #expect(saveError(stack)?.code == 1550)
        person.setValue(30, forKey: "age")
        try stack.context.save()

        club.setValue(NSSet(array: [person, "Grace"]), forKey: "members")
        let mixed = try #require(saveError(stack))
        #expect(mixed.userInfo[NSValidationKeyErrorKey] as? String == "members")
        #expect((club.value(forKey: "members") as? Set<NSManagedObject>)?.isEmpty == true)
        club.setValue(NSSet(array: [person]), forKey: "members")
        try stack.context.save()

        // setPrimitiveValue refuses as setValue does, and a good value clears it.
        person.setPrimitiveValue("tall", forKey: "height")
        #expect(saveError(stack)?.code == 1550)
        person.setPrimitiveValue(1.8, forKey: "height")
        try stack.context.save()
    }

    @Test(arguments: StoreKind.allCases)
    func aNonObjectForAToOneIsReportedAtSaveAs1550(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let pet = stack.insert("Pet", ["name": "Rex"])
        pet.setValue("Ada", forKey: "owner")
        #expect(pet.value(forKey: "owner") == nil)
        let error = try #require(saveError(stack))
        #expect(error.code == 1550)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "owner")
        #expect(error.localizedDescription.contains("Pet"))
        #expect(try stack.storedCount("Pet") == 0)
    }

    /// A member the relationship refused (another context's object) is reported at save,
    /// naming its place once; editing the set does not make it go away, setting the whole
    /// value does.
    @Test(arguments: StoreKind.allCases)
    func aRefusedMemberStandsUntilTheRelationshipIsGivenAWholeValue(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada"])
        let rex = stack.insert("Pet", ["name": "Rex"])
        let other = stack.newContext()
        let elsewhere = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: other)
        let pets = person.mutableSetValue(forKey: "pets")
        pets.add(elsewhere)
        pets.add(rex)
        pets.removeAllObjects()
        let error = try #require(saveError(stack))
        #expect(error.code == 1550)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "pets")
        #expect(error.localizedDescription.components(separatedBy: "Validation failed for").count == 2)
        person.setValue(Set([rex]), forKey: "pets")
        try stack.context.save()
        #expect((person.value(forKey: "pets") as? Set<NSManagedObject>) == [rex])
    }

    @Test(arguments: StoreKind.allCases)
    func anUnknownKeyIsReportedAtSaveAs1550(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "shoeSize": 42])
        let error = try #require(saveError(stack))
        #expect(error.code == 1550)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "shoeSize")
        #expect(error.localizedDescription.contains("Person"))
        #expect(error.localizedDescription.contains("shoeSize"))
        #expect(try stack.storedCount("Person") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func setCheckedValueThrowsAtOnce(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada"])
        let wrongType = #expect(throws: (any Error).self) { try person.setCheckedValue("old", forKey: "age") }
        #expect(wrongType?.code == 1550)
        #expect(wrongType?.userInfo[NSValidationKeyErrorKey] as? String == "age")
        let unknown = #expect(throws: (any Error).self) { try person.setCheckedValue(1, forKey: "shoeSize") }
        #expect(unknown?.code == 1550)
        #expect(unknown?.message.contains("Person") == true)
        #expect(unknown?.message.contains("shoeSize") == true)
        // A wrong-typed relationship destination is refused too.
        let club = stack.insert("Club", ["name": "Chess"])
        #expect(throws: (any Error).self) { try club.setCheckedValue(person, forKey: "name") }
        let pet = stack.insert("Pet", ["name": "Rex"])
        #expect(throws: (any Error).self) { try pet.setCheckedValue(club, forKey: "owner") }
        // Nothing was recorded for save: the thrown errors were the report.
        try stack.context.save()
        #expect(person.value(forKey: "age") as? Int == 0)
    }

    // MARK: When validation runs, and what a failed save leaves

    @Test(arguments: StoreKind.allCases)
    func validationRunsOnlyAtSave(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let person = stack.insert("Person", ["name": "Ada", "age": 30])
        try stack.context.save()
        // §5.2: in memory the object may be invalid; nothing complains until save.
        person.setValue(nil, forKey: "name")
        person.setValue(999, forKey: "age")
        stack.context.processPendingChanges()
        #expect(person.value(forKey: "name") == nil)
        #expect(person.value(forKey: "age") as? Int == 999)
        #expect(person.isUpdated)
        // Explicit validation reports the same problems (§5.2 "or on explicit request").
        #expect(throws: (any Error).self) { try person.validateForUpdate() }
        #expect(saveError(stack)?.code == 1560)
        // The store still has the saved values.
        let stored = try #require(try stack.fetch("Person", in: stack.newContext()).first)
        #expect(stored.value(forKey: "name") as? String == "Ada")
        #expect(stored.value(forKey: "age") as? Int == 30)
    }

    @Test(arguments: StoreKind.allCases)
    func aFailedSaveKeepsPendingChangesAndASecondSaveSucceeds(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let saved = stack.insert("Person", ["name": "Saved", "age": 1])
        try stack.context.save()
        let good = stack.insert("Person", ["name": "Good"])
        let bad = stack.insert("Person", ["age": 300])
        saved.setValue(2, forKey: "age")
        let goodID = good.objectID

        #expect(saveError(stack) != nil)
        // §5.3 [UNCONFIRMED]: nothing written, every pending change kept.
        #expect(stack.context.hasChanges)
        #expect(stack.context.insertedObjects == [good, bad])
        #expect(stack.context.updatedObjects == [saved])
        #expect(good.isInserted && bad.isInserted)
        #expect(good.objectID.isTemporaryID && good.objectID == goodID)
        #expect(try stack.storedStrings("Person") == ["Saved"])
        #expect(try stack.fetch("Person", in: stack.newContext()).first?.value(forKey: "age") as? Int == 1)

        bad.setValue("Fixed", forKey: "name")
        bad.setValue(30, forKey: "age")
        try stack.context.save()
        #expect(!stack.context.hasChanges)
        #expect(!good.objectID.isTemporaryID)

        try stack.reopen()
        #expect(try stack.fetch("Person", sortedBy: "name").map { "\($0.value(forKey: "name") ?? "-"):\($0.value(forKey: "age") ?? "-")" }
            == ["Fixed:30", "Good:0", "Saved:2"])
    }

    // MARK: Uniqueness constraints

    @Test(arguments: StoreKind.allCases)
    func duplicateUniqueValuesInOneSaveAre133021(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "email": "same@example.com"])
        let twin = stack.insert("Person", ["name": "Twin", "email": "same@example.com"])
        let error = try #require(saveError(stack))
        // §8.10 [UNCONFIRMED]: the error policy fails the save with 133021.
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == 133021)
        #expect(error.localizedDescription.contains("Person"))
        #expect(error.localizedDescription.contains("email"))
        #expect(try stack.storedCount("Person") == 0)
        #expect(stack.context.insertedObjects.count == 2)

        twin.setValue("twin@example.com", forKey: "email")
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.storedStrings("Person", "email") == ["same@example.com", "twin@example.com"])
    }

    @Test(arguments: StoreKind.allCases)
    func aConstraintViolationWritesNothingOfTheSave(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let saved = stack.insert("Person", ["name": "Saved", "age": 1])
        let doomed = stack.insert("Person", ["name": "Doomed"])
        try stack.context.save()

        saved.setValue(2, forKey: "age")
        stack.context.delete(doomed)
        _ = stack.insert("Pet", ["name": "Rex", "owner": saved])
        _ = stack.insert("Person", ["name": "One", "email": "dup@example.com"])
        _ = stack.insert("Person", ["name": "Two", "email": "dup@example.com"])
        #expect(saveError(stack)?.code == 133021)
        // The update, the delete and the other inserts of the failed save are not written.
        #expect(try stack.storedStrings("Person") == ["Doomed", "Saved"])
        #expect(try stack.fetch("Person", NSComparisonPredicate(key: "name", .equalTo, "Saved"), in: stack.newContext()).first?
            .value(forKey: "age") as? Int == 1)
        #expect(try stack.storedCount("Pet") == 0)

        // Fixed, the same changes save (the update's version check still holds).
        stack.context.delete(try #require(stack.context.insertedObjects.first { $0.value(forKey: "name") as? String == "Two" }))
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.fetch("Person", sortedBy: "name").map { "\($0.value(forKey: "name") ?? "-"):\($0.value(forKey: "age") ?? "-")" }
            == ["One:0", "Saved:2"])
        #expect(try stack.storedStrings("Pet") == ["Rex"])
    }

    @Test(arguments: StoreKind.allCases)
    func aDuplicateOfASavedUniqueValueIs133021(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "email": "ada@example.com"])
        try stack.context.save()
        try stack.reopen()

        _ = stack.insert("Person", ["name": "Copy", "email": "ada@example.com"])
        let error = try #require(saveError(stack))
        #expect(error.code == 133021)
        #expect(error.localizedDescription.contains("Person"))
        #expect(error.localizedDescription.contains("email"))
        #expect(try stack.storedStrings("Person") == ["Ada"])
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateThatDuplicatesAUniqueValueIs133021(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        _ = stack.insert("Person", ["name": "Ada", "email": "ada@example.com"])
        let bob = stack.insert("Person", ["name": "Bob", "email": "bob@example.com"])
        try stack.context.save()
        bob.setValue("ada@example.com", forKey: "email")
        let error = try #require(saveError(stack))
        #expect(error.code == 133021)
        #expect(try stack.storedStrings("Person", "email") == ["ada@example.com", "bob@example.com"])
    }
}
