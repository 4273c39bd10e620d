import Foundation
import Testing
import CoreData

/// `ocd port` (issue 18, item 6): PortSamples/ holds Core Data code written for Apple's SDK;
/// Ported/ is what `ocd port` makes of it, compiled into this target and used here.
@Suite struct PortTests {
    static let samples = ["Notebook", "Page", "Tag"]
    static let ported = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Ported")

    /// The samples copied to a new folder as `.swift` files.
    private func copyOfTheSamples() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-port-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in Self.samples {
            let sample = try #require(Bundle.module.url(forResource: "PortSamples/\(name)", withExtension: "before"))
            try FileManager.default.copyItem(at: sample, to: folder.appendingPathComponent("\(name).swift"))
        }
        return folder
    }

    @Test func theCheckedInFilesAreWhatPortWrites() throws {
        let folder = try copyOfTheSamples()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try Tool.run(["port", folder.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.isEmpty)
        for name in Self.samples {
            #expect(result.output.contains("+++ \(folder.path)/\(name).swift\n"))
            let ported = try String(contentsOf: folder.appendingPathComponent("\(name).swift"), encoding: .utf8)
            let checkedIn = try String(contentsOf: Self.ported.appendingPathComponent("\(name).swift"), encoding: .utf8)
            #expect(ported == checkedIn, "Ported/\(name).swift differs from what ocd port writes now")
        }
        // Porting again changes nothing.
        let again = try Tool.run(["port", folder.path])
        #expect(again.status == 0)
        #expect(again.output.isEmpty)
    }

    @Test func aDryRunPrintsTheDiffAndChangesNothing() throws {
        let folder = try copyOfTheSamples()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Tag.swift")
        let before = try Data(contentsOf: file)
        let result = try Tool.run(["port", file.path, "--dry-run"])
        #expect(result.status == 0)
        #expect(result.output.contains(" @objc(Tag)\n+#endif\n"))
        #expect(result.output.contains("+    @Managed public var name: String?\n"))
        #expect(try Data(contentsOf: file) == before)
    }

    @Test func whatItCannotDoIsReportedWithFileAndLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-port-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Elsewhere.swift")
        try Data("""
            import CoreData

            extension Invoice {
                override public func willSave() {}
                @NSManaged public func archive()
            }
            """.utf8).write(to: file)
        let result = try Tool.run(["port", file.path])
        #expect(result.status == 1)
        #expect(result.error.contains("ocd: \(file.path):4: an override in an extension of Invoice, whose class is not in the files given: move it into the class body\n"))
        #expect(result.error.contains("ocd: \(file.path):5: cannot port '@NSManaged public func archive()'; left as it was\n"))

        let validator = folder.appendingPathComponent("Validator.swift")
        try Data("""
            extension Invoice {
                @objc func validateTotal(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>) throws {}
            }
            """.utf8).write(to: validator)
        let unported = try Tool.run(["port", validator.path])
        #expect(unported.status == 1)
        let loose = folder.appendingPathComponent("Loose.swift")
        try Data("""
            public class Loose: NSManagedObject {}
            extension Loose {
                @MainActor @objc public func validateName(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>) throws {}
                @objc(validateTitle:error:)
                func checkTitle(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>) throws {}
            }
            """.utf8).write(to: loose)
        let looseResult = try Tool.run(["port", loose.path, "--dry-run"])
        #expect(looseResult.error.contains("ocd: \(loose.path):1: Loose's body opens and closes on one line"))
        #expect(looseResult.error.contains("ocd: \(loose.path):4: this looks like a validate<Key> method ocd port cannot read"))
        #expect(unported.error.contains("ocd: \(validator.path):2: validateTotal of Invoice, whose class is not in the files given, is never called on Linux: override validateValue(_:forKey:) in Invoice to call it\n"))

        let observer = folder.appendingPathComponent("Observer.swift")
        try Data("""
            final class Observer: NSObject {
                func start() {
                    NotificationCenter.default.addObserver(self, selector: #selector(changed(_:)), name: .NSManagedObjectContextDidSave, object: nil)
                }
                let byDate = NSSortDescriptor(key: "date", ascending: false, selector: #selector(getter: NSDate.timeIntervalSinceNow))
                let byLength = NSSortDescriptor(key: "name", ascending: true, selector: #selector(NSString.compareByLength(_:)))
                // Sorted with #selector(NSString.compare(_:)) before.
                let comparison = #selector(NSString.localizedCaseInsensitiveCompare(_:)), label = "#selector(x)"
            }
            """.utf8).write(to: observer)
        let observed = try Tool.run(["port", observer.path, "--dry-run"])
        #expect(observed.status == 1)
        #expect(observed.error.contains("ocd: \(observer.path):3: #selector(changed(_:)) needs Objective-C, which Swift on Linux lacks"))
        #expect(observed.error.contains("ocd: \(observer.path):5: #selector(getter: NSDate.timeIntervalSinceNow) needs Objective-C"))
        #expect(observed.error.contains("ocd: \(observer.path):6: #selector(NSString.compareByLength(_:)) needs Objective-C"))
        // A comparison is ported wherever it is named; comments and strings are left alone.
        #expect(!observed.error.contains("\(observer.path):7:") && !observed.error.contains("\(observer.path):8:"))
        #expect(observed.output.contains("+    let comparison = Selector(\"localizedCaseInsensitiveCompare:\"), label = \"#selector(x)\"\n"))

        let unbalanced = folder.appendingPathComponent("Broken.swift")
        try Data("class Broken: NSManagedObject {\n    @NSManaged var name: String?\n".utf8).write(to: unbalanced)
        let broken = try Tool.run(["port", unbalanced.path])
        #expect(broken.status == 1)
        #expect(broken.error.contains("ocd: \(unbalanced.path):1: cannot read this file's structure: this '{' is never closed; left as it was\n"))
        let missing = try Tool.run(["port", "/no/such/File.swift"])
        #expect(missing.status == 1)
        #expect(missing.error == "ocd: /no/such/File.swift: no such file or folder\n")
    }

    /// A code base with the objc.io book's `protocol Managed`, which hides the property wrapper
    /// of that name: the ported properties spell it `@CoreData.Managed`.
    @Test func aTypeNamedManagedInTheFilesMakesTheWrapperQualified() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-port-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("protocol Managed: AnyObject, NSFetchRequestResult {\n    static var entityName: String { get }\n}\n".utf8)
            .write(to: folder.appendingPathComponent("Managed.swift"))
        let mood = folder.appendingPathComponent("Mood.swift")
        try Data("import CoreData\n\nfinal class Mood: NSManagedObject, Managed {\n    @NSManaged var date: Date?\n}\n".utf8).write(to: mood)
        let result = try Tool.run(["port", folder.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(try String(contentsOf: mood, encoding: .utf8).contains("    @CoreData.Managed var date: Date?\n"))
    }

    static func model() -> NSManagedObjectModel {
        let notebook = NSEntityDescription()
        notebook.name = "Notebook"
        notebook.managedObjectClassName = "Notebook"
        let page = NSEntityDescription()
        page.name = "Page"
        page.managedObjectClassName = "Page"
        let tag = NSEntityDescription()
        tag.name = "Tag"
        tag.managedObjectClassName = "Tag"
        func attribute(_ name: String, _ type: NSAttributeDescription.AttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.type = type
            return attribute
        }
        func relationship(_ name: String, _ destination: NSEntityDescription, toMany: Bool, ordered: Bool = false) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = destination
            relationship.maxCount = toMany ? 0 : 1
            relationship.isOrdered = ordered
            return relationship
        }
        let pages = relationship("pages", page, toMany: true, ordered: true)
        let pageNotebook = relationship("notebook", notebook, toMany: false)
        pages.inverseRelationship = pageNotebook
        pageNotebook.inverseRelationship = pages
        let tags = relationship("tags", tag, toMany: true)
        let notebooks = relationship("notebooks", notebook, toMany: true)
        tags.inverseRelationship = notebooks
        notebooks.inverseRelationship = tags
        notebook.properties = [attribute("title", .string), pages, tags]
        page.properties = [attribute("text", .string), attribute("number", .integer16), pageNotebook]
        tag.properties = [attribute("name", .string), notebooks]
        let model = NSManagedObjectModel()
        model.entities = [notebook, page, tag]
        return model
    }

    @Test func portedClassesRoundTripThroughAStoreOnDisk() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-port-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = Self.model()
        let description = NSPersistentStoreDescription(url: directory.appendingPathComponent("Notes.sqlite"))
        func open() throws -> NSPersistentContainer {
            let container = NSPersistentContainer(name: "Notes", managedObjectModel: model)
            container.persistentStoreDescriptions = [description]
            var loadError: Error?
            container.loadPersistentStores { _, error in loadError = error }
            if let loadError { throw loadError }
            return container
        }
        let first = try open()
        let notebook = Notebook(context: first.viewContext)
        #expect(notebook.title == "New notebook")          // the override moved out of the extension runs
        notebook.title = "Travel"
        for number in [1, 3] {
            let page = Page(context: first.viewContext)
            page.number = Int16(number)
            notebook.addToPages(page)
        }
        let second = Page(context: first.viewContext)
        second.number = 2
        notebook.insertIntoPages(second, at: 1)
        let tag = Tag(context: first.viewContext)
        tag.name = "Trips"
        notebook.addToTags(tag)
        try first.viewContext.save()
        #expect(tag.name == "trips")                       // willSave, moved into the class, ran
        let blank = Tag(context: first.viewContext)
        blank.name = "  "
        let refused = #expect(throws: NSError.self) { try first.viewContext.save() }
        #expect(refused?.code == NSValidationMissingMandatoryPropertyError)   // validateName, called by the override port added
        first.viewContext.delete(blank)
        try first.viewContext.save()

        let context = try open().viewContext
        let request = NSFetchRequest<Notebook>(entityName: "Notebook")
        request.predicate = Notebook.titled("Travel")
        let fetched = try #require(try context.fetch(request).first)
        #expect(fetched.pages?.array.compactMap { ($0 as? Page)?.number } == [1, 2, 3])
        #expect(fetched.summary == "Travel: 3 pages")
        let tags = try #require(fetched.tags)
        #expect((tags.anyObject() as? Tag)?.name == "trips")
        fetched.removeFromTags(tags)
        #expect(fetched.tags?.count == 0)
        fetched.removeFromPages(at: 0)
        let sorted = try context.fetch({ let r = NSFetchRequest<Page>(entityName: "Page"); r.sortDescriptors = [Page.byNumber]; return r }())
        #expect(sorted.map(\.number) == [1, 2, 3])
        #expect(sorted[0].notebook == nil)

        // The sort descriptor whose #selector port rewrote compares as the Finder does.
        for title in ["Volume 10", "Volume 9"] { Notebook(context: context).title = title }
        try context.save()
        let byTitle = NSFetchRequest<Notebook>(entityName: "Notebook")
        byTitle.sortDescriptors = [Notebook.byTitle]
        #expect(try context.fetch(byTitle).compactMap(\.title) == ["Travel", "Volume 9", "Volume 10"])
        #expect(Notebook.byTitle.selector == Selector("localizedStandardCompare:"))
    }
}
