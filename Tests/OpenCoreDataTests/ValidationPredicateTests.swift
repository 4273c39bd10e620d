import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// `NSPropertyDescription.setValidationPredicates(_:withValidationWarnings:)`: rules of the
/// application's own, judged at save through a real store, kept in the store's model cache
/// (COREDATA-SEMANTICS §5.4, §5.5). The model is CoreDataPlus's `Book.title` rules, which real
/// client code sets this way.
@Suite struct ValidationPredicateTests {
    static let lengthRule = NSPredicate(format: "length >= 3 AND length <= 50")
    static let containsRule = NSPredicate(format: "SELF CONTAINS %@", "title")
    static let lengthWarning = "Title must have a length between 3 and 50 chars."
    static let containsWarning = "Title must contain 'title'."

    /// Book (title with both rules, note without any) and Shelf (books: at most two, by a
    /// predicate on the set).
    private static func model() -> NSManagedObjectModel {
        let book = NSEntityDescription(name: "Book")
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        title.setValidationPredicates([lengthRule, containsRule], withValidationWarnings: [lengthWarning, containsWarning])
        let note = NSAttributeDescription(name: "note", type: .stringAttributeType)
        let shelf = NSEntityDescription(name: "Shelf")
        let books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
        books.setValidationPredicates([NSPredicate(format: "@count <= 2")], withValidationWarnings: ["A shelf holds two books"])
        let shelfOfBook = NSRelationshipDescription(name: "shelf", destination: shelf)
        books.inverseRelationship = shelfOfBook
        shelfOfBook.inverseRelationship = books
        book.properties = [title, note, shelfOfBook]
        shelf.properties = [books]
        let model = NSManagedObjectModel()
        model.entities = [book, shelf]
        return model
    }

    /// A model of one entity with one attribute.
    private static func model(of entityName: String, with attribute: NSAttributeDescription) -> NSManagedObjectModel {
        let entity = NSEntityDescription(name: entityName)
        entity.properties = [attribute]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        return model
    }

    private func saveError(_ stack: TestStack, sourceLocation: SourceLocation = #_sourceLocation) -> NSError? {
        let error = #expect(throws: (any Error).self, sourceLocation: sourceLocation) { try stack.context.save() }
        return error.map { $0 as NSError }
    }

    @Test func theRulesReadBackAsTheyWereSet() {
        let title = Self.model().entitiesByName["Book"]!.attributesByName["title"]!
        #expect(title.validationPredicates.map(\.predicateFormat) == ["length >= 3 AND length <= 50", "SELF CONTAINS \"title\""])
        #expect(title.validationWarnings.count == 2)
        #expect(title.validationWarnings.compactMap { $0 as? String } == [Self.lengthWarning, Self.containsWarning])
    }

