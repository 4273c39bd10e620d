import Foundation

/// One version of a model, named for a stage of a staged migration by the model itself, its
/// file, its name in a bundle or its entities' version hashes, and by its `versionChecksum`.
///
/// ```swift
/// let v1 = NSManagedObjectModelReference(name: "Notes", in: .module,
///                                        versionChecksum: "OcE8L8XxVX/G+zRQ2cbYPP91smjL3tynDfRzfdDAPnU=")
/// let v2 = NSManagedObjectModelReference(model: notesV2, versionChecksum: notesV2.versionChecksum)
/// let stage = NSCustomMigrationStage(migratingFrom: v1, to: v2)
/// ```
/// The model is found when the migration needs it: among the versions of the file (a
/// `.xcdatamodeld` or `.momd` gives all of its versions), the one whose `versionChecksum` is the
/// checksum given. A model that cannot be found or loaded, or whose checksum differs, fails the
/// migration with `NSManagedObjectModelReferenceNotFoundError` (134504), naming what was looked
/// for and what was found.
///
/// Differences from Apple: `resolvedModel` of a reference that cannot be resolved is an empty
/// model rather than a crash; the migration reports the reason. A model whose version hashes
/// OpenCoreData cannot reproduce exactly (derived attributes) is accepted by a reference to its
/// single file without the checksum check.
public final class NSManagedObjectModelReference: NSObject, @unchecked Sendable {
    // @unchecked Sendable: `resolution` is guarded by `lock`; the rest is immutable.

    /// Where the model is to be found.
    private enum Source {
        case model(NSManagedObjectModel)
        case file(URL)
        case name(String, Bundle?)
        case entityVersionHashes([String: Data], Bundle?)
    }

    private let source: Source
    /// The checksum the model was named with.
    public let versionChecksum: String
    private let lock = NSLock()
    private var resolution: Result<NSManagedObjectModel, any Error>?

    /// A reference to `model` itself.
    public init(model: NSManagedObjectModel, versionChecksum: String) {
        source = .model(model)
        self.versionChecksum = versionChecksum
    }

    /// A reference to the model file at `fileURL` (`.xcdatamodeld`, `.xcdatamodel`, `.momd`,
    /// `.mom`); in a bundle of versions, the version with `versionChecksum`.
    public init(fileURL: URL, versionChecksum: String) {
        source = .file(fileURL)
        self.versionChecksum = versionChecksum
    }

    /// A reference to the model named `modelName` in `bundle` (nil: the main bundle and the
    /// loaded bundles, SwiftPM resource bundles included): a model file of that name, or a
    /// version of that name inside a model bundle.
    public init(name modelName: String, in bundle: Bundle?, versionChecksum: String) {
        source = .name(modelName, bundle)
        self.versionChecksum = versionChecksum
    }

    /// A reference to the model in `bundle` whose entities have these version hashes (entity
    /// name → 32-byte `Data`, as in a store's `NSStoreModelVersionHashes`).
    public init(entityVersionHashes versionHash: [AnyHashable: Any], in bundle: Bundle?, versionChecksum: String) {
        var hashes: [String: Data] = [:]
        for (name, hash) in versionHash {
            if let name = name as? String, let hash = hash as? Data { hashes[name] = hash }
        }
        source = .entityVersionHashes(hashes, bundle)
        self.versionChecksum = versionChecksum
    }

    /// The model referred to; an empty model when it cannot be found (the migration that needs
    /// it fails with 134504 and the reason).
    public var resolvedModel: NSManagedObjectModel {
        (try? resolve()) ?? NSManagedObjectModel()
    }

    public override var description: String {
        switch source {
        case .model: "the model given (checksum \(versionChecksum))"
        case .file(let url): "the model at \(url.path) (checksum \(versionChecksum))"
        case .name(let name, _): "the model named \"\(name)\" (checksum \(versionChecksum))"
        case .entityVersionHashes(let hashes, _): "the model of \(hashes.count) entities with the given version hashes (checksum \(versionChecksum))"
        }
    }

    /// The model referred to, found once and then remembered, frozen as a store's model is.
    package func resolve() throws -> NSManagedObjectModel {
        lock.lock()
        defer { lock.unlock() }
        if resolution == nil { resolution = Result { try find() } }
        return try resolution!.get()
    }

    private func find() throws -> NSManagedObjectModel {
        switch source {
        case .model(let model):
            model.freeze()
            guard accepts(model, singleFile: true) else {
                throw notFound("its version checksum is \(model.versionChecksum)")
            }
            return model
        case .file(let url):
            guard FileManager.default.fileExists(atPath: url.path) else { throw notFound("there is no file there") }
            return try firstAccepted(in: ModelVersionCandidates.everyVersion(of: url))
        case .name(let name, let bundle):
            let bundles = bundle.map { [$0] }
            var versions: [ModelVersionCandidates.Version] = []
            if let url = ModelLocator.url(forModelNamed: name, in: bundles) {
                versions += ModelVersionCandidates.everyVersion(of: url)
            }
            for url in ModelLocator.modelURLs(in: bundles) {
                versions += ModelVersionCandidates.everyVersion(of: url).filter { $0.name == name }
            }
            guard !versions.isEmpty else {
                let searched = ModelLocator.searchFolders(in: bundles).map(\.path).joined(separator: ", ")
                throw notFound("no model file or model version of that name is in \(searched)")
            }
            return try firstAccepted(in: versions)
        case .entityVersionHashes(let hashes, let bundle):
            let versions = ModelLocator.modelURLs(in: bundle.map { [$0] }).flatMap(ModelVersionCandidates.everyVersion(of:))
            for version in versions {
                guard let model = try? ModelVersionCandidates.load(version) else { continue }
                if model.entityVersionHashesByName == hashes && accepts(model, singleFile: true) { return model }
            }
            throw notFound("none of the \(versions.count) model versions found has those entity version hashes and that checksum")
        }
    }

    /// The first of `versions` whose checksum is the one given (or, when only one version is
    /// named, whose hashes cannot be checked exactly).
    private func firstAccepted(in versions: [ModelVersionCandidates.Version]) throws -> NSManagedObjectModel {
        var found: [String] = []
        for version in versions {
            do {
                let model = try ModelVersionCandidates.load(version)
                if accepts(model, singleFile: versions.count == 1) { return model }
                found.append("\"\(version.name)\" has checksum \(model.versionChecksum)")
            } catch {
                found.append("\"\(version.name)\" could not be loaded: \(error)")
            }
        }
        throw notFound(found.joined(separator: "; "))
    }

    /// Whether `model` is the one referred to: its checksum is the one given, or (for a model
    /// named alone) OpenCoreData cannot reproduce its hashes exactly.
    private func accepts(_ model: NSManagedObjectModel, singleFile: Bool) -> Bool {
        if model.versionChecksum == versionChecksum { return true }
        return singleFile && model.entities.contains { !$0.hasExactVersionHash }
    }

    private func notFound(_ reason: String) -> CocoaError {
        CoreDataError.make(.managedObjectModelReferenceNotFound, "Can't find \(self): \(reason)")
    }
}
