import Foundation

extension NSMappingModel {
    /// The mapping model from `sourceModel` to `destinationModel` among the compiled mapping
    /// models (`.cdm`) and the mapping editor's files (`.xcmappingmodel`) in `bundles` (nil: the
    /// main bundle and the loaded bundles) and beside the destination model's file; nil when
    /// there is none. A `.cdm` is chosen by the entity version hashes it records, as Core Data
    /// chooses one, and comes before an `.xcmappingmodel`.
    ///
    /// ```swift
    /// if let mapping = NSMappingModel(from: [.module], forSourceModel: v1, destinationModel: v2) { … }
    /// ```
    /// Difference from Apple: an `.xcmappingmodel` (which Apple's Core Data never reads: Xcode
    /// compiles it into the `.cdm`) is read too (see `Docs/Differences.md`). With `bundles`
    /// nil, the application's bundle folders are listed once per process, as Foundation's
    /// bundles cache their contents on Apple's platforms.
    public convenience init?(from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?,
                             destinationModel: NSManagedObjectModel?) {
        guard let sourceModel, let destinationModel,
              let found = Self.mappingModel(in: bundles, from: sourceModel, to: destinationModel) else { return nil }
        self.init()
        entityMappings = found.entityMappings
    }

    /// The mapping model of the compiled mapping model (`.cdm`) at `url`, or of the
    /// `.xcmappingmodel` at `url` (the package or its `xcmapping.xml`) between the two models
    /// its recorded paths name; nil when it cannot be read.
    /// Difference from Apple: Apple reads only compiled `.cdm` files here.
    public convenience init?(contentsOf url: URL?) {
        guard let url else { return nil }
        let mapping: NSMappingModel
        if url.pathExtension == CompiledMappingModel.fileExtension {
            guard let compiled = try? CompiledMappingModel.read(contentsOf: url) else { return nil }
            mapping = compiled
        } else {
            guard let file = try? XcodeMappingModel(contentsOf: url), let (source, destination) = try? file.recordedModels(),
                  let edited = try? file.mappingModel(source: source, destination: destination) else { return nil }
            mapping = edited
        }
        self.init()
        entityMappings = mapping.entityMappings
    }

    /// The mapping model of the `.cdm` or `.xcmappingmodel` at `url` between the two models
    /// given; the error names the file and what does not fit them (a `.cdm` recording other
    /// entity hashes, the line of an `.xcmappingmodel`'s mapping). An OpenCoreData extension.
    public convenience init(contentsOf url: URL, forSourceModel sourceModel: NSManagedObjectModel,
                            destinationModel: NSManagedObjectModel) throws {
        let mapping: NSMappingModel
        if url.pathExtension == CompiledMappingModel.fileExtension {
            mapping = try CompiledMappingModel.read(contentsOf: url)
            guard CompiledMappingModel.maps(mapping, from: sourceModel, to: destinationModel) else {
                throw ModelFileError(file: url, reason: "the entity version hashes it records are not those of the source and destination models")
            }
        } else {
            mapping = try XcodeMappingModel(contentsOf: url).mappingModel(source: sourceModel, destination: destinationModel)
        }
        self.init()
        entityMappings = mapping.entityMappings
    }

    /// The compiled (`.cdm`) and editor's (`.xcmappingmodel`) mapping model files, by
    /// extension, in `bundles` and beside `destination`'s model file.
    package static func mappingModelFiles(for destination: NSManagedObjectModel, in bundles: [Bundle]?) -> [String: [URL]] {
        var folders: [URL] = []
        if let file = destination.fileURL?.path {
            // As strings: `URL`'s own path operations standardize the path each time.
            var folder = Self.parentPath(of: file)
            if folder.hasSuffix(".xcdatamodeld") || folder.hasSuffix(".momd") { folder = Self.parentPath(of: folder) }
            folders.append(URL(fileURLWithPath: folder, isDirectory: true))
        }
        return ModelLocator.files(withExtensions: [CompiledMappingModel.fileExtension, "xcmappingmodel"], in: bundles, folders: folders)
    }

    /// `path` without its last component ("/" for a file at the root).
    private static func parentPath(of path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// See `init(from:forSourceModel:destinationModel:)`. `files`: what
    /// `mappingModelFiles(for:in:)` gives for `destination` and `bundles`, when already listed.
    package static func mappingModel(in bundles: [Bundle]?, from source: NSManagedObjectModel,
                                     to destination: NSManagedObjectModel, files listed: [String: [URL]]? = nil) -> NSMappingModel? {
        let files = listed ?? mappingModelFiles(for: destination, in: bundles)
        for url in files[CompiledMappingModel.fileExtension] ?? [] {
            guard let mapping = try? CompiledMappingModel.read(contentsOf: url),
                  CompiledMappingModel.maps(mapping, from: source, to: destination) else { continue }
            return mapping
        }
        for url in files["xcmappingmodel"] ?? [] {
            guard let file = try? XcodeMappingModel(contentsOf: url), file.maps(from: source, to: destination),
                  let mapping = try? file.mappingModel(source: source, destination: destination) else { continue }
            return mapping
        }
        return nil
    }
}
