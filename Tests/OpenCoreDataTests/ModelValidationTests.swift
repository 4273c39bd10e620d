import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// A model built in code checks itself and says what is wrong (issue 2 §3): unknown
/// destinations, missing or mismatched inverses, duplicate names. A store will not open on a
/// model with errors.
@Suite struct ModelValidationTests {
    /// Author ⇄ Book, books to-many with inverse author: a valid model, broken by each case below.
    private struct Library {
        let author = NSEntityDescription(name: "Author")
        let book = NSEntityDescription(name: "Book")
        let name = NSAttributeDescription(name: "name", type: .stringAttributeType)
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        let books: NSRelationshipDescription
        let writer: NSRelationshipDescription
        let model = NSManagedObjectModel()

        init() {
            books = NSRelationshipDescription(name: "books", destination: book, toMany: true)
            writer = NSRelationshipDescription(name: "author", destination: author)
            books.inverseRelationship = writer
            writer.inverseRelationship = books
            author.properties = [name, books]
            book.properties = [title, writer]
            model.entities = [author, book]
        }

        var errors: [String] { model.validationIssues().filter { $0.severity == .error }.map(\.description) }
    }

    @Test func aValidModelHasNoIssues() throws {
        let library = Library()
        #expect(library.model.validationIssues().isEmpty)
        try library.model.validate()
    }

    @Test func aDestinationOutsideTheModelIsAnError() {
        let library = Library()
        let stray = NSEntityDescription(name: "Publisher")
        library.writer.inverseRelationship = nil
        library.books.inverseRelationship = nil
        library.writer.destinationEntity = stray
        #expect(library.errors == ["error: Book.author: its destination entity 'Publisher' is not in the model"])
    }

    @Test func aRelationshipWithoutDestinationIsAnError() {
        let library = Library()
        let loose = NSRelationshipDescription(name: "shelf")
        library.book.properties = [library.title, library.writer, loose]
        #expect(library.errors == ["error: Book.shelf: the relationship has no destination entity"])
    }

    @Test func anInverseThatPointsElsewhereIsAnError() {
        let library = Library()
        let editor = NSRelationshipDescription(name: "editor", destination: library.author)
        library.book.properties = [library.title, library.writer, editor]
        editor.inverseRelationship = library.books  // books names `author` as its inverse
        #expect(library.errors == ["error: Book.editor: its inverse 'Author.books' names 'author' as its inverse, not 'editor'"])
    }

    @Test func anInverseOnTheWrongEntityIsAnError() {
        let library = Library()
        library.books.inverseRelationship = library.books
        #expect(library.errors.contains("error: Author.books: its inverse 'Author.books' is not a relationship of its destination 'Book'"))
    }

    @Test func aMissingInverseIsAWarningOnly() throws {
        let library = Library()
        library.books.inverseRelationship = nil
        library.writer.inverseRelationship = nil
        #expect(library.model.validationIssues().map(\.description) == ["warning: Author.books: the relationship has no inverse",
                                                                       "warning: Book.author: the relationship has no inverse"])
        try library.model.validate()
    }

    @Test func duplicateNamesAreErrors() {
        let library = Library()
        let twin = NSEntityDescription(name: "Book")
        library.model.entities = [library.author, library.book, twin]
        library.author.properties = [library.name, library.books, NSAttributeDescription(name: "name", type: .integer64AttributeType)]
        #expect(library.errors == ["error: Author.name: two properties are named 'name' (inherited ones included)",
                                   "error: Book: two entities are named 'Book'"])
    }

    @Test func aDefaultValueOfTheWrongTypeIsAnError() {
        let library = Library()
        library.title.defaultValue = 12
        #expect(library.errors.count == 1)
        #expect(library.errors.first?.hasPrefix("error: Book.title: its default value 12 is not a") == true)
    }

    @Test func aStoreDoesNotOpenOnAModelWithErrors() throws {
        let library = Library()
        library.writer.inverseRelationship = nil
        library.books.inverseRelationship = nil
        let stray = NSEntityDescription(name: "Publisher")  // kept: relationships hold destinations weakly
        library.writer.destinationEntity = stray
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: library.model)
        let directory = TemporaryDirectory()
        let thrown = #expect(throws: CocoaError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, at: directory.file("Library.sqlite"))
        }
        #expect(thrown?.code.rawValue == 134060)
        #expect(thrown?.message.contains("Book.author: its destination entity 'Publisher' is not in the model") == true)
        let error = thrown?.userInfo[NSUnderlyingErrorKey] as? ModelValidationError
        #expect(error?.issues.map(\.entity) == ["Book"])
        #expect(error?.description.contains("Book.author: its destination entity 'Publisher' is not in the model") == true)
        #expect(!FileManager.default.fileExists(atPath: directory.file("Library.sqlite").path))
    }
}

/// `NSManagedObject.entity()` and `fetchRequest()` find the entity a class is registered for.
@Suite struct ManagedClassEntityTests {
    final class Shelf: NSManagedObject {}

    @Test func entityAndFetchRequestOfARegisteredClass() throws {
        let shelf = NSEntityDescription(name: "Shelf")
        shelf.properties = [NSAttributeDescription(name: "label", type: .stringAttributeType)]
        shelf.managedObjectClass = Shelf.self
        let model = NSManagedObjectModel()
        model.entities = [shelf]
        let stack = try TestStack(.inMemory, model: model)
        _ = stack.insert("Shelf", ["label": "A"])
        try stack.context.save()

        #expect(Shelf.entity() === shelf)
        let request = Shelf.fetchRequest()
        #expect(request.entityName == "Shelf")
        #expect(try stack.context.count(for: request) == 1)
        let type: NSManagedObjectContextConcurrencyType = .privateQueueConcurrencyType
        #expect(type == NSManagedObjectContextConcurrencyType.privateQueueConcurrencyType)
    }
}
