import Foundation
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import OpenCoreDataPostgres
import OCDSQLite

/// A fresh directory per test, removed when the test's value goes away.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// The store types every shared store test runs against.
enum StoreKind: String, CaseIterable, CustomStringConvertible, Sendable {
    /// `json` is a test-only `NSIncrementalStore` over a JSON file (`JSONFileStore`); `atomic` a
    /// test-only `NSAtomicStore` over a JSON file (`JSONAtomicStore`).
    /// `postgres` is the PostgreSQL store, in a schema of its own on the test server
    /// (`PostgresServer`); it joins when there is a server (always under CI).
    case sqlite, inMemory, json, atomic, binary, xml, postgres

    /// The built-in stores, which most suites run on.
    static var allCases: [StoreKind] { [.sqlite, .inMemory] + (PostgresServer.isRequired ? [.postgres] : []) }
    /// Every store, a store of one's own among them: what the shared store behaviour suite runs on.
    static var everyStore: [StoreKind] {
        [.sqlite, .inMemory, .json, .atomic, .binary, .xml] + (PostgresServer.isRequired ? [.postgres] : [])
    }

    var type: String {
        switch self {
        case .sqlite: NSSQLiteStoreType
        case .inMemory: NSInMemoryStoreType
        case .json: JSONFileStore.plainType
        case .atomic: JSONAtomicStore.type
        case .binary: NSBinaryStoreType
        case .xml: NSXMLStoreType
        case .postgres: OCDPostgreSQLStoreType
        }
    }
    /// Whether the store keeps its objects when it is closed and opened again.
    var persists: Bool { self != .inMemory }
    var description: String { rawValue }
}

/// A model for tests: people with pets (one-to-many, cascade), a uniqueness constraint,
/// validation rules, an ordered relationship, a many-to-many relationship and an inheritance tree.
enum TestModel {
    static func make() -> NSManagedObjectModel {
        let person = NSEntityDescription(name: "Person")
        let name = NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false)
        let age = NSAttributeDescription(name: "age", type: .integer64AttributeType, defaultValue: 0)
        age.minValue = 0
        age.maxValue = 150
        let email = NSAttributeDescription(name: "email", type: .stringAttributeType)
        email.regularExpression = "[^@]+@[^@]+"
        let born = NSAttributeDescription(name: "born", type: .dateAttributeType)
        let height = NSAttributeDescription(name: "height", type: .doubleAttributeType)
        let active = NSAttributeDescription(name: "active", type: .booleanAttributeType, defaultValue: true)
        let id = NSAttributeDescription(name: "id", type: .UUIDAttributeType)
        let website = NSAttributeDescription(name: "website", type: .URIAttributeType)
        let photo = NSAttributeDescription(name: "photo", type: .binaryDataAttributeType)
        let nickname = NSAttributeDescription(name: "nickname", type: .stringAttributeType)
        nickname.isTransient = true
        let balance = NSAttributeDescription(name: "balance", type: .decimalAttributeType)
        let small = NSAttributeDescription(name: "small", type: .integer16AttributeType)
        let tags = NSAttributeDescription(name: "tags", type: .transformableAttributeType)

        let pet = NSEntityDescription(name: "Pet")
        let petName = NSAttributeDescription(name: "name", type: .stringAttributeType)
        let weight = NSAttributeDescription(name: "weight", type: .doubleAttributeType, defaultValue: 1.0)

        let pets = NSRelationshipDescription(name: "pets", destination: pet, toMany: true, deleteRule: .cascadeDeleteRule)
        let owner = NSRelationshipDescription(name: "owner", destination: person)
        pets.inverseRelationship = owner
        owner.inverseRelationship = pets

        let club = NSEntityDescription(name: "Club")
        let clubName = NSAttributeDescription(name: "name", type: .stringAttributeType)
        let members = NSRelationshipDescription(name: "members", destination: person, toMany: true)
        let clubs = NSRelationshipDescription(name: "clubs", destination: club, toMany: true)
        members.inverseRelationship = clubs
        clubs.inverseRelationship = members

