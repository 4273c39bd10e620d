import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// A card whose own rules add to the model's: `validateForInsert`/`validateForUpdate` refuse a
/// title of "forbidden", `validateForDelete` refuses to let a card marked "keep" go.
final class RuledCard: NSManagedObject {
    static let ruleKey = "title"

    // As Apple's guide suggests: the model's errors and the object's own, several thrown as one
    // 1560 error listing them (which the save flattens into its own list).
    override func validateForInsert() throws {
        try combined([{ try super.validateForInsert() }, checkTitle])
    }

    override func validateForUpdate() throws {
        try combined([{ try super.validateForUpdate() }, checkTitle])
    }

    private func combined(_ checks: [() throws -> Void]) throws {
        var errors: [Error] = []
        for check in checks {
            do { try check() } catch { errors.append(error) }
        }
        if errors.count > 1 {
            throw NSError(domain: NSCocoaErrorDomain, code: NSValidationMultipleErrorsError, userInfo: [NSDetailedErrorsKey: errors])
        }
        if let error = errors.first { throw error }
    }

    override func validateForDelete() throws {
        try super.validateForDelete()
        if value(forKey: "title") as? String == "keep" {
            throw ruleBroken("this card is kept")
        }
    }

    private func checkTitle() throws {
        if value(forKey: "title") as? String == "forbidden" {
            throw ruleBroken("this title is forbidden")
        }
    }

    /// The error a Core Data app throws for its own rules.
    private func ruleBroken(_ reason: String) -> NSError {
        NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError,
                userInfo: [NSValidationObjectErrorKey: self, NSValidationKeyErrorKey: Self.ruleKey,
                           NSLocalizedDescriptionKey: reason])
    }
}

/// Validation rules of the model beyond those the shared test model has (relationship counts,
/// date, string-length and decimal ranges), and validation methods overridden by subclasses,
/// all judged at save through a real store (COREDATA-SEMANTICS §5).
@Suite struct ValidationRuleTests {
    /// Card (title 2…5 characters, due within 2024, price 0…100 as Decimal, tags 2…3 when any)
    /// and Tag; Deck with cards (non-optional, at most 2).
    private static func model() -> NSManagedObjectModel {
        let card = NSEntityDescription(name: "Card")
        card.managedObjectClass = RuledCard.self
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        title.minValue = 2
        title.maxValue = 5
        let due = NSAttributeDescription(name: "due", type: .dateAttributeType)
        due.minValue = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01
        due.maxValue = Date(timeIntervalSince1970: 1_735_689_599)  // 2024-12-31 23:59:59
        let price = NSAttributeDescription(name: "price", type: .decimalAttributeType)
        price.minValue = Decimal(0)
        price.maxValue = Decimal(100)

        let tag = NSEntityDescription(name: "Tag")
        let label = NSAttributeDescription(name: "label", type: .stringAttributeType)
        let tags = NSRelationshipDescription(name: "tags", destination: tag, toMany: true)
        tags.minCount = 2
        tags.maxCount = 3
        let cardsOfTag = NSRelationshipDescription(name: "cards", destination: card, toMany: true)
        tags.inverseRelationship = cardsOfTag
        cardsOfTag.inverseRelationship = tags

        let deck = NSEntityDescription(name: "Deck")
        let cards = NSRelationshipDescription(name: "cards", destination: card, toMany: true, optional: false)
        cards.maxCount = 2
        let deckOfCard = NSRelationshipDescription(name: "deck", destination: deck)
        cards.inverseRelationship = deckOfCard
        deckOfCard.inverseRelationship = cards

        card.properties = [title, due, price, tags, deckOfCard]
        tag.properties = [label, cardsOfTag]
        deck.properties = [cards]
        let model = NSManagedObjectModel()
        model.entities = [card, tag, deck]
        return model
    }

    private func card(_ stack: TestStack, _ values: [String: Any] = [:]) -> NSManagedObject {
        stack.insert("Card", ["title": "ok"].merging(values) { $1 })
    }

    private func tags(_ stack: TestStack, count: Int) -> Set<NSManagedObject> {
        Set((0..<count).map { stack.insert("Tag", ["label": "t\($0)"]) })
    }

