import Foundation
import Testing
import CoreData

/// Idioms of Core Data client code written for Apple's SDK that Foundation on Linux alone does
/// not accept: predicate arguments cast `as CVarArg`, and to-many accessors written by hand
/// against `NSMutableSet`'s `Any`-taking methods. Through the Library model and its generated
/// classes, in a SQLite store on disk.
@Suite struct ClientIdiomTests {
    static let isbn = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!
    static let published = Date(timeIntervalSinceReferenceDate: 86_400 * 365)

    /// A container on a new store holding Dune (with `isbn` and `published`) and Physics.
    private func library() throws -> (NSPersistentContainer, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-idioms-\(UUID().uuidString)")
        let model = try #require(NSManagedObjectModel(contentsOf: CodegenTests.model))
        let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
        container.persistentStoreDescriptions.first!.url = directory.appendingPathComponent("Library.sqlite")
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let context = container.viewContext
        let dune = Book(context: context)
        dune.title = "Dune"
        dune.isbn = Self.isbn
        dune.published = Self.published
        let physics = Book(context: context)
        physics.title = "Physics"
        physics.isbn = UUID()
        try context.save()
        return (container, directory)
    }

    private func titles(_ predicate: NSPredicate, in context: NSManagedObjectContext) throws -> [String] {
        let request: NSFetchRequest<Book> = Book.fetchRequest()
        request.predicate = predicate
        return try context.fetch(request).compactMap(\.title)
    }

    @Test func predicateArgumentsCastAsCVarArgFetchTheirRows() throws {
        let (container, directory) = try library()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        #expect(try titles(NSPredicate(format: "isbn == %@", Self.isbn as CVarArg), in: context) == ["Dune"])
        #expect(try titles(NSPredicate(format: "%K == %@", "published", Self.published as CVarArg), in: context) == ["Dune"])
        #expect(try titles(NSPredicate(format: "published == %@", Self.published as NSDate as CVarArg), in: context) == ["Dune"])
        let dune = try #require(try context.fetch(Book.fetchRequest()).first { $0.title == "Dune" })
        #expect(try titles(NSPredicate(format: "self == %@", dune as CVarArg), in: context) == ["Dune"])
        #expect(try titles(NSPredicate(format: "self == %@", dune.objectID as CVarArg), in: context) == ["Dune"])
        #expect(try titles(NSPredicate(format: "pages == %@", NSNumber(value: 0) as CVarArg), in: context).sorted() == ["Dune", "Physics"])
    }

    /// The objc.io book's helper: a predicate made from a `CVaListPointer`.
    private static func predicate(format: String, _ args: CVarArg...) -> NSPredicate {
        withVaList(args) { NSPredicate(format: format, arguments: $0) }
    }

