import Foundation
import Testing
import CoreData

/// `ocd codegen` (issue 18, item 6): the files in Generated/ are its output for
/// Library.xcdatamodeld, compiled into this target through `import CoreData` and used here.
@Suite struct CodegenTests {
    static let model = Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld")!
    static let generated = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Generated")

    @Test func theCheckedInFilesAreWhatCodegenWrites() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-codegen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try Tool.run(["codegen", Self.model.path, "--out", out.path])
        #expect(result.status == 0, "\(result.error)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        // Shelf is Manual/None: nothing; Author is Category/Extension: its properties only.
        #expect(written == ["Author+CoreDataProperties.swift", "Book+CoreDataClass.swift", "Book+CoreDataProperties.swift",
                            "Chapter+CoreDataClass.swift", "Chapter+CoreDataProperties.swift",
                            "Textbook+CoreDataClass.swift", "Textbook+CoreDataProperties.swift"])
        for name in written {
            let fresh = try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)
            let checkedIn = try String(contentsOf: Self.generated.appendingPathComponent(name), encoding: .utf8)
            #expect(fresh == checkedIn, "Generated/\(name) differs from what ocd codegen writes now")
        }
    }

    @Test func badInputFailsNamingWhatIsWrong() throws {
        let missing = try Tool.run(["codegen", "/no/such/Model.xcdatamodeld", "--out", "/tmp/x"])
        #expect(missing.status == 1)
        #expect(missing.error == "ocd: /no/such/Model.xcdatamodeld: no such file or folder\n")
        let noOut = try Tool.run(["codegen", Self.model.path])
        #expect(noOut.status == 2)
        #expect(noOut.error.contains("missing --out FOLDER"))
        let unknown = try Tool.run(["codegen", Self.model.path, "--out", "/tmp/x", "--entity", "Magazine"])
        #expect(unknown.status == 1)
        #expect(unknown.error.contains("no entity named 'Magazine'"))
    }

    @Test func generatedClassesRoundTripThroughAStoreOnDisk() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-codegen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try #require(NSManagedObjectModel(contentsOf: Self.model))
        let storeURL = directory.appendingPathComponent("Library.sqlite")
        try save(into: storeURL, model: model)

        let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
        container.persistentStoreDescriptions.first!.url = storeURL
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        let context = container.viewContext
        let request: NSFetchRequest<Book> = Book.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let books = try context.fetch(request)
        #expect(books.map(\.title) == ["Dune", "Physics"])
        let dune = books[0]
        #expect(dune.pages == 412)
        #expect(dune.rating?.doubleValue == 4.5)
        #expect(dune.price == NSDecimalNumber(string: "9.99"))
        #expect(dune.keywords == ["desert", "spice"])
        #expect(dune.isbn == UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF"))
        #expect(dune.shelf?.label == "Fiction")
        #expect(dune.chapters?.array.compactMap { ($0 as? Chapter)?.title } == ["Two", "Three"])
        #expect((dune.authors?.anyObject() as? Author)?.name == "Frank")
        let physics = try #require(books[1] as? Textbook)   // a subentity comes back as its class
        #expect(physics.subject == "mechanics")
        #expect(physics.pages == 300)                      // an inherited property
        let author = try #require(dune.authors?.anyObject() as? Author)
        #expect(author.bookCount == 1)
    }

    /// Builds the library with the generated accessors, in a first container.
    private func save(into storeURL: URL, model: NSManagedObjectModel) throws {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
        container.persistentStoreDescriptions.first!.url = storeURL
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let context = container.viewContext
        let shelf = Shelf(context: context)
        shelf.label = "Fiction"
        let dune = Book(context: context)
        dune.title = "Dune"
        dune.pages = 412
        dune.rating = 4.5
        dune.price = NSDecimalNumber(string: "9.99")
        dune.keywords = ["desert", "spice"]
        dune.isbn = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")
        dune.shelf = shelf
        let frank = Author(context: context)
        frank.name = "Frank"
        dune.addToAuthors(frank)
        let chapters = ["One", "Two", "Three"].enumerated().map { index, title in
            let chapter = Chapter(context: context)
            chapter.title = title
            chapter.number = Int16(index + 1)
            return chapter
        }
        dune.addToChapters(chapters[0])
        dune.addToChapters(chapters[2])
        dune.insertIntoChapters(chapters[1], at: 1)
        dune.removeFromChapters(at: 0)
        #expect(chapters[1].book === dune)
        #expect(chapters[0].book == nil)
        context.delete(chapters[0])
        let physics = Textbook(context: context)
        physics.title = "Physics"
        physics.pages = 300
        physics.subject = "mechanics"
        try context.save()
    }
}

/// The `ocd` executable built beside the test runner.
enum Tool {
    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    static var executable: URL { product("ocd") }

    /// An executable product built beside the test runner.
    static func product(_ name: String) -> URL {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [runner, runner.deletingLastPathComponent(), Bundle.main.bundleURL] {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return runner.appendingPathComponent(name)
    }

    static func run(_ arguments: [String], executable: URL = executable) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                      error: String(decoding: errorData, as: UTF8.self))
    }
}