    private func saveError(_ stack: TestStack, sourceLocation: SourceLocation = #_sourceLocation) -> NSError? {
        let error = #expect(throws: (any Error).self, sourceLocation: sourceLocation) { try stack.context.save() }
        return error.map { $0 as NSError }
    }

    // MARK: Relationship counts

    @Test(arguments: StoreKind.allCases)
    func anOptionalToManyIsCountedOnlyWhenItHoldsSomething(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.model())
        _ = card(stack)  // no tags: fine although the minimum is 2
        try stack.context.save()
        #expect(try stack.storedCount("Card") == 1)
    }

    @Test(arguments: [(StoreKind.sqlite, 1, NSValidationRelationshipLacksMinimumCountError),
                      (.sqlite, 4, NSValidationRelationshipExceedsMaximumCountError),
                      (.inMemory, 1, NSValidationRelationshipLacksMinimumCountError),
                      (.inMemory, 4, NSValidationRelationshipExceedsMaximumCountError)])
    func toManyCountsOutsideTheirLimitsAre1580Or1590(kind: StoreKind, count: Int, code: Int) throws {
        let stack = try TestStack(kind, model: Self.model())
        let card = card(stack)
        card.setValue(tags(stack, count: count), forKey: "tags")
        let error = try #require(saveError(stack))
        #expect(error.code == code)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "tags")
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === card)
        #expect(try stack.storedCount("Card") == 0)
        #expect(stack.context.insertedObjects.contains(card))  // the failed save kept the changes

        card.setValue(tags(stack, count: 3), forKey: "tags")
        for tag in stack.context.insertedObjects where tag.entity.name == "Tag" && (tag.value(forKey: "cards") as? Set<NSManagedObject>)?.isEmpty ?? true {
            stack.context.delete(tag)
        }
        try stack.context.save()
        try stack.reopen()
        #expect(members(try #require(stack.fetch("Card").first), "tags").count == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func aMandatoryToManyNeedsOneObject(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.model())
        let deck = stack.insert("Deck", [:])
        let error = try #require(saveError(stack))
        #expect(error.code == NSValidationRelationshipLacksMinimumCountError)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "cards")
        deck.setValue(Set([card(stack)]), forKey: "cards")
        try stack.context.save()
    }

    // MARK: Attribute ranges

    @Test(arguments: [("a", NSValidationStringTooShortError), ("abcdef", NSValidationStringTooLongError)])
    func stringLengthsOutsideTheirLimitsAre1670Or1660(title: String, code: Int) throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        _ = card(stack, ["title": title])
        let error = try #require(saveError(stack))
        #expect(error.code == code)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "title")
        #expect(error.userInfo[NSValidationValueErrorKey] as? String == title)
    }

    @Test(arguments: [(1_700_000_000.0, NSValidationDateTooSoonError), (1_740_000_000.0, NSValidationDateTooLateError)])
    func datesOutsideTheirLimitsAre1640Or1630(seconds: Double, code: Int) throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        _ = card(stack, ["due": Date(timeIntervalSince1970: seconds)])
        let error = try #require(saveError(stack))
        #expect(error.code == code)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "due")
    }

    @Test(arguments: [(Decimal(-1), NSValidationNumberTooSmallError), (Decimal(string: "100.01")!, NSValidationNumberTooLargeError)])
    func decimalsOutsideTheirLimitsAre1620Or1610(price: Decimal, code: Int) throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        _ = card(stack, ["price": price])
        let error = try #require(saveError(stack))
        #expect(error.code == code)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "price")
    }

    @Test func valuesAtTheLimitsAreValid() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        _ = card(stack, ["title": "ab", "due": Date(timeIntervalSince1970: 1_704_067_200), "price": Decimal(100)])
        _ = card(stack, ["title": "abcde", "due": Date(timeIntervalSince1970: 1_735_689_599), "price": Decimal(0)])
        try stack.context.save()
        #expect(try stack.storedCount("Card") == 2)
    }

    // MARK: Validation methods overridden by subclasses

    @Test(arguments: StoreKind.allCases)
    func saveCallsTheSubclassValidationForInsertsAndUpdates(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.model())
        let card = card(stack, ["title": "forbidden"])  // also too long: two errors
        let error = try #require(saveError(stack))
        #expect(error.code == NSValidationMultipleErrorsError)
        let details = try #require(error.userInfo[NSDetailedErrorsKey] as? [Error])
        #expect(details.map { ($0 as NSError).code }.sorted() == [NSManagedObjectValidationError, NSValidationStringTooLongError])
        #expect(try stack.storedCount("Card") == 0)

        card.setValue("fine", forKey: "title")
        try stack.context.save()
        card.setValue("forbidden", forKey: "title")
        card.setValue(Decimal(500), forKey: "price")
        let update = try #require(saveError(stack))
        #expect(update.code == NSValidationMultipleErrorsError)
        #expect(try stack.storedStrings("Card", "title") == ["fine"])
    }

    @Test(arguments: StoreKind.allCases)
    func saveCallsTheSubclassValidationForDeletes(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.model())
        let kept = card(stack, ["title": "keep"])
        _ = card(stack, ["title": "go"])
        try stack.context.save()
        stack.context.delete(kept)
        let error = try #require(saveError(stack))
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === kept)
        #expect(try stack.storedCount("Card") == 2)
        #expect(stack.context.deletedObjects == [kept])
    }

    @Test func errorConstantsHaveCoreDataCodes() {
        #expect(NSValidationMultipleErrorsError == CocoaError.Code.validationMultipleErrors.rawValue)
        #expect(NSValidationMissingMandatoryPropertyError == 1570)
        #expect(NSManagedObjectReferentialIntegrityError == CocoaError.Code.managedObjectReferentialIntegrity.rawValue)
        #expect(NSPersistentStoreIncompatibleVersionHashError == 134100)
        #expect(NSSQLiteError == CocoaError.Code.sqlite.rawValue)
    }
}

