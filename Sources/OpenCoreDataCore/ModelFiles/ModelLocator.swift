import Foundation

/// Finds model files among the process's bundles, as Core Data looks for `<name>.momd` in the
/// main bundle. On Linux, SwiftPM copies a target's resources into a
/// `<Package>_<Target>.resources` folder beside the executable (and beside the test runner);
/// those folders are searched too, so a `.xcdatamodeld` declared as a resource is found without
/// compiling it.
enum ModelLocator {
    /// Model file extensions, in the order they are preferred for one name.
    static let extensions = ["momd", "mom", "xcdatamodeld", "xcdatamodel"]

    /// The folders searched for `bundles` (nil: the main bundle and every loaded bundle).
    static func searchFolders(in bundles: [Bundle]?) -> [URL] {
        var folders: [URL] = []
        for bundle in bundles ?? ([Bundle.main] + Bundle.allBundles) {
            for folder in [bundle.resourceURL, bundle.bundleURL].compactMap({ $0 }) where !folders.contains(folder) {
                folders.append(folder)
            }
        }
        // SwiftPM resource bundles beside the searched bundles.
        for folder in folders {
            let names = bundles == nil ? names(inApplicationFolder: folder) : names(in: folder)
            // Filtered before sorting: the folder can be as large as /usr/bin.
            for name in names.filter({ $0.hasSuffix(".resources") || $0.hasSuffix(".bundle") }).sorted() {
                let resources = folder.appendingPathComponent(name)
                if !folders.contains(resources) { folders.append(resources) }
            }
        }
        return folders
    }

    /// The files directly inside the folders searched for `bundles` and in `folders` whose
    /// extension is one of `extensions`, by extension: each list in folder order, then by name.
    /// Each folder is listed once. The application's own folders (`bundles` nil) are found and
    /// listed once per process (see `names(inApplicationFolder:)`); `folders` every time.
    static func files(withExtensions extensions: Set<String>, in bundles: [Bundle]?, folders: [URL]) -> [String: [URL]] {
        var listing: FileListing
        if bundles == nil {
            listing = applicationListing(withExtensions: extensions)
        } else {
            listing = FileListing(extensions: extensions)
            for folder in searchFolders(in: bundles) { listing.add(folder, names: names(in:)) }
        }
        for folder in folders { listing.add(folder, names: names(in:)) }
        return listing.found
    }

    /// The files of the application's folders (the main bundle, the loaded bundles and the
    /// SwiftPM resource bundles beside them) with `extensions`, found once per process.
    private static func applicationListing(withExtensions extensions: Set<String>) -> FileListing {
        if let listing = applicationListings.withLock({ $0[extensions] }) { return listing }
        var listing = FileListing(extensions: extensions)
        for folder in searchFolders(in: nil) { listing.add(folder, names: names(inApplicationFolder:)) }
        applicationListings.withLock { $0[extensions] = listing }
        return listing
    }

    private static let applicationListings = LockedState<[Set<String>: FileListing]>([:])

    /// Files with some extensions, gathered folder by folder.
    private struct FileListing {
        let suffixes: [String]
        private(set) var found: [String: [URL]] = [:]
        private var seen: Set<URL> = []
        private var listed: Set<String> = []

        init(extensions: Set<String>) {
            suffixes = extensions.map { ".\($0)" }
        }

        /// Adds the files of `folder` whose name `names` gives, unless the folder was listed.
        mutating func add(_ folder: URL, names: (URL) -> [String]) {
            guard listed.insert(StandardFilePath.of(folder)).inserted else { return }
            // Filtered before sorting: a program's folder (its "main bundle" on Linux) can be
            // /usr/bin, and every migration looks there.
            for name in names(folder).filter({ name in suffixes.contains { name.hasSuffix($0) } }).sorted() {
                let url = folder.appendingPathComponent(name).standardizedFileURL
                guard seen.insert(url).inserted else { continue }
                found[url.pathExtension, default: []].append(url)
            }
        }
    }

    /// The names of the files in `folder` (none when it cannot be listed).
    private static func names(in folder: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    }

    /// The names in a folder of the application's own bundles (the main bundle and the loaded
    /// ones), listed once per process: every migration looks there, and on Linux the main
    /// bundle is the executable's folder, which can be as large as /usr/bin. As Foundation's
    /// bundles on Apple's platforms cache what their folders hold, a file added to them while
    /// the application runs is not seen; nor, by `files(withExtensions:in:folders:)`, a bundle
    /// loaded after the first search.
    private static func names(inApplicationFolder folder: URL) -> [String] {
        let path = folder.path
        if let names = applicationFolderNames.withLock({ $0[path] }) { return names }
        let names = names(in: folder)
        applicationFolderNames.withLock { $0[path] = names }
        return names
    }

    private static let applicationFolderNames = LockedState<[String: [String]]>([:])

