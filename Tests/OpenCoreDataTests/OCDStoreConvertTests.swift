import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
import OpenCoreDataPostgres

/// `ocd store convert`: a store copied into a new store of another type, the source only read,
/// an existing destination refused, and a source that carries no model asking for `--model`.
@Suite struct OCDStoreConvertTests {
    /// A SQLite store of the test model (it carries its model), closed; and the model as a `.mom`.
    private func sqliteStore(in directory: TemporaryDirectory) throws -> (store: URL, model: URL) {
        let stack = try TestStack(.sqlite)
        let ada = stack.insert("Person", ["name": "Ada", "email": "ada@example.com", "balance": Decimal(string: "1.5")!])
        for name in ["Rex", "Ace"] { stack.insert("Pet", ["name": name, "owner": ada]) }
        let playlist = stack.insert("Playlist", ["title": "Mix"])
        for title in ["C", "A", "B"] { playlist.mutableOrderedSetValue(forKey: "songs").add(stack.insert("Song", ["title": title])) }
        try stack.context.save()
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        let store = directory.file("Source.sqlite")
        try FileManager.default.copyItem(at: stack.storeURL, to: store)
        let model = directory.file("Model.mom")
        try KeyedArchiveModelEncoder.archive(TestModel.make()).write(to: model)
        return (store, model)
    }

    private func songs(in url: URL, type: String) throws -> [String] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let playlist = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Playlist")).first)
        return (playlist.value(forKey: "songs") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String } ?? []
    }

    /// A SQLite store to a PostgreSQL database and back, the PostgreSQL store carrying its model;
    /// a database that already holds a store is refused and left as it was.
    @Test(.needsPostgres) func aStoreIsConvertedToPostgreSQLAndBack() throws {
        let directory = TemporaryDirectory()
        let (sqlite, _) = try sqliteStore(in: directory)
        let schema = try PostgresTestSchema()
        defer { schema.drop() }
        let toPostgres = try OCD.run(["store", "convert", "--from", sqlite.path, "--to", schema.url, "--type", "postgresql"])
        #expect(toPostgres.status == 0, "\(toPostgres.error)")
        #expect(toPostgres.output.hasPrefix("Converted 7 objects from the SQLite store \(sqlite.path) to the PostgreSQL store postgresql://"))
        #expect(try songs(in: URL(string: schema.url)!, type: OCDPostgreSQLStoreType) == ["C", "A", "B"])

        let again = try OCD.run(["store", "convert", "--from", sqlite.path, "--to", schema.url, "--type", "postgresql"])
        #expect(again.status == 1)
        #expect(again.error.contains("it is not empty"), "\(again.error)")
        #expect(try songs(in: URL(string: schema.url)!, type: OCDPostgreSQLStoreType) == ["C", "A", "B"])

        let back = directory.file("Back.sqlite")
        let toSQLite = try OCD.run(["store", "convert", "--from", schema.url, "--to", back.path, "--type", "sqlite"])
        #expect(toSQLite.status == 0, "\(toSQLite.error)")
        #expect(try songs(in: back, type: NSSQLiteStoreType) == ["C", "A", "B"])
    }

    @Test func aStoreIsConvertedFromTypeToTypeAndTheSourceIsOnlyRead() throws {
        let directory = TemporaryDirectory()
        let (sqlite, model) = try sqliteStore(in: directory)
        let sqliteBytes = try Data(contentsOf: sqlite)

        let binary = directory.file("Converted.ocdbin")
        let toBinary = try OCD.run(["store", "convert", "--from", sqlite.path, "--to", binary.path, "--type", "binary"])
        #expect(toBinary.status == 0, "\(toBinary.error)")
        #expect(toBinary.output.hasPrefix("Converted 7 objects from the SQLite store \(sqlite.path) to the Binary store \(binary.path) in "))
        #expect(try Data(contentsOf: sqlite) == sqliteBytes)
        #expect(try songs(in: binary, type: NSBinaryStoreType) == ["C", "A", "B"])

        // A binary store carries no model: the tool asks for one.
        let xml = directory.file("Converted.xml")
        let noModel = try OCD.run(["store", "convert", "--from", binary.path, "--to", xml.path, "--type", "xml"])
        #expect(noModel.status == 1)
        #expect(noModel.error.contains("is a Binary store, which carries no model: give the model with --model PATH"))
        let toXML = try OCD.run(["store", "convert", "--from", binary.path, "--to", xml.path, "--type", "xml", "--model", model.path])
        #expect(toXML.status == 0, "\(toXML.error)")
        #expect(try songs(in: xml, type: NSXMLStoreType) == ["C", "A", "B"])

        let back = directory.file("Back.sqlite")
        let toSQLite = try OCD.run(["store", "convert", "--from", xml.path, "--to", back.path, "--type", "sqlite", "--model", model.path])
        #expect(toSQLite.status == 0, "\(toSQLite.error)")
        #expect(try songs(in: back, type: NSSQLiteStoreType) == ["C", "A", "B"])
    }

    @Test func anExistingDestinationOrABadTypeIsRefused() throws {
        let directory = TemporaryDirectory()
        let (sqlite, _) = try sqliteStore(in: directory)
        let taken = directory.file("Taken.xml")
        try Data("mine".utf8).write(to: taken)
        let result = try OCD.run(["store", "convert", "--from", sqlite.path, "--to", taken.path, "--type", "xml"])
        #expect(result.status == 1)
        #expect(result.error.contains("a file is already there"))
        #expect(try Data(contentsOf: taken) == Data("mine".utf8))
        #expect(try OCD.run(["store", "convert", "--from", sqlite.path, "--to", taken.path, "--type", "csv"]).status == 2)
        #expect(try OCD.run(["store", "convert", "--from", sqlite.path, "--type", "xml"]).status == 2)
    }
}