/// `validateValue(_:forKey:)` checks one value against the model's rules without setting it.
@Suite struct ValidateValueTests {
    @Test func oneValueIsCheckedAsASaveWouldCheckIt() throws {
        let stack = try TestStack(.inMemory)
        let person = stack.insert("Person", ["name": "Ada", "age": 30])
        func code(_ value: Any?, _ key: String) -> Int? {
            var candidate = value
            do {
                try person.validateValue(&candidate, forKey: key)
                return nil
            } catch {
                return (error as NSError).code
            }
        }
        #expect(code(40, "age") == nil)
        #expect(code(200, "age") == NSValidationNumberTooLargeError)
        #expect(code(-1, "age") == NSValidationNumberTooSmallError)
        #expect(code("forty", "age") == NSManagedObjectValidationError)
        #expect(code(nil, "name") == NSValidationMissingMandatoryPropertyError)
        #expect(code("no-at-sign", "email") == NSValidationStringPatternMatchingError)
        #expect(code("a@b", "email") == nil)
        #expect(code(nil, "email") == nil)
        #expect(code(1, "nmae") == NSManagedObjectValidationError)
        #expect(code(person, "pets") == NSManagedObjectValidationError)  // not a collection of pets
        #expect(code(Set([stack.insert("Pet", ["name": "Rex"])]), "pets") == nil)
        #expect(code("Rex", "owner") == NSManagedObjectValidationError)  // `owner` is Pet's; Person has no such key
        // Nothing was set.
        #expect(person.value(forKey: "age") as? Int == 30)
        var name: AnyObject? = nil
        #expect(throws: (any Error).self) { try person.validateValue(&name, forKey: "name") }
    }

    @Test func relationshipRules() throws {
        let stack = try TestStack(.inMemory)
        let pet = stack.insert("Pet", ["name": "Rex"])
        var owner: Any? = stack.insert("Person", ["name": "Ada"])
        try pet.validateValue(&owner, forKey: "owner")
        var wrong: Any? = "Ada"
        let error = #expect(throws: (any Error).self) { try pet.validateValue(&wrong, forKey: "owner") }
        #expect(error?.code == NSManagedObjectValidationError)
    }
}
