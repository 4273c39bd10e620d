import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
import OCDSQLite
import OpenCoreDataPostgres

/// A `.xcdatamodeld` bundle written for a test: versions of a model, one of them current.
struct ModelBundle {
    let url: URL

    /// A bundle already on disk.
    init(url: URL) { self.url = url }

    /// Writes `versions` (name → the entities' XML) into `directory/<name>.xcdatamodeld`.
    init(in directory: TemporaryDirectory, name: String = "Journal", versions: [(String, String)], current: String) throws {
        url = directory.file("\(name).xcdatamodeld")
        for (version, entities) in versions {
            let folder = url.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="23231" systemVersion="24A335" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            \(entities)
            </model>
            """
            try xml.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        try makeCurrent(current)
    }

    /// Makes `version` the one `NSManagedObjectModel(contentsOf:)` loads, as a new app release does.
    func makeCurrent(_ version: String) throws {
        let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(version).xcdatamodel</string></dict></plist>
        """
        try plist.write(to: url.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
    }

    func model() throws -> NSManagedObjectModel { try NSManagedObjectModel(validatingContentsOf: url) }
}

/// An app's next model version opens its users' stores, with their data: lightweight migration
/// in place, in SQL, inferred from the two versions (COREDATA-SEMANTICS.md: inference applies
/// when migration is also on; both are on in a store description by default).
@Suite struct LightweightMigrationTests {
    static let entryV1 = """
        <entity name="Entry" representedClassName="Entry" syncable="YES">
            <attribute name="note" optional="YES" attributeType="String"/>
            <attribute name="time" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="stars" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="draft" optional="YES" attributeType="String"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="entries" inverseEntity="Tag"/>
            <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="entries" inverseEntity="Book"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="entries" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Entry" inverseName="tags" inverseEntity="Entry"/>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="entries" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Entry" inverseName="book" inverseEntity="Entry"/>
        </entity>
        <entity name="Scratch" representedClassName="Scratch" syncable="YES">
            <attribute name="text" optional="YES" attributeType="String"/>
        </entity>
        """

    /// Version 2: `mood` added (optional), `note` renamed to `text` (renaming identifier),
    /// `draft` removed, `stars` from Integer 16 to Double and required, `Book` renamed to
    /// `Journal`, `Scratch` removed, `Place` added.
    static let entryV2 = """
        <entity name="Entry" representedClassName="Entry" syncable="YES">
            <attribute name="text" optional="YES" attributeType="String" elementID="note"/>
            <attribute name="time" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="stars" attributeType="Double" defaultValueString="1" usesScalarValueType="YES"/>
            <attribute name="mood" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
            <attribute name="pinned" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="entries" inverseEntity="Tag"/>
            <relationship name="journal" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Journal" inverseName="entries" inverseEntity="Journal" elementID="book"/>
            <relationship name="place" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Place" inverseName="entries" inverseEntity="Place"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="entries" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Entry" inverseName="tags" inverseEntity="Entry"/>
        </entity>
        <entity name="Journal" representedClassName="Journal" elementID="Book" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="entries" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Entry" inverseName="journal" inverseEntity="Entry"/>
        </entity>
        <entity name="Place" representedClassName="Place" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="entries" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Entry" inverseName="place" inverseEntity="Entry"/>
        </entity>
        """

    /// Version 1 with only an optional attribute added.
    static let entryV1WithMood = entryV1.replacingOccurrences(
        of: "<attribute name=\"draft\" optional=\"YES\" attributeType=\"String\"/>",
        with: "<attribute name=\"draft\" optional=\"YES\" attributeType=\"String\"/>\n<attribute name=\"mood\" optional=\"YES\" attributeType=\"String\"/>")

    static func container(_ model: NSManagedObjectModel, at url: URL, configure: (NSPersistentStoreDescription) -> Void = { _ in }) -> (NSPersistentContainer, Error?) {
        let description = NSPersistentStoreDescription(url: url)
        // A server URL names the PostgreSQL store (PostgresMigrationTests).
        if !url.isFileURL { description.type = OCDPostgreSQLStoreType }
        configure(description)
        let container = NSPersistentContainer(name: "Journal", managedObjectModel: model)
        container.persistentStoreDescriptions = [description]
        let failure = LockedBox<Error?>(nil)
        container.loadPersistentStores { _, error in if let error { failure.mutate { $0 = error } } }
        return (container, failure.value)
    }

    static let start = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// A store of version 1: three entries (one without note or stars), two tags on the first,
    /// a book holding the first two entries, a scratch note.
    static func writeVersion1Store(at url: URL, bundle: ModelBundle) throws {
        let (container, error) = container(try bundle.model(), at: url)
        #expect(error == nil)
        let context = container.viewContext
        let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
        book.setValue("Diary", forKey: "title")
        let tags = ["work", "home"].map { name in
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue(name, forKey: "name")
            return tag
        }
        for index in 0..<3 {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
            entry.setValue(start.addingTimeInterval(Double(index)), forKey: "time")
            entry.setValue(index == 2 ? nil : "note \(index)", forKey: "note")
            entry.setValue(index == 2 ? nil : NSNumber(value: Int16(index + 3)), forKey: "stars")
            entry.setValue("draft", forKey: "draft")
            if index == 0 { entry.setValue(Set(tags), forKey: "tags") }
            if index < 2 { entry.setValue(book, forKey: "book") }
        }
        NSEntityDescription.insertNewObject(forEntityName: "Scratch", into: context).setValue("x", forKey: "text")
        try context.save()
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
    }

    /// A store written with version 1 of a two-version bundle whose version 2 is `next`
    /// (version 1 current; the test makes version 2 current as the app's next release does).
    static func version1Store(upgradingTo next: String, in directory: TemporaryDirectory, at place: URL? = nil) throws -> (ModelBundle, URL) {
        let bundle = try ModelBundle(in: directory, versions: [("Journal", entryV1), ("Journal 2", next)], current: "Journal")
        let url = place ?? directory.file("Journal.sqlite")
        try writeVersion1Store(at: url, bundle: bundle)
        return (bundle, url)
    }

    /// The store is still version 1's, with all its entries: version 1 opens it.
    static func expectVersion1StillOpens(_ url: URL, _ bundle: ModelBundle) throws {
        try bundle.makeCurrent("Journal")
        let (older, olderError) = container(try bundle.model(), at: url)
        #expect(olderError == nil)
        #expect(try entries(in: older.viewContext).count == 3)
    }

    static func entries(in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
        request.sortDescriptors = [NSSortDescriptor(key: "time", ascending: true)]
        return try context.fetch(request)
    }

    @Test func theNextVersionOpensTheStoreWithItsData() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.version1Store(upgradingTo: Self.entryV2, in: directory)

        try bundle.makeCurrent("Journal 2")
        let (container, error) = Self.container(try bundle.model(), at: url)
        #expect(error == nil)
        let entries = try Self.entries(in: container.viewContext)
        #expect(entries.count == 3)
        // Renamed through the renaming identifier: the values are kept.
        #expect(entries.map { $0.value(forKey: "text") as? String } == ["note 0", "note 1", nil])
        // Integer 16 → Double, made required with a default: values converted, the missing one defaulted.
        #expect(entries.map { ($0.value(forKey: "stars") as? NSNumber)?.doubleValue } == [3, 4, 1])
        // Added: an optional attribute is nil, a required one with a default has its default.
        #expect(entries.allSatisfy { $0.value(forKey: "mood") == nil })
        #expect(entries.allSatisfy { ($0.value(forKey: "pinned") as? Bool) == true })
        #expect(entries.map { $0.value(forKey: "time") as? Date } == (0..<3).map { Self.start.addingTimeInterval(Double($0)) })
        // Relationships survive: the many-to-many, and the to-one into the renamed entity.
        let tags = (entries[0].value(forKey: "tags") as? Set<NSManagedObject>) ?? []
        #expect(Set(tags.compactMap { $0.value(forKey: "name") as? String }) == ["work", "home"])
        #expect((entries[0].value(forKey: "journal") as? NSManagedObject)?.value(forKey: "title") as? String == "Diary")
        #expect((entries[1].value(forKey: "journal") as? NSManagedObject) != nil)
        #expect(entries[2].value(forKey: "journal") == nil)
        let journal = try #require(entries[0].value(forKey: "journal") as? NSManagedObject)
        #expect((journal.value(forKey: "entries") as? Set<NSManagedObject>)?.count == 2)
        // The removed entity is gone; the added one works.
        let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: container.viewContext)
        place.setValue("Home", forKey: "name")
        entries[2].setValue(place, forKey: "place")
        entries[2].setValue(NSNumber(value: 7), forKey: "mood")
        try container.viewContext.save()
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])

        // Reopened, the store fits version 2 as it is: its metadata names version 2.
        let model = try bundle.model()
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let (reopened, reopenError) = Self.container(model, at: url) { $0.shouldMigrateStoreAutomatically = false }
        #expect(reopenError == nil)
        let again = try Self.entries(in: reopened.viewContext)
        #expect((again[2].value(forKey: "place") as? NSManagedObject)?.value(forKey: "name") as? String == "Home")
        #expect((again[2].value(forKey: "mood") as? NSNumber)?.intValue == 7)
        let scratch = try SQLiteConnection(path: url.path)
        #expect(try !scratch.tableExists("ZSCRATCH"))
        #expect(try scratch.rows("SELECT Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_NAME").compactMap { $0[0].stringValue } == ["Entry", "Journal", "Place", "Tag"])
    }

    /// Version 1 with Entry's to-one `book` and Book's to-many `entries` replaced.
    static func entryV1(book: String, bookEntries: String) -> String {
        let changed = entryV1
            .replacingOccurrences(of: "<relationship name=\"book\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"Book\" inverseName=\"entries\" inverseEntity=\"Book\"/>",
                                  with: book)
            .replacingOccurrences(of: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Entry\" inverseName=\"book\" inverseEntity=\"Entry\"/>",
                                  with: bookEntries)
        #expect(changed != entryV1)
        return changed
    }

    /// A version-1 store opened with `next` as version 2: its container, the entries (by time)
    /// and each entry's `books`, which must be the migrated to-one's links.
    static func booksOfEntries(afterMigratingTo next: String, in directory: TemporaryDirectory, at place: URL? = nil) throws
        -> (NSPersistentContainer, [NSManagedObject], [Set<NSManagedObject>]) {
        let (bundle, url) = try version1Store(upgradingTo: next, in: directory, at: place)
        try bundle.makeCurrent("Journal 2")
        let (container, error) = container(try bundle.model(), at: url)
        #expect(error == nil)
        let entries = try entries(in: container.viewContext)
        let books = entries.map { ($0.value(forKey: "books") as? Set<NSManagedObject>) ?? [] }
        #expect(books.map(\.count) == [1, 1, 0])
        #expect(books[0].first?.value(forKey: "title") as? String == "Diary")
        return (container, entries, books)
    }

    /// A one-to-many becoming a many-to-many keeps every link (the key column fills the join
    /// table), and a relationship becoming ordered keeps its members, in key order.
    @Test func aToOneBecomingAToManyKeepsItsLinks() throws {
        let directory = TemporaryDirectory()
        let manyToMany = Self.entryV1(
            book: "<relationship name=\"books\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Book\" inverseName=\"entries\" inverseEntity=\"Book\" elementID=\"book\"/>",
            bookEntries: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" ordered=\"YES\" destinationEntity=\"Entry\" inverseName=\"books\" inverseEntity=\"Entry\"/>")
        let (container, entries, books) = try Self.booksOfEntries(afterMigratingTo: manyToMany, in: directory)
        let diary = try #require(books[0].first)
        let members = try #require(diary.value(forKey: "entries") as? NSOrderedSet)
        #expect(members.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "note") as? String } == ["note 0", "note 1"])
        // A second book for the first entry: a many-to-many now.
        let other = NSEntityDescription.insertNewObject(forEntityName: "Book", into: container.viewContext)
        other.setValue(NSOrderedSet(array: [entries[0]]), forKey: "entries")
        try container.viewContext.save()
        container.viewContext.reset()
        #expect((try Self.entries(in: container.viewContext)[0].value(forKey: "books") as? Set<NSManagedObject>)?.count == 2)
    }

    /// A to-one becoming a to-many without inverse keeps every link: the key column fills the
    /// relationship's join table.
    @Test func aToOneBecomingAToManyWithoutInverseKeepsItsLinks() throws {
        let directory = TemporaryDirectory()
        let withoutInverse = Self.entryV1(
            book: "<relationship name=\"books\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Book\" elementID=\"book\"/>",
            bookEntries: "")
        let (container, entries, _) = try Self.booksOfEntries(afterMigratingTo: withoutInverse, in: directory)
        // A second book for the first entry, saved and read back.
        let other = NSEntityDescription.insertNewObject(forEntityName: "Book", into: container.viewContext)
        entries[0].mutableSetValue(forKey: "books").add(other)
        try container.viewContext.save()
        container.viewContext.reset()
        #expect((try Self.entries(in: container.viewContext)[0].value(forKey: "books") as? Set<NSManagedObject>)?.count == 2)
    }

    /// Version 1's store opened with `next` as version 2: its container and the entries'
    /// notes of the book "Diary", in the order the book's `entries` give them.
    static func diaryEntryNotes(afterMigratingTo next: String, in directory: TemporaryDirectory, at place: URL? = nil) throws
        -> (NSPersistentContainer, NSManagedObject, [String]) {
        let (bundle, url) = try version1Store(upgradingTo: next, in: directory, at: place)
        try bundle.makeCurrent("Journal 2")
        let (container, error) = container(try bundle.model(), at: url)
        #expect(error == nil)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
        let diary = try #require(try container.viewContext.fetch(request).first)
        let members: [Any] = switch diary.value(forKey: "entries") {
        case let ordered as NSOrderedSet: ordered.array
        case let unordered as Set<NSManagedObject>: Array(unordered)
        default: []
        }
        let notes = members.compactMap { ($0 as? NSManagedObject)?.value(forKey: "note") as? String }
        return (container, diary, notes)
    }

    /// A one-to-many that loses its to-one inverse keeps every link: the inverse's key column
    /// fills the join table of the to-many without inverse, and an entry can then be in two books.
    @Test func aToManyThatLosesItsToOneInverseKeepsItsLinks() throws {
        let directory = TemporaryDirectory()
        let withoutInverse = Self.entryV1(
            book: "",
            bookEntries: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Entry\"/>")
        let (container, diary, notes) = try Self.diaryEntryNotes(afterMigratingTo: withoutInverse, in: directory)
        #expect(notes.sorted() == ["note 0", "note 1"])
        let entries = try Self.entries(in: container.viewContext)
        let other = NSEntityDescription.insertNewObject(forEntityName: "Book", into: container.viewContext)
        other.setValue("Log", forKey: "title")
        other.mutableSetValue(forKey: "entries").add(entries[0])
        try container.viewContext.save()
        container.viewContext.reset()
        let books = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
        let counts = Dictionary(uniqueKeysWithValues: books.map { ($0.value(forKey: "title") as? String ?? "", ($0.value(forKey: "entries") as? Set<NSManagedObject>)?.count) })
        #expect(counts == ["Diary": 2, "Log": 1])
        #expect(diary.value(forKey: "title") as? String == "Diary")
    }

    /// A to-many whose to-one inverse is replaced by a new one (no renaming identifier) keeps
    /// its links: the new inverse takes the old one's keys.
    @Test func aToManyWhoseInverseIsReplacedKeepsItsLinks() throws {
        let directory = TemporaryDirectory()
        let replaced = Self.entryV1(
            book: "<relationship name=\"volume\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"Book\" inverseName=\"entries\" inverseEntity=\"Book\"/>",
            bookEntries: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Entry\" inverseName=\"volume\" inverseEntity=\"Entry\"/>")
        let (container, _, notes) = try Self.diaryEntryNotes(afterMigratingTo: replaced, in: directory)
        #expect(notes.sorted() == ["note 0", "note 1"])
        let entries = try Self.entries(in: container.viewContext)
        #expect(entries.map { ($0.value(forKey: "volume") as? NSManagedObject)?.value(forKey: "title") as? String } == ["Diary", "Diary", nil])
    }

    /// The same change to an ordered to-many keeps the members in the order they had.
    @Test func anOrderedToManyThatLosesItsToOneInverseKeepsItsOrder() throws {
        let directory = TemporaryDirectory()
        let orderedV1 = Self.entryV1.replacingOccurrences(
            of: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Entry\" inverseName=\"book\"",
            with: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" ordered=\"YES\" destinationEntity=\"Entry\" inverseName=\"book\"")
        let withoutInverse = Self.entryV1(
            book: "",
            bookEntries: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" ordered=\"YES\" destinationEntity=\"Entry\"/>")
        let bundle = try ModelBundle(in: directory, versions: [("Journal", orderedV1), ("Journal 2", withoutInverse)], current: "Journal")
        let url = directory.file("Journal.sqlite")
        do {
            // Entries added to the book last first, so that their order is not their keys'.
            let (container, error) = Self.container(try bundle.model(), at: url)
            #expect(error == nil)
            let context = container.viewContext
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            let entries = (0..<3).map { index in
                let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                entry.setValue(Self.start.addingTimeInterval(Double(index)), forKey: "time")
                entry.setValue("note \(index)", forKey: "note")
                return entry
            }
            book.setValue(NSOrderedSet(array: entries.reversed()), forKey: "entries")
            try context.save()
            try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        }
        try bundle.makeCurrent("Journal 2")
        let (container, error) = Self.container(try bundle.model(), at: url)
        #expect(error == nil)
        let book = try #require(try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).first)
        let members = (book.value(forKey: "entries") as? NSOrderedSet)?.array ?? []
        #expect(members.compactMap { ($0 as? NSManagedObject)?.value(forKey: "note") as? String } == ["note 2", "note 1", "note 0"])
    }

    /// A many-to-many that loses one side keeps the other's links in its join table, and a
    /// to-many without inverse that gains a to-many inverse keeps them too (back to version 1).
    @Test func aManyToManyThatLosesASideKeepsItsLinks() throws {
        let directory = TemporaryDirectory()
        let oneSided = Self.entryV1
            .replacingOccurrences(of: "<relationship name=\"tags\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Tag\" inverseName=\"entries\" inverseEntity=\"Tag\"/>",
                                  with: "")
            .replacingOccurrences(of: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Entry\" inverseName=\"tags\" inverseEntity=\"Entry\"/>",
                                  with: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Entry\"/>")
        #expect(oneSided.components(separatedBy: "inverseName=\"tags\"").count == 1)
        let bundle = try ModelBundle(in: directory, versions: [("Journal", Self.entryV1), ("Journal 2", oneSided), ("Journal 3", Self.entryV1)], current: "Journal")
        let url = directory.file("Journal.sqlite")
        try Self.writeVersion1Store(at: url, bundle: bundle)

        func tagNotes() throws -> [String: [String]] {
            let (container, error) = Self.container(try bundle.model(), at: url)
            #expect(error == nil)
            defer { try? container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0]) }
            let tags = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
            return Dictionary(uniqueKeysWithValues: tags.map { tag in
                (tag.value(forKey: "name") as? String ?? "",
                 ((tag.value(forKey: "entries") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "note") as? String }.sorted())
            })
        }
        try bundle.makeCurrent("Journal 2")
        #expect(try tagNotes() == ["work": ["note 0"], "home": ["note 0"]])
        try bundle.makeCurrent("Journal 3")
        #expect(try tagNotes() == ["work": ["note 0"], "home": ["note 0"]])
    }

    /// Two one-to-manys that become the two sides of one many-to-many would have their links
    /// gathered into one join table: refused (134110, naming both), the store left as it was,
    /// rather than keeping one side's links and dropping the other's.
    @Test func twoOneToManysBecomingOneManyToManyAreRefused() throws {
        let directory = TemporaryDirectory()
        let v1 = """
            <entity name="Author" representedClassName="Author" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="author" inverseEntity="Tag"/>
                <relationship name="tag" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Tag" inverseName="authors" inverseEntity="Tag"/>
            </entity>
            <entity name="Tag" representedClassName="Tag" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="tags" inverseEntity="Author"/>
                <relationship name="authors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Author" inverseName="tag" inverseEntity="Author"/>
            </entity>
            """
        let v2 = """
            <entity name="Author" representedClassName="Author" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="authors" inverseEntity="Tag"/>
            </entity>
            <entity name="Tag" representedClassName="Tag" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="authors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Author" inverseName="tags" inverseEntity="Author"/>
            </entity>
            """
        let bundle = try ModelBundle(in: directory, name: "Tags", versions: [("Tags", v1), ("Tags 2", v2)], current: "Tags")
        let url = directory.file("Tags.sqlite")
        do {
            let (container, error) = Self.container(try bundle.model(), at: url)
            #expect(error == nil)
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: container.viewContext)
            let mine = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: container.viewContext)
            let theirs = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: container.viewContext)
            mine.setValue(author, forKey: "author")
            author.setValue(theirs, forKey: "tag")
            try container.viewContext.save()
            try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        }
        let bytes = try Data(contentsOf: url)
        try bundle.makeCurrent("Tags 2")
        let (_, error) = Self.container(try bundle.model(), at: url)
        let failure = try #require(error as? CocoaError)
        #expect(failure.code.rawValue == 134110)
        #expect(failure.message.contains("would gather the links of several relationships"))
        #expect(failure.message.contains("Author.tags") && failure.message.contains("Tag.authors"))
        #expect(try Data(contentsOf: url) == bytes)
    }

    /// A migration reports its progress, table by table, to the description's `Progress`.
    @Test func aMigrationReportsItsProgress() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.version1Store(upgradingTo: Self.entryV2, in: directory)
        try bundle.makeCurrent("Journal 2")
        let progress = Progress(totalUnitCount: 0)
        let (container, error) = Self.container(try bundle.model(), at: url) { $0.migrationProgress = progress }
        #expect(error == nil)
        // Entry, Journal, Place, Tag, the join table, the indexes, the metadata.
        #expect(progress.totalUnitCount == 7)
        #expect(progress.completedUnitCount == 7)
        #expect(progress.fractionCompleted == 1)
        #expect(progress.userInfo[ProgressUserInfoKey.migrationEntityName] == nil)
        #expect(try Self.entries(in: container.viewContext).count == 3)
    }

    /// A cancelled migration is 134120, and leaves the store as it was: the older version
    /// opens it with all its data.
    @Test func aCancelledMigrationLeavesTheStoreAsItWas() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.version1Store(upgradingTo: Self.entryV2, in: directory)
        let bytes = try Data(contentsOf: url)
        try bundle.makeCurrent("Journal 2")
        let progress = Progress(totalUnitCount: 0)
        progress.cancel()
        let (_, error) = Self.container(try bundle.model(), at: url) { $0.migrationProgress = progress }
        #expect((error as? CocoaError)?.code.rawValue == 134120)
        #expect(try Data(contentsOf: url) == bytes)
        try Self.expectVersion1StillOpens(url, bundle)
    }

    /// Entities of one inheritance tree share a table: an attribute moved up from a
    /// sub-entity to the root keeps the sub-entity's values, a new one on a sub-entity gets its
    /// default only in that sub-entity's rows, and a renamed entity and a new one under its old
    /// name stay apart.
    @Test func aSharedTableKeepsEachSubEntitysValues() throws {
        let directory = TemporaryDirectory()
        let v1 = """
            <entity name="Animal" representedClassName="Animal" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Dog" representedClassName="Dog" parentEntity="Animal" syncable="YES">
                <attribute name="nickname" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Cat" representedClassName="Cat" parentEntity="Animal" syncable="YES">
                <attribute name="lives" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
            </entity>
            <entity name="Owner" representedClassName="Owner" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            """
        // `nickname` moves up to Animal; Cat gains `indoor` with a default; Owner is renamed
        // to Keeper, and a new entity takes the name Owner.
        let v2 = """
            <entity name="Animal" representedClassName="Animal" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="nickname" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Dog" representedClassName="Dog" parentEntity="Animal" syncable="YES"/>
            <entity name="Cat" representedClassName="Cat" parentEntity="Animal" syncable="YES">
                <attribute name="lives" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
                <attribute name="indoor" optional="YES" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
            </entity>
            <entity name="Keeper" representedClassName="Keeper" elementID="Owner" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Owner" representedClassName="Owner" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
            </entity>
            """
        // Version 3 is version 2 with one more attribute: Xcode carries Keeper's renaming
        // identifier ("Owner") into it, and the entity named Owner must stay Owner.
        let v3 = v2.replacingOccurrences(of: "<attribute name=\"title\" optional=\"YES\" attributeType=\"String\"/>",
                                         with: "<attribute name=\"title\" optional=\"YES\" attributeType=\"String\"/><attribute name=\"since\" optional=\"YES\" attributeType=\"Date\" usesScalarValueType=\"NO\"/>")
        #expect(v3 != v2)
        let bundle = try ModelBundle(in: directory, name: "Zoo", versions: [("Zoo", v1), ("Zoo 2", v2), ("Zoo 3", v3)], current: "Zoo")
        let url = directory.file("Zoo.sqlite")
        do {
            let (container, error) = Self.container(try bundle.model(), at: url)
            #expect(error == nil)
            let context = container.viewContext
            for (entity, name, extra) in [("Dog", "Rex", "Rexy"), ("Cat", "Tom", nil), ("Animal", "Blob", nil)] {
                let animal = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                animal.setValue(name, forKey: "name")
                if let extra { animal.setValue(extra, forKey: "nickname") }
                if entity == "Cat" { animal.setValue(NSNumber(value: 9), forKey: "lives") }
            }
            NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context).setValue("Ann", forKey: "name")
            try context.save()
            try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        }
        try bundle.makeCurrent("Zoo 2")
        let (container, error) = Self.container(try bundle.model(), at: url)
        #expect(error == nil)
        let context = container.viewContext
        func animal(_ name: String) throws -> NSManagedObject {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
            request.predicate = NSPredicate(format: "name == %@", name)
            return try #require(try context.fetch(request).first)
        }
        #expect(try animal("Rex").entity.name == "Dog")
        #expect(try animal("Rex").value(forKey: "nickname") as? String == "Rexy")
        #expect(try animal("Tom").value(forKey: "indoor") as? Bool == true)
        #expect((try animal("Tom").value(forKey: "lives") as? NSNumber)?.intValue == 9)
        #expect(try animal("Blob").entity.name == "Animal")
        let keepers = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Keeper"))
        #expect(keepers.compactMap { $0.value(forKey: "name") as? String } == ["Ann"])
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Owner")) == 0)
        let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
        owner.setValue("Dr", forKey: "title")
        try context.save()
        // No row of another entity got the new sub-entity attribute's default.
        let raw = try SQLiteConnection(path: url.path)
        #expect(try raw.scalar("SELECT count(*) FROM ZANIMAL WHERE ZINDOOR IS NOT NULL").int64Value == 1)
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])

        try bundle.makeCurrent("Zoo 3")
        let (third, thirdError) = Self.container(try bundle.model(), at: url)
        #expect(thirdError == nil)
        let keepersAfter = try third.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Keeper"))
        #expect(keepersAfter.compactMap { $0.value(forKey: "name") as? String } == ["Ann"])
        let owners = try third.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Owner"))
        #expect(owners.compactMap { $0.value(forKey: "title") as? String } == ["Dr"])
    }

    /// A required attribute without a default that the old rows have no value for fails the
    /// migration (134110, naming the entity and attribute), as Core Data's does; nothing is written.
    @Test func aRequiredAttributeWithoutAValueFailsTheMigration() throws {
        let directory = TemporaryDirectory()
        let required = Self.entryV1.replacingOccurrences(of: "<attribute name=\"note\" optional=\"YES\" attributeType=\"String\"/>",
                                                         with: "<attribute name=\"note\" attributeType=\"String\"/>")
        let (bundle, url) = try Self.version1Store(upgradingTo: required, in: directory)
        try bundle.makeCurrent("Journal 2")
        let bytes = try Data(contentsOf: url)
        let (_, error) = Self.container(try bundle.model(), at: url)
        let failure = try #require(error as? CocoaError)
        #expect(failure.code.rawValue == 134110)
        #expect(failure.userInfo["NSEntityNameKey"] as? String == "Entry")
        #expect(failure.userInfo[NSValidationKeyErrorKey] as? String == "note")
        #expect(failure.message.contains("1 object(s) of entity 'Entry' have no value for the required attribute 'note'"))
        #expect(try Data(contentsOf: url) == bytes)
    }

    /// Triggers (Core Data's derived attributes keep some) are set aside while tables change:
    /// one that writes to a rebuilt table survives, one that reads a column the new model
    /// dropped is left out, and saving works afterwards.
    @Test func triggersSurviveWhereTheyStillApply() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.version1Store(upgradingTo: Self.entryV2, in: directory)
        do {
            let raw = try SQLiteConnection(path: url.path)
            // On a kept table, writing to a table the migration rebuilds (ZENTRY).
            try raw.execute("CREATE TRIGGER ZTAG_TOUCH AFTER UPDATE OF ZNAME ON ZTAG BEGIN UPDATE ZENTRY SET Z_OPT = Z_OPT WHERE 0; END")
            // Reading ZDRAFT, which version 2 removes.
            try raw.execute("CREATE TRIGGER ZENTRY_DRAFT AFTER INSERT ON ZENTRY BEGIN SELECT NEW.ZDRAFT; END")
            // On the table of Book, which version 2 renames to Journal: it follows the rows.
            try raw.execute("CREATE TRIGGER ZBOOK_TITLE AFTER UPDATE OF ZTITLE ON zbook BEGIN SELECT NEW.ZTITLE; END")
        }
        try bundle.makeCurrent("Journal 2")
        let (container, error) = Self.container(try bundle.model(), at: url)
        #expect(error == nil)
        let triggers = try SQLiteConnection(path: url.path).rows("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
            .compactMap { $0[0].stringValue }
        #expect(triggers == ["ZBOOK_TITLE", "ZTAG_TOUCH"])
        #expect(try SQLiteConnection(path: url.path).scalar("SELECT tbl_name FROM sqlite_master WHERE name = 'ZBOOK_TITLE'").stringValue == "ZJOURNAL")
        let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: container.viewContext)
        entry.setValue(Date(), forKey: "time")
        let tag = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))[0]
        tag.setValue("renamed", forKey: "name")
        try container.viewContext.save()
    }

    /// A store whose hashes are the model's but whose tables differ (damaged, or edited by
    /// hand) has nothing to migrate from: it is refused with 134100 naming what differs, and
    /// left as it is, even with migration asked for.
    @Test func aStoreWithTheModelsHashesButOtherTablesIsRefusedNotMigrated() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.version1Store(upgradingTo: Self.entryV2, in: directory)
        do {
            let raw = try SQLiteConnection(path: url.path)
            try raw.execute("ALTER TABLE ZENTRY DROP COLUMN ZDRAFT")
            try raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let bytes = try Data(contentsOf: url)
        let (_, error) = Self.container(try bundle.model(), at: url)
        let failure = try #require(error as? CocoaError)
        #expect(failure.code.rawValue == 134100)
        #expect(failure.message.contains("attribute 'draft' of entity 'Entry' has no column ZDRAFT"))
        #expect(try Data(contentsOf: url) == bytes)
    }

    /// An added optional attribute costs no table rebuild: the table gets a column, rows stay
    /// where they are (their `rowid`s and the table's root page are unchanged).
    @Test func anAddedOptionalAttributeOnlyAddsAColumn() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.version1Store(upgradingTo: Self.entryV1WithMood, in: directory)
        func rootPage() throws -> Int64? {
            try SQLiteConnection(path: url.path).scalar("SELECT rootpage FROM sqlite_master WHERE name = 'ZENTRY'").int64Value
        }
        let before = try rootPage()

        try bundle.makeCurrent("Journal 2")
        let (container, error) = Self.container(try bundle.model(), at: url)
        #expect(error == nil)
        #expect(try rootPage() == before)
        let entries = try Self.entries(in: container.viewContext)
        #expect(entries.map { $0.value(forKey: "note") as? String } == ["note 0", "note 1", nil])
        #expect(entries.allSatisfy { $0.value(forKey: "mood") == nil })
    }

    /// Core Data migrates only when asked: `addPersistentStore` without the migration option
    /// refuses the store with 134100; with it but without inference, and no mapping model of
    /// the application's own, with 134140 (no mapping model); either way the store is left as it was.
    @Test func withoutTheOptionsTheStoreIsRefusedAndLeftAsItWas() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.version1Store(upgradingTo: Self.entryV2, in: directory)
        try bundle.makeCurrent("Journal 2")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try bundle.model())
        for (options, code): ([String: Any]?, Int) in [(nil, 134100), ([NSMigratePersistentStoresAutomaticallyOption: true], 134140),
                                                      ([NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                                                        OCDIncompatibleStorePolicyOption: IncompatibleStorePolicy.fail.rawValue], 134100)] {
            let error = try #require(throws: CocoaError.self) {
                try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
            }
            #expect(error.code.rawValue == code)
        }
        // With both options, as Core Data's lightweight migration is asked for by hand.
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(try Self.entries(in: context).count == 3)
    }

    /// A change inference cannot map is an error listing every such change; the store is left
    /// as it was, and the older version still opens it with all its data.
    @Test func whatInferenceCannotMapIsListedAndTheStoreIsLeftAlone() throws {
        let directory = TemporaryDirectory()
        // `note` from String to Date; a book's entries (one-to-many) become a single entry.
        let unmappable = Self.entryV1
            .replacingOccurrences(of: "<attribute name=\"note\" optional=\"YES\" attributeType=\"String\"/>",
                                  with: "<attribute name=\"note\" optional=\"YES\" attributeType=\"Date\"/>")
            .replacingOccurrences(of: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Entry\" inverseName=\"book\"",
                                  with: "<relationship name=\"entries\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"Entry\" inverseName=\"book\"")
        let (bundle, url) = try Self.version1Store(upgradingTo: unmappable, in: directory)
        let bytes = try Data(contentsOf: url)

        try bundle.makeCurrent("Journal 2")
        let (_, error) = Self.container(try bundle.model(), at: url)
        // As Core Data's: the add fails with 134140, the inference's 134190 underneath.
        let failure = try #require(error as? CocoaError)
        #expect(failure.code.rawValue == 134140)
        #expect((failure.userInfo[NSUnderlyingErrorKey] as? CocoaError)?.code.rawValue == 134190)
        #expect(failure.message.contains("attribute 'note' of entity 'Entry' changes type from String to Date"))
        #expect(failure.message.contains("relationship 'entries' of entity 'Book' changes from to-many with a to-one inverse to to-one"))
        // The first change, by entity name, in Core Data's keys.
        #expect(failure.userInfo["entity"] as? String == "Book")
        #expect(failure.userInfo["property"] as? String == "entries")
        #expect(try Data(contentsOf: url) == bytes)

        try Self.expectVersion1StillOpens(url, bundle)
    }

    /// Without the model the store was written with (in no version, and not kept in the store,
    /// as in stores Core Data wrote before it kept a model cache), nothing can be inferred:
    /// 134130 naming the store's entities and every version tried, and the store is untouched.
    @Test func aStoreFromAnUnknownModelIsMissingSourceModel() throws {
        let directory = TemporaryDirectory()
        let bundle = try ModelBundle(in: directory, versions: [("Journal", Self.entryV1), ("Journal 2", Self.entryV2)], current: "Journal 2")
        let url = directory.file("Other.sqlite")
        let other = NSManagedObjectModel()
        let note = NSEntityDescription(name: "Entry")
        note.properties = [NSAttributeDescription(name: "body", type: .binaryDataAttributeType)]
        other.entities = [note]
        let (writer, writeError) = Self.container(other, at: url)
        #expect(writeError == nil)
        _ = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: writer.viewContext)
        try writer.viewContext.save()
        try writer.persistentStoreCoordinator.remove(writer.persistentStoreCoordinator.persistentStores[0])
        try removeModelCache(ofStoreAt: url)
        let bytes = try Data(contentsOf: url)

        let (_, error) = Self.container(try bundle.model(), at: url)
        let failure = try #require(error as? CocoaError)
        #expect(failure.code.rawValue == 134130)
        #expect(failure.message.contains("Entry "))
        #expect(failure.message.contains("tried: the current version \"Journal 2\", \"Journal\""))
        #expect(try Data(contentsOf: url) == bytes)
    }

    /// A store written by a later release (version 2, which the earlier release's model file
    /// does not have) carries its model, but is not migrated back to version 1, which would drop
    /// its moods: 134130 naming both versions, the file untouched, and the later release still
    /// opens it. A store of an earlier version whose version left the model file still migrates
    /// through the model it carries.
    @Test func aStoreOfALaterVersionIsNotMigratedBack() throws {
        let directory = TemporaryDirectory()
        let later = try ModelBundle(in: directory, name: "Later", versions: [("Journal", Self.entryV1), ("Journal 2", Self.entryV1WithMood)],
                                    current: "Journal 2")
        let earlier = try ModelBundle(in: directory, name: "Earlier", versions: [("Journal", Self.entryV1)], current: "Journal")
        let url = directory.file("Journal.sqlite")
        do {
            let (container, error) = Self.container(try later.model(), at: url)
            #expect(error == nil)
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: container.viewContext)
            entry.setValue(Self.start, forKey: "time")
            entry.setValue("calm", forKey: "mood")
            // The application's own metadata, set without the store's keys, keeps them.
            let coordinator = container.persistentStoreCoordinator
            coordinator.setMetadata(["app": 1], for: coordinator.persistentStores[0])
            try container.viewContext.save()
            try coordinator.remove(coordinator.persistentStores[0])
        }
        let bytes = try Data(contentsOf: url)

        let (_, error) = Self.container(try earlier.model(), at: url)
        let failure = try #require(error as? CocoaError)
        #expect(failure.code.rawValue == 134130)
        #expect(failure.message.contains("written with version \"Journal 2\" of the model, which comes after this model's version \"Journal\""))
        #expect(try Data(contentsOf: url) == bytes)

        let (reopened, reopenError) = Self.container(try later.model(), at: url)
        #expect(reopenError == nil)
        #expect(try Self.entries(in: reopened.viewContext).map { $0.value(forKey: "mood") as? String } == ["calm"])

        // Forward: a version-1 store opened by a release whose file has only version 2.
        let onlyNext = try ModelBundle(in: directory, name: "Next", versions: [("Journal 2", Self.entryV1WithMood)], current: "Journal 2")
        let olderURL = directory.file("Older.sqlite")
        try Self.writeVersion1Store(at: olderURL, bundle: earlier)
        let (migrated, migrateError) = Self.container(try onlyNext.model(), at: olderURL)
        #expect(migrateError == nil)
        #expect(try Self.entries(in: migrated.viewContext).count == 3)
    }

    /// A new uniqueness constraint the rows break is 134111, and the store stays at version 1.
    @Test func aNewUniquenessConstraintTheRowsBreakFailsTheMigration() throws {
        let directory = TemporaryDirectory()
        let unique = Self.entryV1.replacingOccurrences(
            of: "<attribute name=\"name\" attributeType=\"String\"/>",
            with: "<attribute name=\"name\" attributeType=\"String\"/><uniquenessConstraints><uniquenessConstraint><constraint value=\"name\"/></uniquenessConstraint></uniquenessConstraints>")
        let (bundle, url) = try Self.version1Store(upgradingTo: unique, in: directory)
        do {
            let (container, _) = Self.container(try bundle.model(), at: url)
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: container.viewContext)
            tag.setValue("work", forKey: "name")
            try container.viewContext.save()
            try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        }
        try bundle.makeCurrent("Journal 2")
        let bytes = try Data(contentsOf: url)
        let (_, error) = Self.container(try bundle.model(), at: url)
        #expect((error as? CocoaError)?.code.rawValue == 134111)
        #expect(try Data(contentsOf: url) == bytes)
        try bundle.makeCurrent("Journal")
        let (older, olderError) = Self.container(try bundle.model(), at: url)
        #expect(olderError == nil)
        #expect(try older.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag")) == 3)
    }

    /// Relationship changes that could not keep every link are not inferred (134190), each
    /// named: a many-to-many whose other side becomes a to-one, and a to-many without inverse
    /// that gains a to-one inverse (a member in two lists would have to leave one).
    @Test func relationshipChangesThatWouldDropLinksAreNotInferred() throws {
        let directory = TemporaryDirectory()
        let tagsToOne = Self.entryV1.replacingOccurrences(
            of: "<relationship name=\"tags\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Tag\"",
            with: "<relationship name=\"tags\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"Tag\"")
        let withoutInverse = Self.entryV1(
            book: "",
            bookEntries: "<relationship name=\"entries\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Entry\"/>")
        let bundle = try ModelBundle(in: directory, versions: [("Journal", tagsToOne), ("Journal 2", Self.entryV1), ("Journal 3", withoutInverse)], current: "Journal 2")
        let v2 = try bundle.model()
        try bundle.makeCurrent("Journal")
        let v1 = try bundle.model()
        try bundle.makeCurrent("Journal 3")
        let v3 = try bundle.model()
        func failure(from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> CocoaError? {
            do { _ = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination); return nil }
            catch { return error as? CocoaError }
        }
        let manyToMany = try #require(failure(from: v2, to: v1))
        #expect(manyToMany.code.rawValue == 134190)
        #expect(manyToMany.message.contains("relationship 'entries' of entity 'Tag' changes from many-to-many to to-many with a to-one inverse"))
        let gainsInverse = try #require(failure(from: v3, to: v2))
        #expect(gainsInverse.message.contains("relationship 'entries' of entity 'Book' changes from to-many without inverse to to-many with a to-one inverse"))
        // The other way, each keeps its links, and is inferred.
        #expect(failure(from: v1, to: v2) == nil)
        #expect(failure(from: v2, to: v3) == nil)
    }

    @Test func anInferredMappingNamesEachEntitysMapping() throws {
        let directory = TemporaryDirectory()
        let bundle = try ModelBundle(in: directory, versions: [("Journal", Self.entryV1), ("Journal 2", Self.entryV2)], current: "Journal")
        let v1 = try bundle.model()
        try bundle.makeCurrent("Journal 2")
        let v2 = try bundle.model()
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let byName = mapping.entityMappingsByName
        #expect(byName["TagToTag"]?.mappingType == .copyEntityMappingType)
        #expect(byName["EntryToEntry"]?.mappingType == .transformEntityMappingType)
        #expect(byName["BookToJournal"]?.mappingType == .transformEntityMappingType)
        #expect(byName["AddPlace"]?.mappingType == .addEntityMappingType)
        #expect(byName["RemoveScratch"]?.mappingType == .removeEntityMappingType)
        let text = try #require(byName["EntryToEntry"]?.attributeMappings?.first { $0.name == "text" })
        #expect(text.valueExpression?.function == "valueForKey:")
        #expect(text.valueExpression?.description == "$source.note")
        #expect(byName["EntryToEntry"]?.attributeMappings?.first { $0.name == "mood" }?.valueExpression == nil)
    }
}