    @Test func aPredicateFromAVariableArgumentListReadsEachArgumentAsItsSpecifierSays() throws {
        let (container, directory) = try library()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        #expect(try titles(Self.predicate(format: "%K == %@", "title", "Dune"), in: context) == ["Dune"])
        #expect(try titles(Self.predicate(format: "isbn == %@ AND published == %@", Self.isbn, Self.published), in: context) == ["Dune"])
        #expect(try titles(Self.predicate(format: "pages == %d AND pages < %ld AND pages < %f", Int32(0), 5, 2.5), in: context).sorted()
                == ["Dune", "Physics"])
        let dune = try #require(try context.fetch(Book.fetchRequest()).first { $0.title == "Dune" })
        #expect(try titles(Self.predicate(format: "self == %@", dune), in: context) == ["Dune"])
        #expect(try titles(Self.predicate(format: "self == %@", dune.objectID), in: context) == ["Dune"])
        // A specifier inside a quoted string is text, and takes no argument.
        #expect(try titles(Self.predicate(format: "title != '%@' AND title == %@", "Physics"), in: context) == ["Physics"])
        let doubled = withVaList(["pages"]) { NSExpression(format: "%K * 2", arguments: $0) }
        #expect(doubled.description.contains("pages"))
    }

    /// Handed to a C variadic function, such an argument stands for the object it bridges to.
    @Test func aCVarArgValueFormatsAsItsObject() {
        #expect(String(format: "isbn %@", Self.isbn as CVarArg) == "isbn \(Self.isbn.uuidString)")
        #expect(String(format: "%@ pages", NSNumber(value: 412) as CVarArg) == "412 pages")
        #expect(String(format: "%@", URL(fileURLWithPath: "/srv/library") as CVarArg).contains("/srv/library"))
    }

    /// The generated accessors' `NSSet` forms, written by hand as Xcode projects have them
    /// when `@NSManaged` is spelled out: `NSMutableSet`'s `Any`-taking methods.
    @Test func handWrittenSetAccessorsTakeTheMembersOfAnNSSet() throws {
        let (container, directory) = try library()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        let dune = try #require(try context.fetch(Book.fetchRequest()).first { $0.title == "Dune" })
        let authors: NSSet = ["Frank", "Brian"].reduce(into: NSMutableSet()) { set, name in
            let author = Author(context: context)
            author.name = name
            set.add(author)
        }
        let view = dune.mutableSetValue(forKey: "authors")
        view.addObjects(from: authors.allObjects)
        #expect(view.count == 2)
        for author in authors where (author as? Author)?.name == "Brian" { view.remove(author) }
        try context.save()
        context.reset()
        let again = try #require(try context.fetch(Book.fetchRequest()).first { $0.title == "Dune" })
        #expect(again.authors?.allObjects.compactMap { ($0 as? Author)?.name } == ["Frank"])
    }

    /// Generic code makes objects of the class it is given, as objc.io-style helpers do.
    private func make<Entity: NSManagedObject>(_: Entity.Type, in context: NSManagedObjectContext) -> Entity {
        Entity(context: context)
    }

    @Test func genericCodeMakesObjectsOfItsClassAndSortsAndFiltersByKeyPaths() throws {
        let (container, directory) = try library()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        let atlas = make(Book.self, in: context)
        atlas.title = "atlas"
        atlas.pages = 90
        try context.save()

        let request: NSFetchRequest<Book> = Book.fetchRequest()
        request.predicate = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: \Book.pages),
                                                  rightExpression: NSExpression(forConstantValue: 50),
                                                  modifier: .direct, type: .greaterThan, options: [])
        #expect(try context.fetch(request).map(\.title) == ["atlas"])

        // A comparator sorts in memory; a fetch refuses it, naming the key.
        let natural = NSSortDescriptor(key: "title", ascending: true) { lhs, rhs in
            (lhs as! String).compare(rhs as! String, options: [.caseInsensitive])
        }
        let books = try context.fetch(Book.fetchRequest())
        #expect(books.sortedArray(using: [natural]).compactMap(\.title) == ["atlas", "Dune", "Physics"])
        #expect((books as NSArray).sortedArray(using: [natural.reversedSortDescriptor as! NSSortDescriptor]).compactMap { ($0 as? Book)?.title }
                == ["Physics", "Dune", "atlas"])
        request.predicate = nil
        request.sortDescriptors = [natural]
        let error = #expect(throws: (any Error).self) { try context.fetch(request) }
        #expect("\(error.map { ($0 as NSError).localizedDescription } ?? "")".contains("title"))
    }

    /// Apple's class name is `null_resettable`: nil puts `NSManagedObject` back.
    @Test func anEntitysClassNameIsImplicitlyUnwrappedAndResets() {
        let entity = NSEntityDescription()
        entity.managedObjectClassName = "Item"
        let name: String = entity.managedObjectClassName
        #expect(name == "Item")
        entity.managedObjectClassName = nil
        #expect(entity.managedObjectClassName == "NSManagedObject")
    }

    @Test func theChecksumsOfAVersionedModelAreEachVersionsChecksum() throws {
        let checksums = try NSManagedObjectModel.checksumsForVersionedModel(at: CodegenTests.model)
        #expect(!checksums.isEmpty)
        for (version, checksum) in checksums {
            let file = CodegenTests.model.appendingPathComponent(version + ".xcdatamodel")
            #expect(NSManagedObjectModel(contentsOf: file)?.versionChecksum == checksum, "\(version)")
        }
        #expect(throws: (any Error).self) {
            try NSManagedObjectModel.checksumsForVersionedModel(at: URL(fileURLWithPath: "/tmp/Nothing.sqlite"))
        }
    }

    @Test func aValueThatIsNoObjectFailsTheSaveNamingTheRelationship() throws {
        let (container, directory) = try library()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        let dune = try #require(try context.fetch(Book.fetchRequest()).first { $0.title == "Dune" })
        dune.mutableSetValue(forKey: "authors").add("Frank")
        let error = #expect(throws: CocoaError.self) { try context.save() }
        #expect(error?.code == .validationMultipleErrors || error?.code.rawValue == 1550)
        #expect((error as NSError?)?.localizedDescription.contains("authors") == true)
    }

    /// Code written against `NSObject`'s protocol: `isEqual(_:)` and `hash` on objects and IDs,
    /// and objects held as `NSObjectProtocol`. An object equals only itself; an ID equals another
    /// ID of the same row, even one read back after the store is reopened.
    @Test func objectsAndIDsAnswerNSObjectProtocolAsCoreDataDoes() throws {
        let (container, directory) = try library()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        let books = try context.fetch(Book.fetchRequest())
        let dune = try #require(books.first { $0.title == "Dune" })
        let physics = try #require(books.first { $0.title == "Physics" })
        #expect(dune.isEqual(dune) && !dune.isEqual(physics) && !dune.isEqual(nil) && !dune.isEqual("Dune"))
        #expect(dune.hash == dune.hash && !dune.isProxy() && dune.`self`() === dune)
        let held: [any NSObjectProtocol] = [dune, physics]
        #expect(held.filter { $0.isEqual(physics) }.count == 1)

        let other = container.newBackgroundContext()
        let duneElsewhere = try other.performAndWait { try other.existingObject(with: dune.objectID) }
        #expect(!dune.isEqual(duneElsewhere), "objects of two contexts are two objects")
        #expect(dune.objectID.isEqual(duneElsewhere.objectID) && dune.objectID.hash == duneElsewhere.objectID.hash)
        #expect(!dune.objectID.isEqual(physics.objectID) && !dune.objectID.isEqual(dune))

        let url = try #require(container.persistentStoreDescriptions.first?.url)
        let uri = dune.objectID.uriRepresentation()
        let reopened = NSPersistentContainer(name: "Library", managedObjectModel: container.managedObjectModel)
        reopened.persistentStoreDescriptions.first!.url = url
        var loadError: Error?
        reopened.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let readBack = try #require(reopened.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri))
        #expect(readBack.isEqual(try reopened.viewContext.existingObject(with: readBack).objectID))
        #expect(readBack.uriRepresentation() == uri)
    }
}