    @Test(arguments: StoreKind.allCases)
    func aValueBreakingOneRuleFailsWithItsWarning(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.model())
        let book = stack.insert("Book", ["title": "a novel"])  // long enough, but no "title"
        let error = try #require(saveError(stack))
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.localizedDescription == Self.containsWarning)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "title")
        #expect(error.userInfo[NSValidationValueErrorKey] as? String == "a novel")
        #expect((error.userInfo[NSValidationPredicateErrorKey] as? NSPredicate)?.predicateFormat == "SELF CONTAINS \"title\"")
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === book)
        // Nothing was written; the change is still pending, and a fixed value saves.
        #expect(stack.context.hasChanges)
        #expect(try stack.storedCount("Book") == 0)
        book.setValue("a title", forKey: "title")
        try stack.context.save()
        try stack.reopen()
        #expect(try stack.storedStrings("Book", "title") == ["a title"])
    }

    @Test func aValueBreakingBothRulesReportsBoth() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        stack.insert("Book", ["title": "ab"])
        let error = try #require(saveError(stack))
        #expect(error.code == NSValidationMultipleErrorsError)
        let details = try #require(error.userInfo[NSDetailedErrorsKey] as? [NSError])
        #expect(details.map(\.localizedDescription).sorted() == [Self.containsWarning, Self.lengthWarning].sorted())
    }

    /// Optionality decides about nil; the predicates judge values only.
    @Test func aMissingOptionalValueIsNotJudged() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        stack.insert("Book", ["note": "no title yet"])
        try stack.context.save()
        #expect(try stack.storedCount("Book") == 1)
    }

    @Test func aToManyRuleJudgesTheSet() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        let shelf = stack.insert("Shelf", [:])
        let books = (1...3).map { stack.insert("Book", ["title": "title \($0)"]) }
        shelf.setValue(Set(books), forKey: "books")
        let error = try #require(saveError(stack))
        #expect(error.localizedDescription == "A shelf holds two books")
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "books")
        shelf.setValue(Set(books.prefix(2)), forKey: "books")
        try stack.context.save()
    }

    /// `validateValue(_:forKey:)` judges the value it is given, not the one the object holds.
    @Test func validateValueJudgesTheCandidate() throws {
        let stack = try TestStack(.inMemory, model: Self.model())
        let book = stack.insert("Book", ["title": "a title"])
        var candidate: Any? = "a novel"
        let error = #expect(throws: (any Error).self) { try book.validateValue(&candidate, forKey: "title") }
        #expect((error as? NSError)?.localizedDescription == Self.containsWarning)
        var good: Any? = "another title"
        try book.validateValue(&good, forKey: "title")
    }

    /// A predicate set without a warning still names itself.
    @Test func aRuleWithoutAWarningNamesItsPredicate() throws {
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        title.setValidationPredicates([Self.containsRule], withValidationWarnings: nil)
        let model = Self.model(of: "Book", with: title)
        let stack = try TestStack(.inMemory, model: model)
        stack.insert("Book", ["title": "nothing"])
        let error = try #require(saveError(stack))
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.localizedDescription.contains("\"nothing\" does not satisfy the validation predicate SELF CONTAINS \"title\""))
    }

    /// A warning that is a number is the error code reported, as in Xcode's model files.
    @Test func aNumericWarningIsTheErrorCode() throws {
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        title.addCustomValidationRule(Self.containsRule, warning: NSValidationStringPatternMatchingError)
        let model = Self.model(of: "Book", with: title)
        let stack = try TestStack(.inMemory, model: model)
        stack.insert("Book", ["title": "nothing"])
        #expect(try #require(saveError(stack)).code == NSValidationStringPatternMatchingError)
    }

    /// Minimum, maximum and pattern are listed as the predicates Xcode makes of them; setting
    /// predicates replaces them, as on Apple's platforms.
    @Test func rangeAndPatternAreAmongThePredicatesAndAreReplacedBySettingThem() {
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        title.minValue = 2
        title.regularExpression = "[a-z]+"
        #expect(title.validationPredicates.map(\.predicateFormat) == ["length >= 2", "SELF MATCHES \"[a-z]+\""])
        #expect(title.validationWarnings.count == 2)
        #expect(title.validationWarnings.compactMap { $0 as? Int } == [NSValidationStringTooShortError, NSValidationStringPatternMatchingError])
        title.setValidationPredicates([Self.containsRule], withValidationWarnings: [Self.containsWarning])
        #expect(title.minValue == nil && title.regularExpression == nil)
        #expect(title.validationPredicates.map(\.predicateFormat) == ["SELF CONTAINS \"title\""])
    }

    /// The store's model cache keeps the rules with their warnings, so a model read back from
    /// the store alone (as a migration without the old model does) judges values the same way.
    @Test func theModelCacheKeepsTheRules() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        stack.insert("Book", ["title": "a title"])
        try stack.context.save()
        let cached = try #require(try StoreModelCache.model(ofStoreAt: stack.storeURL))
        let title = try #require(cached.entitiesByName["Book"]?.attributesByName["title"])
        #expect(title.validationPredicates.map(\.predicateFormat) == ["length >= 3 AND length <= 50", "SELF CONTAINS \"title\""])
        #expect(title.validationWarnings.compactMap { $0 as? String } == [Self.lengthWarning, Self.containsWarning])
        #expect(title.validationWarnings.count == 2)
        let books = try #require(cached.entitiesByName["Shelf"]?.relationshipsByName["books"])
        #expect(books.validationWarnings.compactMap { $0 as? String } == ["A shelf holds two books"])
    }

    /// A rule set in code that looks like a minimum stays a rule of its own beside the
    /// attribute's minimum through the model cache, each reporting as before.
    @Test func aRuleLikeAMinimumStaysApartFromTheMinimumThroughTheCache() throws {
        let count = NSAttributeDescription(name: "count", type: .integer64AttributeType)
        count.setValidationPredicates([NSPredicate(format: "SELF >= 0")], withValidationWarnings: nil)
        count.minValue = 10
        let model = Self.model(of: "Item", with: count)
        let stack = try TestStack(.sqlite, model: model)
        stack.insert("Item", ["count": 12])
        try stack.context.save()
        let cached = try #require(try StoreModelCache.model(ofStoreAt: stack.storeURL))
        let read = try #require(cached.entitiesByName["Item"]?.attributesByName["count"])
        #expect(read.minValue as? Int == 10)
        #expect(read.validationPredicates.map(\.predicateFormat) == ["SELF >= 10", "SELF >= 0"])
        #expect(read.validationWarnings.count == 2)
        #expect(read.validationWarnings.first as? Int == NSValidationNumberTooSmallError)
        #expect(read.validationWarnings.last as? String == "")
    }

    /// A rule set in code with a number for its warning keeps it through the cache, unless the
    /// number is the very code of a minimum or maximum of that form.
    @Test func aNumericWarningOfYourOwnSurvivesTheCache() throws {
        let count = NSAttributeDescription(name: "count", type: .integer64AttributeType)
        count.addCustomValidationRule(NSPredicate(format: "SELF <= 100"), warning: 42)
        let model = Self.model(of: "Item", with: count)
        let stack = try TestStack(.sqlite, model: model)
        stack.insert("Item", ["count": 1])
        try stack.context.save()
        let cached = try #require(try StoreModelCache.model(ofStoreAt: stack.storeURL))
        let read = try #require(cached.entitiesByName["Item"]?.attributesByName["count"])
        #expect(read.maxValue == nil)
        #expect(read.validationPredicates.map(\.predicateFormat) == ["SELF <= 100"])
        #expect(read.validationWarnings.count == 1 && read.validationWarnings.first as? Int == 42)
    }

    /// A rule the archive cannot hold (a block) is left out of the model cache; the store still
    /// gets its cache, with the other rules.
    @Test func aBlockRuleIsLeftOutOfTheCacheAndTheRestKept() throws {
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        title.setValidationPredicates([NSPredicate(block: { value, _ in (value as? String)?.isEmpty == false }), Self.containsRule],
                                      withValidationWarnings: ["Empty", Self.containsWarning])
        let model = Self.model(of: "Book", with: title)
        let stack = try TestStack(.sqlite, model: model)
        stack.insert("Book", ["title": "a title"])
        try stack.context.save()
        let cached = try #require(try StoreModelCache.model(ofStoreAt: stack.storeURL))
        let read = try #require(cached.entitiesByName["Book"]?.attributesByName["title"])
        #expect(read.validationPredicates.map(\.predicateFormat) == ["SELF CONTAINS \"title\""])
        #expect(read.validationWarnings.compactMap { $0 as? String } == [Self.containsWarning])
    }
}