        let playlist = NSEntityDescription(name: "Playlist")
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        let song = NSEntityDescription(name: "Song")
        let songTitle = NSAttributeDescription(name: "title", type: .stringAttributeType)
        let songs = NSRelationshipDescription(name: "songs", destination: song, toMany: true, deleteRule: .denyDeleteRule, ordered: true)
        let playlistOfSong = NSRelationshipDescription(name: "playlist", destination: playlist)
        songs.inverseRelationship = playlistOfSong
        playlistOfSong.inverseRelationship = songs

        let animal = NSEntityDescription(name: "Animal")
        animal.isAbstract = true
        let legs = NSAttributeDescription(name: "legs", type: .integer16AttributeType, defaultValue: 4)
        let dog = NSEntityDescription(name: "Dog")
        let breed = NSAttributeDescription(name: "breed", type: .stringAttributeType)
        let bird = NSEntityDescription(name: "Bird")
        let wingspan = NSAttributeDescription(name: "wingspan", type: .doubleAttributeType)
        animal.properties = [legs]
        dog.properties = [breed]
        bird.properties = [wingspan]
        animal.subentities = [dog, bird]

        person.properties = [name, age, email, born, height, active, id, website, photo, nickname, balance, small, tags, pets, clubs]
        person.uniquenessConstraints = [["email"]]
        pet.properties = [petName, weight, owner]
        club.properties = [clubName, members]
        playlist.properties = [title, songs]
        song.properties = [songTitle, playlistOfSong]

        let model = NSManagedObjectModel()
        model.entities = [person, pet, club, playlist, song, animal, dog, bird]
        return model
    }
}

/// A stack over one store, reopened on demand, for round trips through a real store.
final class TestStack: @unchecked Sendable {
    let kind: StoreKind
    let model: NSManagedObjectModel
    let directory = TemporaryDirectory()
    /// The PostgreSQL store's schema, dropped with the stack.
    private let postgresSchema: PostgresTestSchema?
    private(set) var coordinator: NSPersistentStoreCoordinator
    private(set) var context: NSManagedObjectContext

    init(_ kind: StoreKind, model: NSManagedObjectModel = TestModel.make()) throws {
        self.kind = kind
        self.model = model
        postgresSchema = kind == .postgres ? try PostgresTestSchema() : nil
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        try open()
    }

    var storeURL: URL {
        switch kind {
        case .json, .atomic: directory.file("Test.json")
        case .binary: directory.file("Test.ocdbin")
        case .xml: directory.file("Test.xml")
        case .postgres: URL(string: postgresSchema!.url)!
        default: directory.file("Test.sqlite")
        }
    }

    private func open() throws {
        if kind == .json { JSONFileStore.register() }
        if kind == .atomic { JSONAtomicStore.register() }
        try coordinator.addPersistentStore(ofType: kind.type, configurationName: nil, at: kind.persists ? storeURL : nil)
        context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    deinit {
        guard let postgresSchema else { return }
        for store in coordinator.persistentStores { try? coordinator.remove(store) }
        postgresSchema.drop()
    }

    /// A second context on the same coordinator.
    func newContext() -> NSManagedObjectContext {
        let other = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        other.persistentStoreCoordinator = coordinator
        return other
    }

    /// Closes the store and opens it again with a new coordinator and context, so that what
    /// follows reads what is on disk. For the in-memory store, only the context is new.
    func reopen() throws {
        guard kind.persists else {
            context = newContext()
            return
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try open()
    }

    @discardableResult
    func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    func fetch(_ entity: String, _ predicate: NSPredicate? = nil, sortedBy key: String? = nil,
               in context: NSManagedObjectContext? = nil) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = predicate
        if let key { request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)] }
        return try (context ?? self.context).fetch(request)
    }
}

extension Error {
    var code: Int { (self as NSError).code }
    var userInfo: [String: Any] { (self as NSError).userInfo }
    var message: String { (self as NSError).localizedDescription }
}

// MARK: Helpers for behaviour tests

extension TestStack {
    /// How many objects of `entity` the store holds, counted through a fresh context on the same
    /// coordinator, so that unsaved changes of `context` do not count.
    func storedCount(_ entity: String) throws -> Int {
        try newContext().count(for: NSFetchRequest<NSManagedObject>(entityName: entity))
    }

