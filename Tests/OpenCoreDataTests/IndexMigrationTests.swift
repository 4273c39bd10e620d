import Foundation
import Testing
import OCDSQLite
import OpenCoreData

/// Lightweight migration of what a model says about its tables beyond columns: fetch indexes and
/// uniqueness constraints added and removed, and to-many relationships becoming ordered or
/// unordered (Apple's lightweight migration guide lists "changing a non-ordered to-many to
/// ordered, and vice-versa").
@Suite struct IndexMigrationTests {
    /// `Entry` with a time and stars, `Tag` with a name, many-to-many between them.
    static func model(entryExtras: String = "", tagExtras: String = "") -> String {
        """
        <entity name="Entry" representedClassName="Entry" syncable="YES">
            <attribute name="time" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="stars" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="entries" inverseEntity="Tag"/>
            \(entryExtras)
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="entries" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Entry" inverseName="tags" inverseEntity="Entry"/>
            \(tagExtras)
        </entity>
        """
    }

    static let byTime = #"<fetchIndex name="byTime"><fetchIndexElement property="time" type="Binary" order="ascending"/></fetchIndex>"#
    static let byStars = #"<fetchIndex name="byStars"><fetchIndexElement property="stars" type="Binary" order="descending"/></fetchIndex>"#
    static let uniqueName = #"<uniquenessConstraints><uniquenessConstraint><constraint value="name"/></uniquenessConstraint></uniquenessConstraints>"#
    static let uniqueTime = #"<uniquenessConstraints><uniquenessConstraint><constraint value="time"/></uniquenessConstraint></uniquenessConstraints>"#

    static let start = Date(timeIntervalSinceReferenceDate: 700_000_000)

    static func indexNames(at url: URL) throws -> Set<String> {
        Set(try SQLiteConnection(path: url.path)
            .rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").compactMap { $0[0].stringValue })
    }

    /// Version 1's store: three entries at distinct times, two uniquely named tags.
    static func writeStore(at url: URL, bundle: ModelBundle) throws {
        let (container, error) = LightweightMigrationTests.container(try bundle.model(), at: url)
        #expect(error == nil)
        let context = container.viewContext
        let tags = ["work", "home"].map { name in
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue(name, forKey: "name")
            return tag
        }
        for index in 0..<3 {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
            entry.setValue(start.addingTimeInterval(Double(index)), forKey: "time")
            entry.setValue(NSNumber(value: Int16(index)), forKey: "stars")
            entry.setValue(Set(tags.prefix(index)), forKey: "tags")
        }
        try context.save()
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
    }

    /// The next version drops a fetch index and a uniqueness constraint and adds one of each
    /// that the rows satisfy: the store's indexes follow, the rows stay, the removed constraint
    /// no longer binds and the added one does (133021).
    @Test func indexesAndUniquenessConstraintsFollowTheNewModel() throws {
        let directory = TemporaryDirectory()
        let bundle = try ModelBundle(in: directory, versions: [
            ("Songs", Self.model(entryExtras: Self.byTime, tagExtras: Self.uniqueName)),
            ("Songs 2", Self.model(entryExtras: Self.byStars + Self.uniqueTime)),
        ], current: "Songs")
        let url = directory.file("Songs.sqlite")
        try Self.writeStore(at: url, bundle: bundle)
        let before = try Self.indexNames(at: url)
        #expect(before.isSuperset(of: ["Z_Entry_byTime", "Z_Tag_UNIQUE_name"]))

        try bundle.makeCurrent("Songs 2")
        let (container, error) = LightweightMigrationTests.container(try bundle.model(), at: url)
        #expect(error == nil)
        let after = try Self.indexNames(at: url)
        #expect(after.isDisjoint(with: ["Z_Entry_byTime", "Z_Tag_UNIQUE_name"]))
        #expect(after.isSuperset(of: ["Z_Entry_byStars", "Z_Entry_UNIQUE_time"]))
        let context = container.viewContext
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Entry")) == 3)
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag")) == 2)

        // The constraint version 2 removed no longer binds.
        NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context).setValue("work", forKey: "name")
        try context.save()
        // The one it added does.
        let twin = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
        twin.setValue(Self.start, forKey: "time")
        let failure = #expect(throws: (any Error).self) { try context.save() }
        #expect((failure as? CocoaError)?.code.rawValue == 133021)
    }

    /// A to-many with a to-one inverse becomes ordered, then unordered again, and a many-to-many
    /// does the same: every link is kept each time, and a new ordered member goes last.
    @Test(arguments: [false, true])
    func aToManyBecomesOrderedAndUnorderedWithItsLinks(manyToMany: Bool) throws {
        let directory = TemporaryDirectory()
        func version(ordered: Bool) -> String {
            let inverse = manyToMany
                ? #"<relationship name="lists" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="List" inverseName="songs" inverseEntity="List"/>"#
                : #"<relationship name="lists" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="List" inverseName="songs" inverseEntity="List"/>"#
            return """
                <entity name="List" representedClassName="List" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="songs" optional="YES" toMany="YES" \(ordered ? #"ordered="YES" "# : "")deletionRule="Nullify" destinationEntity="Song" inverseName="lists" inverseEntity="Song"/>
                </entity>
                <entity name="Song" representedClassName="Song" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    \(inverse)
                </entity>
                """
        }
        let bundle = try ModelBundle(in: directory, name: "Lists", versions: [
            ("Lists", version(ordered: false)), ("Lists 2", version(ordered: true)), ("Lists 3", version(ordered: false)),
        ], current: "Lists")
        let url = directory.file("Lists.sqlite")
        do {
            let (container, error) = LightweightMigrationTests.container(try bundle.model(), at: url)
            #expect(error == nil)
            let context = container.viewContext
            let list = NSEntityDescription.insertNewObject(forEntityName: "List", into: context)
            list.setValue("mix", forKey: "name")
            let songs = ["a", "b", "c"].map { title in
                let song = NSEntityDescription.insertNewObject(forEntityName: "Song", into: context)
                song.setValue(title, forKey: "title")
                return song
            }
            list.setValue(Set(songs), forKey: "songs")
            try context.save()
            try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        }
        func list(in context: NSManagedObjectContext) throws -> NSManagedObject {
            try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "List")).first)
        }

        try bundle.makeCurrent("Lists 2")
        do {
            let (container, error) = LightweightMigrationTests.container(try bundle.model(), at: url)
            #expect(error == nil)
            let context = container.viewContext
            let ordered = try #require(try list(in: context).value(forKey: "songs") as? NSOrderedSet)
            #expect(Set(ordered.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String }) == ["a", "b", "c"])
            let song = NSEntityDescription.insertNewObject(forEntityName: "Song", into: context)
            song.setValue("d", forKey: "title")
            try list(in: context).mutableOrderedSetValue(forKey: "songs").add(song)
            try context.save()
            try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        }
        do {
            let (container, _) = LightweightMigrationTests.container(try bundle.model(), at: url)
            let ordered = try #require(try list(in: container.viewContext).value(forKey: "songs") as? NSOrderedSet)
            #expect((ordered.lastObject as? NSManagedObject)?.value(forKey: "title") as? String == "d")
            try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
        }

        try bundle.makeCurrent("Lists 3")
        let (container, error) = LightweightMigrationTests.container(try bundle.model(), at: url)
        #expect(error == nil)
        let songs = try #require(try list(in: container.viewContext).value(forKey: "songs") as? Set<NSManagedObject>)
        #expect(Set(songs.compactMap { $0.value(forKey: "title") as? String }) == ["a", "b", "c", "d"])
    }
}