    /// The model file named `name` (any of `extensions`), or nil.
    static func url(forModelNamed name: String, in bundles: [Bundle]? = nil) -> URL? {
        for folder in searchFolders(in: bundles) {
            for fileExtension in extensions {
                let candidate = folder.appendingPathComponent("\(name).\(fileExtension)")
                if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }

    /// Every model file directly inside the searched folders, one per name.
    static func modelURLs(in bundles: [Bundle]?) -> [URL] {
        var byName: [String: URL] = [:]
        var order: [String] = []
        for folder in searchFolders(in: bundles) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.filter({ name in extensions.contains { name.hasSuffix(".\($0)") } }).sorted() {
                let url = folder.appendingPathComponent(name)
                guard let rank = extensions.firstIndex(of: url.pathExtension) else { continue }
                let base = url.deletingPathExtension().lastPathComponent
                if let existing = byName[base], extensions.firstIndex(of: existing.pathExtension)! <= rank { continue }
                if byName[base] == nil { order.append(base) }
                byName[base] = url
            }
        }
        return order.compactMap { byName[$0] }
    }
}

extension NSManagedObjectModel {
    /// One model holding the entities of every model found in `bundles` (nil: the main bundle
    /// and the loaded bundles, SwiftPM resource bundles included); nil when a model cannot be
    /// loaded or two models declare the same entity.
    public class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
        let urls = ModelLocator.modelURLs(in: bundles)
        let models = urls.compactMap { NSManagedObjectModel(contentsOf: $0) }
        guard models.count == urls.count else { return nil }
        return NSManagedObjectModel(merging: models)
    }

    /// The model a store was written with, found in `bundles` (nil: the main bundle and the
    /// loaded bundles) by the store's version hashes: among every version of every model there
    /// (a `.xcdatamodeld` or `.momd` gives all its versions), the first whose entity hashes are
    /// the store's; nil when none is.
    ///
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    /// let written = NSManagedObjectModel.mergedModel(from: nil, forStoreMetadata: metadata)
    /// ```
    /// Difference from Core Data: the versions of different model files are not merged with each
    /// other; the store's model must be one version of one model file.
    public class func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]) -> NSManagedObjectModel? {
        for url in ModelLocator.modelURLs(in: bundles) {
            guard let current = NSManagedObjectModel(contentsOf: url) else { continue }
            if current.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { return current }
            for version in ModelVersionCandidates(of: current).versions {
                guard let model = try? NSManagedObjectModel(validatingContentsOf: version.file) else { continue }
                if model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { return model }
            }
        }
        return nil
    }

    /// A model with the entities, configurations and fetch request templates of `models`, or nil
    /// when two of them declare the same entity name (or `models` is nil).
    ///
    /// ```swift
    /// let model = NSManagedObjectModel(byMerging: [NSManagedObjectModel(contentsOf: a)!, NSManagedObjectModel(contentsOf: b)!])
    /// ```
    /// Difference from Core Data: the entities move into the new model rather than being
    /// copied, so the models given must not be in use yet (not frozen) and are left empty.
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        guard let models, !models.contains(where: \.isFrozen) else { return nil }
        self.init(merging: models)
    }

    /// The model a store was written with, made of `models` (typically every version of an
    /// application's models): those whose entities of the store's names all have the store's
    /// version hashes — models of exactly the store's entities before the others, in the order
    /// given, none repeating an entity name taken already — merged as `init(byMerging:)` merges
    /// them, when together they hold every entity of the store; nil otherwise.
    ///
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    /// let written = NSManagedObjectModel(byMerging: [catalog, orders], forStoreMetadata: metadata)
    /// ```
    /// Difference from Core Data: whole models are merged, not entities picked from several
    /// versions; and, as in `init(byMerging:)`, the models merged must not be in use yet and are
    /// left empty (the others are left as they were).
    public convenience init?(byMerging models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
        guard let stored = VersionHashing.hashes(inMetadata: metadata), !stored.isEmpty else { return nil }
        func fits(_ model: NSManagedObjectModel) -> Bool {
            let named = model.entities.filter { stored[$0.name ?? ""] != nil }
            return !named.isEmpty && named.allSatisfy { stored[$0.name ?? ""] == $0.versionHash }
        }
        let candidates = models.filter(fits)
        let exact = candidates.filter { $0.entities.allSatisfy { stored[$0.name ?? ""] != nil } }
        var chosen: [NSManagedObjectModel] = []
        var names: Set<String> = []
        for model in exact + candidates where !chosen.contains(where: { $0 === model }) {
            let modelNames = model.entities.compactMap(\.name)
            guard names.isDisjoint(with: modelNames) else { continue }
            chosen.append(model)
            names.formUnion(modelNames)
        }
        // Checked before anything moves: models that do not fit leave the ones given intact.
        guard stored.keys.allSatisfy(names.contains), !chosen.contains(where: \.isFrozen) else { return nil }
        self.init(merging: chosen)
    }

    /// See `init(byMerging:)`.
    convenience init?(merging models: [NSManagedObjectModel]) {
        var names = Set<String>()
        for entity in models.flatMap(\.entities) {
            guard names.insert(entity.name ?? "").inserted else { return nil }
        }
        self.init()
        entities = models.flatMap(\.entities)
        var configurations: [String: [NSEntityDescription]] = [:]
        for model in models {
            for configuration in model.configurations {
                configurations[configuration, default: []] += model.entities(forConfigurationName: configuration) ?? []
            }
        }
        for (name, members) in configurations { setEntities(members, forConfigurationName: name) }
        for model in models {
            for (name, template) in model.fetchRequestTemplatesByName { setFetchRequestTemplate(template, forName: name) }
            versionIdentifiers.formUnion(model.versionIdentifiers)
        }
        // The entities now belong here: the models they came from are left empty.
        for model in models {
            let moved = model.entities
            model.entities = []
            for configuration in model.configurations { model.setEntities([], forConfigurationName: configuration) }
            for entity in moved { entity.managedObjectModel = self }
        }
    }
}
