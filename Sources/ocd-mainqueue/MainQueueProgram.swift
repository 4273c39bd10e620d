import Dispatch
import Foundation
import OpenCoreData

/// `ocd-mainqueue`: a program built like a server — its main is `async`, so its main thread is
/// in Swift concurrency and no run loop turns — that uses a main-queue context the way an app
/// uses its view context. `MainQueueProgramTests` starts it and reads what it prints.
///
///     ocd-mainqueue async STORE   the main actor awaits while a background context saves
///     ocd-mainqueue busy STORE    the main queue is kept busy (blocked) while it saves
@main
struct MainQueueProgram {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count == 2, ["async", "busy"].contains(arguments[0]) else {
            FileHandle.standardError.write(Data("usage: ocd-mainqueue async|busy STORE\n".utf8))
            exit(2)
        }
        do {
            let stack = try Stack(url: URL(fileURLWithPath: arguments[1]))
            if arguments[0] == "async" { try await stack.awaitingMain() } else { try stack.busyMain() }
        } catch {
            FileHandle.standardError.write(Data("ocd-mainqueue: \(error)\n".utf8))
            exit(1)
        }
    }
}

/// A store with one note, a main-queue view context that merges automatically, and a way to
/// change the note from a background context.
struct Stack: @unchecked Sendable {
    // @unchecked Sendable: the view context is only used on the main queue, the background
    // context only inside its own `perform` blocks, and the coordinator synchronises itself.
    let coordinator: NSPersistentStoreCoordinator
    let view: NSManagedObjectContext
    let noteID: NSManagedObjectID

    init(url: URL) throws {
        let note = NSEntityDescription(name: "Note")
        note.properties = [NSAttributeDescription(name: "text", type: .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [note]
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        view = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        view.persistentStoreCoordinator = coordinator
        view.automaticallyMergesChangesFromParent = true
        let object = NSEntityDescription.insertNewObject(forEntityName: "Note", into: view)
        object.setValue("v1", forKey: "text")
        try view.save()
        noteID = object.objectID
    }

    /// Changes the note in a background context and saves, returning when it has saved.
    func saveInBackground(_ text: String) throws {
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = coordinator
        try background.performAndWait {
            try background.existingObject(with: noteID).setValue(text, forKey: "text")
            try background.save()
        }
    }

    /// The note's text as the view context shows it (its registered object, not a refetch).
    func viewText() -> String {
        view.object(with: noteID).value(forKey: "text") as? String ?? "nil"
    }

    /// The main actor awaits while another thread saves: the merge runs on the main queue.
    func awaitingMain() async throws {
        let view = view
        let note = view.object(with: noteID)
        _ = note.value(forKey: "text")  // realized, holding "v1"
        try await Task.detached { try self.saveInBackground("v2") }.value
        try await Task.sleep(nanoseconds: 200_000_000)
        print("async: merged \(note.value(forKey: "text") as? String ?? "nil")")
        // performAndWait from another thread reaches the main queue while the main actor awaits.
        let seen = await Task.detached { view.performAndWait { self.viewText() } }.value
        print("async: performAndWait from another thread \(seen)")
        // And from a block of the main queue (on whatever thread runs it), it runs in place.
        let inPlace = await MainActor.run { view.performAndWait { self.viewText() } }
        print("async: performAndWait on the main queue \(inPlace)")
        // A child of the view context, used synchronously from a main-queue block: its reads
        // reach the view context in place, the thread holding the main queue.
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = view
        let seenByChild = try await MainActor.run {
            try child.performAndWait { try child.existingObject(with: self.noteID).value(forKey: "text") as? String ?? "nil" }
        }
        print("async: a child in a main-queue block \(seenByChild)")
    }

    /// The main queue stays blocked while another thread saves: nothing runs the queued merge,
    /// so the view context merges when it is next used.
    func busyMain() throws {
        let note = view.object(with: noteID)
        _ = note.value(forKey: "text")
        let saved = DispatchSemaphore(value: 0)
        let stack = self
        DispatchQueue.global().async {
            try? stack.saveInBackground("v2")
            saved.signal()
        }
        saved.wait()  // the main queue is blocked: the merge block queued on it cannot run
        print("busy: before use \(note.value(forKey: "text") as? String ?? "nil")")
        let count = try view.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note"))
        print("busy: after a count of \(count) \(note.value(forKey: "text") as? String ?? "nil")")
    }
}
