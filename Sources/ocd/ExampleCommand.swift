import Foundation
import OpenCoreData

/// `ocd example`: the first thing a newcomer runs. Every step prints what it did.
@MainActor
enum ExampleCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        var storeURL: URL?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--store":
                guard let path = remaining.popFirst() else { return fail("--store needs a path") }
                storeURL = URL(fileURLWithPath: path)
            default:
                return fail("unknown option '\(argument)'")
            }
        }
        let url = storeURL ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("ocd-example-\(UUID().uuidString)").appendingPathComponent("Journal.sqlite")
        do {
            try await walkThrough(storeAt: url)
            return 0
        } catch {
            return fail((error as NSError).localizedDescription)
        }
    }

    private static func walkThrough(storeAt url: URL) async throws {
        let model = ExampleModel.make()
        step(1, "Open a container named Journal with a SQLite store at \(url.path)")
        var container = try await openContainer(model: model, url: url)
        var context = container.viewContext

        step(2, "Insert five entries at two places and save")
        let home = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
        home.setValue("Home", forKey: "name")
        let cafe = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
        cafe.setValue("Café", forKey: "name")
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        for (index, age) in [25, 31, 42, 38, 19].enumerated() {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
            entry.setValue(age, forKey: "age")
            entry.setValue(start.addingTimeInterval(Double(index) * 3600), forKey: "time")
            entry.setValue(index.isMultiple(of: 2) ? "tea" : nil, forKey: "note")
            entry.setValue(index < 3 ? home : cafe, forKey: "place")
        }
        print("   before save, Home's ID is temporary: \(home.objectID.uriRepresentation().absoluteString)")
        try context.save()
        print("   saved; Home's ID is now permanent:  \(home.objectID.uriRepresentation().absoluteString)")
        print("   Home has \((home.value(forKey: "entries") as? Set<NSManagedObject>)?.count ?? 0) entries (inverse kept by the context)")

        step(3, "Close the container and open it again: what follows is read from disk")
        for store in container.persistentStoreCoordinator.persistentStores {
            try container.persistentStoreCoordinator.remove(store)
        }
        container = try await openContainer(model: model, url: url)
        context = container.viewContext

        step(4, "Fetch entries with age > 30, newest first")
        let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
        request.predicate = NSPredicate(format: "age > %d", 30)
        request.sortDescriptors = [NSSortDescriptor(key: "time", ascending: false)]
        let found = try context.fetch(request)
        for entry in found { print("   " + describe(entry)) }

        step(5, "Update: the newest of them gets a year older, then save")
        if let newest = found.first {
            newest.setValue((newest.value(forKey: "age") as? Int ?? 0) + 1, forKey: "age")
            print("   changed values: \(newest.changedValues().mapValues { "\($0)" })")
            try context.save()
            print("   " + describe(newest))
        }

        step(6, "Delete the place Café: its entries go with it (cascade), then save")
        let places = NSFetchRequest<NSManagedObject>(entityName: "Place")
        places.predicate = NSPredicate(format: "name == %@", "Café")
        for place in try context.fetch(places) { context.delete(place) }
        context.processPendingChanges()
        print("   marked for deletion: \(context.deletedObjects.count) objects (1 place + its entries)")
        try context.save()
        let remaining = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Entry"))
        print("   entries left: \(remaining)")

        step(7, "Saving again with nothing changed does nothing")
        print("   saveIfChanged() saved something: \(try context.saveIfChanged())")
        print("\nDone. The store is at \(url.path)")
    }

    private static func openContainer(model: NSManagedObjectModel, url: URL) async throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Journal", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        try await container.loadPersistentStores()
        return container
    }

    private static func describe(_ entry: NSManagedObject) -> String {
        let age = entry.value(forKey: "age") as? Int ?? 0
        let time = (entry.value(forKey: "time") as? Date).map { ISO8601DateFormatter().string(from: $0) } ?? "?"
        let place = (entry.value(forKey: "place") as? NSManagedObject)?.value(forKey: "name") as? String ?? "nowhere"
        let note = entry.value(forKey: "note") as? String ?? "-"
        return "Entry age \(age) at \(time) in \(place), note: \(note)"
    }

    private static func step(_ number: Int, _ text: String) {
        print("\n\(number). \(text)")
    }

    private static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("ocd example: \(message)\n".utf8))
        return 1
    }
}
