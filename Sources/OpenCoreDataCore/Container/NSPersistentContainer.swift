import Foundation

/// A whole Core Data stack: a model, a coordinator, its stores and a main-queue context.
///
/// ```swift
/// let container = NSPersistentContainer(name: "Journal", managedObjectModel: model)
/// try await container.loadPersistentStores()
/// let context = container.viewContext
/// // … insert, fetch, change …
/// try context.saveIfChanged()
/// ```
/// By default the store is a SQLite file named after the container in `defaultDirectoryURL()`.
/// Failures are thrown (or passed to the completion handler) with their reason, never fatal.
open class NSPersistentContainer: NSObject, @unchecked Sendable {
    // @unchecked Sendable: descriptions are set up before loading; the coordinator and the
    // contexts are Sendable themselves.

    /// The container's name: it names the default store file.
    public let name: String
    /// The model.
    public let managedObjectModel: NSManagedObjectModel
    /// The coordinator of the container's stores.
    public let persistentStoreCoordinator: NSPersistentStoreCoordinator
    /// How `loadPersistentStores` opens the stores; one SQLite store by default.
    public var persistentStoreDescriptions: [NSPersistentStoreDescription]
    private let viewContextStorage: NSManagedObjectContext
    /// Why `init(name:)` found no model; reported by `loadPersistentStores`.
    private var modelLoadingError: Error?

    /// A container for the model named `name`, found among the process's bundles as
    /// `<name>.momd`, `.mom`, `.xcdatamodeld` or `.xcdatamodel` (SwiftPM resource bundles
    /// included; see `ModelLocator`).
    ///
    /// ```swift
    /// let container = NSPersistentContainer(name: "Journal")   // Journal.xcdatamodeld as a resource
    /// try await container.loadPersistentStores()
    /// ```
    /// As in Core Data, a missing or unreadable model does not stop the program here: the
    /// container gets an empty model, and `loadPersistentStores` reports the reason.
    public convenience init(name: String) {
        var model: NSManagedObjectModel?
        var failure: Error?
        if let url = ModelLocator.url(forModelNamed: name) {
            do { model = try NSManagedObjectModel(validatingContentsOf: url) } catch { failure = error }
        } else {
            let searched = ModelLocator.searchFolders(in: nil).map(\.path).joined(separator: ", ")
            failure = CoreDataError.make(.fileReadNoSuchFile, "No model named \(name) (.momd, .mom, .xcdatamodeld or .xcdatamodel) was found in \(searched)")
        }
        self.init(name: name, managedObjectModel: model ?? NSManagedObjectModel())
        modelLoadingError = failure
    }

    /// A container named `name` for `model`.
    public init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.name = name
        self.managedObjectModel = model
        self.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        self.persistentStoreDescriptions = [
            NSPersistentStoreDescription(url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))
        ]
        viewContextStorage = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        viewContextStorage.persistentStoreCoordinator = persistentStoreCoordinator
        viewContextStorage.name = "viewContext"
    }

    /// The main-queue context, attached to the coordinator.
    public var viewContext: NSManagedObjectContext { viewContextStorage }

    /// Where stores live by default: `$XDG_DATA_HOME` (or `~/.local/share`) on Linux, Application
    /// Support on Apple systems. The directory is created if missing.
    open class func defaultDirectoryURL() -> URL {
        #if os(Linux) || os(Android) || os(FreeBSD)
            let directory = dataDirectory(environment: ProcessInfo.processInfo.environment,
                                          home: FileManager.default.homeDirectoryForCurrentUser)
        #else
            let directory = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        #endif
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The XDG data directory: `$XDG_DATA_HOME` when set to an absolute path (the XDG Base
    /// Directory specification says to ignore a relative one), else `~/.local/share`.
    static func dataDirectory(environment: [String: String], home: URL) -> URL {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true)
        }
        return home.appendingPathComponent(".local/share", isDirectory: true)
    }

    /// Adds every store not yet loaded, calling `block` once per store with its description and
    /// the error, if any. Stores whose description says `shouldAddStoreAsynchronously` are added
    /// on a background queue, and `block` is called there.
    ///
    /// As in Apple's SDK, `block` is not `@Sendable`: the common synchronous form can record the
    /// error in a local variable.
    ///
    /// ```swift
    /// var loadError: Error?
    /// container.loadPersistentStores { _, error in loadError = error }
    /// ```
    open func loadPersistentStores(completionHandler block: @escaping (NSPersistentStoreDescription, Error?) -> Void) {
        for description in persistentStoreDescriptions {
            if description.shouldAddStoreAsynchronously {
                let handler = StoreAddedHandler(block: block)
                DispatchQueue.global().async { handler.block(description, self.load(description)) }
            } else {
                block(description, load(description))
            }
        }
    }

    /// Adds every store not yet loaded, off the calling thread; throws the first failure.
    public func loadPersistentStores() async throws {
        for description in persistentStoreDescriptions {
            let error: Error? = await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: self.load(description)) }
            }
            if let error { throw error }
        }
    }

    private func load(_ description: NSPersistentStoreDescription) -> Error? {
        if let modelLoadingError { return modelLoadingError }
        if let url = description.url, description.type != NSInMemoryStoreType,
           persistentStoreCoordinator.persistentStore(for: url) != nil {
            return nil
        }
        do {
            try persistentStoreCoordinator.addPersistentStore(ofType: description.type, configurationName: description.configuration,
                                                              at: description.url, options: try storeOptions(for: description))
            return nil
        } catch {
            return error
        }
    }

    /// The options the store of `description` is added with; a kind of container may check the
    /// description first (an error stops that store from being added) or add options of its own
    /// (`NSPersistentCloudKitContainer`). The description itself is not changed: stores may be
    /// added on other threads.
    func storeOptions(for description: NSPersistentStoreDescription) throws -> [AnyHashable: Any] {
        description.storeOptions
    }

    /// A new private-queue context attached to the coordinator.
    open func newBackgroundContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on a new private-queue context.
    open func performBackgroundTask(_ block: @escaping (NSManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` on a new private-queue context and returns its result.
    public func performBackgroundTask<T: Sendable>(_ block: @escaping @Sendable (NSManagedObjectContext) throws -> T) async throws -> T {
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }
}