    /// The values of `key` of every stored object of `entity`, sorted, read through a fresh context.
    func storedStrings(_ entity: String, _ key: String = "name") throws -> [String] {
        // The context outlives the reading: objects of a store of one's own come as faults,
        // which fire through their context.
        let context = newContext()
        return try withExtendedLifetime(context) {
            try fetch(entity, in: context).compactMap { $0.value(forKey: key) as? String }.sorted()
        }
    }

    /// The SQLite store's connection (nil for the in-memory store).
    var sqliteConnection: OCDSQLite.SQLiteConnection? {
        (coordinator.persistentStores.first as? SQLiteStore)?.connection
    }

    /// Starts recording every SQL statement the SQLite store runs; nil for the in-memory store.
    func recordSQL() -> SQLLog? {
        guard let store = coordinator.persistentStores.first as? SQLiteStore else { return nil }
        let log = SQLLog()
        store.traceSQL { log.append($0) }
        return log
    }
}

/// The `key` values of `objects` as sorted strings.
func strings(_ objects: some Sequence<NSManagedObject>, _ key: String = "name") -> [String] {
    objects.compactMap { $0.value(forKey: key) as? String }.sorted()
}

/// The members of a to-many relationship, read through `value(forKey:)`.
func members(_ object: NSManagedObject, _ key: String) -> Set<NSManagedObject> {
    switch object.value(forKey: key) {
    case let set as Set<NSManagedObject>: set
    case let ordered as NSOrderedSet: Set(ordered.array.compactMap { $0 as? NSManagedObject })
    default: []
    }
}

/// The members of an ordered to-many relationship, in order.
func orderedMembers(_ object: NSManagedObject, _ key: String) -> [NSManagedObject] {
    (object.value(forKey: key) as? NSOrderedSet)?.array.compactMap { $0 as? NSManagedObject } ?? []
}

/// SQL statements seen by a trace.
final class SQLLog: @unchecked Sendable {
    // @unchecked Sendable: `statements` is guarded by `lock`.
    private let lock = NSLock()
    private var statements: [String] = []
    func append(_ sql: String) { lock.withLock { statements.append(sql) } }
    var all: [String] { lock.withLock { statements } }
    func clear() { lock.withLock { statements = [] } }
}

/// Records the notifications named `name` posted by one object (a context), so that tests
/// running in parallel don't see each other's notifications.
final class NotificationRecorder: @unchecked Sendable {
    // @unchecked Sendable: `recorded` is guarded by `lock`; the token is set once in init.
    private let lock = NSLock()
    private var recorded: [Notification] = []
    private var token: NSObjectProtocol?

    init(_ name: Notification.Name, object: AnyObject) {
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] notification in
            guard let self else { return }
            self.lock.withLock { self.recorded.append(notification) }
        }
    }

    deinit { if let token { NotificationCenter.default.removeObserver(token) } }

    var notifications: [Notification] { lock.withLock { recorded } }

    /// The managed objects under `key` in the userInfo of notification `index`.
    func objects(_ key: String, at index: Int) -> Set<NSManagedObject> {
        let list = notifications
        guard index < list.count else { return [] }
        return list[index].userInfo?[key] as? Set<NSManagedObject> ?? []
    }
}

/// A value that can be written from another thread and read once the writer is done.
final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is guarded by `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
    /// As `Mutex.withLock`. Tests use this box rather than `Mutex`, whose futex on Linux
    /// ThreadSanitizer cannot see, so that it reports no race where there is none.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result { try lock.withLock { try body(&stored) } }
}

/// Empties a SQLite store's model cache (`Z_MODELCACHE`) with plain SQL, leaving it as Core Data
/// wrote stores before it kept one (framework versions before 1044).
func removeModelCache(ofStoreAt url: URL) throws {
    let connection = try SQLiteConnection(path: url.path, configuration: SQLiteConnection.Configuration())
    try connection.execute("DELETE FROM Z_MODELCACHE")
}
