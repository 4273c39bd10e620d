import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore

// `@Managed` with the types Xcode gives `@NSManaged` properties when "Use Scalar Type" is off,
// for to-many relationships, and for transformable attributes (issue 18, item 4).
final class ObjectBook: NSManagedObject {
    @Managed var title: NSString?
    @Managed var pageCount: NSNumber?
    @Managed var price: NSDecimalNumber?
    @Managed var published: NSDate?
    @Managed var authors: NSSet?
    @Managed var chapters: NSOrderedSet?
    @Managed var tags: [String]?
    @Managed var ratings: [String: Int]?
    @Managed var settings: BookSettings?
}

final class ObjectAuthor: NSManagedObject {
    @Managed var name: String?
    @Managed var books: NSSet?
}

final class ObjectChapter: NSManagedObject {
    @Managed var title: String?
    @Managed var book: ObjectBook?
}

struct BookSettings: Codable, Equatable, ManagedTransformable {
    var theme: String
    var fontSize: Int
}

/// Stores `BookSettings` as JSON, as an app's own transformer would.
final class BookSettingsTransformer: ValueTransformer, @unchecked Sendable {
    // @unchecked Sendable: stateless.
    static let name = NSValueTransformerName("BookSettingsTransformer")
    override func transformedValue(_ value: Any?) -> Any? {
        (value as? BookSettings).flatMap { try? JSONEncoder().encode($0) }
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        (value as? Data).flatMap { try? JSONDecoder().decode(BookSettings.self, from: $0) }
    }
}

@Suite struct ManagedObjectValueTests {
    static func model() -> NSManagedObjectModel {
        ValueTransformer.setValueTransformer(BookSettingsTransformer(), forName: BookSettingsTransformer.name)
        let book = NSEntityDescription(name: "Book")
        book.managedObjectClass = ObjectBook.self
        let author = NSEntityDescription(name: "Author")
        author.managedObjectClass = ObjectAuthor.self
        let chapter = NSEntityDescription(name: "Chapter")
        chapter.managedObjectClass = ObjectChapter.self
        let authors = NSRelationshipDescription(name: "authors", destination: author, toMany: true)
        let books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
        authors.inverseRelationship = books
        books.inverseRelationship = authors
        let chapters = NSRelationshipDescription(name: "chapters", destination: chapter, toMany: true, ordered: true)
        let chapterBook = NSRelationshipDescription(name: "book", destination: book)
        chapters.inverseRelationship = chapterBook
        chapterBook.inverseRelationship = chapters
        let settings = NSAttributeDescription(name: "settings", type: .transformableAttributeType)
        settings.valueTransformerName = BookSettingsTransformer.name.rawValue
        book.properties = [
            NSAttributeDescription(name: "title", type: .stringAttributeType),
            NSAttributeDescription(name: "pageCount", type: .integer32AttributeType),
            NSAttributeDescription(name: "price", type: .decimalAttributeType),
            NSAttributeDescription(name: "published", type: .dateAttributeType),
            NSAttributeDescription(name: "tags", type: .transformableAttributeType),
            NSAttributeDescription(name: "ratings", type: .transformableAttributeType),
            settings, authors, chapters,
        ]
        author.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), books]
        chapter.properties = [NSAttributeDescription(name: "title", type: .stringAttributeType), chapterBook]
        let model = NSManagedObjectModel()
        model.entities = [book, author, chapter]
        return model
    }

    @Test func foundationObjectsAndTransformablesSurviveAReopen() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        let book = ObjectBook(context: stack.context)
        book.title = "Dune"
        book.pageCount = 412
        book.price = NSDecimalNumber(string: "9.99")
        book.published = NSDate(timeIntervalSinceReferenceDate: -536_457_600)
        book.tags = ["classic", "desert"]
        book.ratings = ["ada": 5, "grace": 4]
        book.settings = BookSettings(theme: "sepia", fontSize: 14)
        let frank = ObjectAuthor(context: stack.context)
        frank.name = "Frank"
        book.authors = NSSet(array: [frank])
        let chapters = ["One", "Two", "Three"].map { title in
            let chapter = ObjectChapter(context: stack.context)
            chapter.title = title
            return chapter
        }
        book.chapters = NSOrderedSet(array: chapters)
        #expect(frank.books?.count == 1)            // the inverse is kept in step
        #expect(chapters[2].book === book)
        try stack.context.save()
        try stack.reopen()

        let fetched = try #require(try stack.context.fetch(NSFetchRequest<ObjectBook>(entityName: "Book")).first)
        #expect(fetched.title == "Dune")
        #expect(fetched.pageCount?.int32Value == 412)
        #expect(fetched.price == NSDecimalNumber(string: "9.99"))
        #expect(fetched.published?.timeIntervalSinceReferenceDate == -536_457_600)
        #expect(fetched.tags == ["classic", "desert"])
        #expect(fetched.ratings == ["ada": 5, "grace": 4])
        #expect(fetched.settings == BookSettings(theme: "sepia", fontSize: 14))
        #expect((fetched.authors?.anyObject() as? ObjectAuthor)?.name == "Frank")
        #expect(fetched.chapters?.array.compactMap { ($0 as? ObjectChapter)?.title } == ["One", "Two", "Three"])
    }

    @Test func nilClearsAttributesAndToManyRelationships() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        let book = ObjectBook(context: stack.context)
        book.pageCount = 12
        book.settings = BookSettings(theme: "dark", fontSize: 12)
        let author = ObjectAuthor(context: stack.context)
        book.authors = NSSet(array: [author])
        try stack.context.save()

        book.pageCount = nil
        book.settings = nil
        book.authors = nil
        #expect(author.books?.count == 0)
        try stack.context.save()
        try stack.reopen()
        let fetched = try #require(try stack.context.fetch(NSFetchRequest<ObjectBook>(entityName: "Book")).first)
        #expect(fetched.pageCount == nil)
        #expect(fetched.settings == nil)
        #expect(fetched.authors?.count == 0)
    }

    @Test func aValueTheAttributeCannotHoldFailsTheSaveNamingTheProperty() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        let book = ObjectBook(context: stack.context)
        book.pageCount = 12
        book.pageCount = NSNumber(value: Int64(1) << 40)     // too large for Integer 32
        #expect(book.pageCount == 12)                       // the object is left unchanged
        let error = #expect(throws: CocoaError.self) { try stack.context.save() }
        #expect(error?.code.rawValue == 1550)
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "pageCount")
    }
}
