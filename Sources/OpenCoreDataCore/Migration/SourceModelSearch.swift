import Foundation

/// Finds the model a store was written with, for a migration to the current model.
///
/// In order: a version of the current model's file whose entity version hashes are the
/// store's (as Core Data matches them), in `ModelVersionCandidates`' order; then a version the store fits by structure (for hashes
/// OpenCoreData cannot reproduce exactly, `hasExactVersionHash`); then the model the store
/// carries itself (`Z_MODELCACHE`), if it fits — unless the store says it was written by a
/// later version of the model file than the one opening it. Nothing found is Core Data's
/// 134130, naming the store's entity hashes and every version tried.
package struct SourceModelSearch {
    /// Where the source model came from.
    package enum Origin: Equatable, CustomStringConvertible {
        /// A version of the model file, matched by its version hashes.
        case versionMatchingHashes(String)
        /// A version of the model file the store fits by structure (the SQLite store's tables),
        /// or by the hashes OpenCoreData computes exactly (a store of your own).
        case versionFittingTables(String)
        /// The copy of the model kept in the store.
        case storeModelCache
        /// A model the migration was given (a staged migration's step).
        case given

        package var description: String {
            switch self {
            case .versionMatchingHashes(let name): "model version \"\(name)\" (its version hashes are the store's)"
            case .versionFittingTables(let name): "model version \"\(name)\" (the store fits it: its tables, or the hashes that can be compared)"
            case .storeModelCache: "the model kept in the store (Z_MODELCACHE)"
            case .given: "the model of the migration stage"
            }
        }
    }

    package struct Found {
        package let model: NSManagedObjectModel
        package let origin: Origin
    }

    let destination: NSManagedObjectModel
    let configuration: String?
    let metadata: [String: Any]
    /// Models tried first (`OCDMigrationSourceModelsOption`).
    let given: [NSManagedObjectModel]

    package init(destination: NSManagedObjectModel, configuration: String?, metadata: [String: Any],
                 options: [AnyHashable: Any]? = nil) {
        self.destination = destination
        self.configuration = configuration
        self.metadata = metadata
        self.given = options?[OCDMigrationSourceModelsOption] as? [NSManagedObjectModel] ?? []
    }

    /// What the versions of the current model's file give: the first whose hashes are the
    /// store's, else every version that loaded. The first part of `find`, which a
    /// `MigrationPrefetch` does on its own queue while the store is compared with the model.
    package struct VersionSearch {
        /// The version whose hashes are the store's.
        package var matching: (name: String, model: NSManagedObjectModel)?
        /// The versions loaded whose hashes are not the store's, in the order tried.
        package var loaded: [(name: String, model: NSManagedObjectModel)] = []
        /// What was tried, for the error that names it.
        package var tried: [String] = []
        /// The name of the version the current model was loaded from.
        package var currentName: String?
    }

    /// Loads the versions of the current model's file in `ModelVersionCandidates`' order until
    /// one has the store's hashes, or until `stop` says the search is no longer wanted.
    package func searchVersions(until stop: () -> Bool = { false }) -> VersionSearch {
        let candidates = ModelVersionCandidates(of: destination)
        var search = VersionSearch(currentName: candidates.currentName)
        search.tried = candidates.currentName.map { ["the current version \"\($0)\""] } ?? []
        for version in candidates.versions {
            if stop() { break }
            do {
                let model = try ModelVersionCandidates.load(version)
                if model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) {
                    search.matching = (version.name, model)
                    return search
                }
                search.loaded.append((version.name, model))
                search.tried.append("\"\(version.name)\"")
            } catch {
                search.tried.append("\"\(version.name)\" (could not be loaded: \(error))")
            }
        }
        return search
    }

    /// The source model, found as the type's documentation says. `storedModel` reads the
    /// store's own copy of its model (nil when it has none); `fits` says whether the store's
    /// tables and hashes fit a candidate model. `versions` gives `searchVersions()` done
    /// already (by a prefetch) for this search's metadata, asked for only once no given model
    /// matched; nil: searched here.
    package func find(storedModel: () throws -> NSManagedObjectModel?,
                      fits: (NSManagedObjectModel) throws -> Bool, url: URL?,
                      versions: () -> VersionSearch? = { nil }) throws -> Found {
        for model in given where model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) {
            model.freeze()
            return Found(model: model, origin: .given)
        }
        let search = versions() ?? searchVersions()
        if let matching = search.matching {
            return Found(model: matching.model, origin: .versionMatchingHashes(matching.name))
        }
        var tried = search.tried
        for version in search.loaded where try fits(version.model) {
            return Found(model: version.model, origin: .versionFittingTables(version.name))
        }
        if let later = laterVersionOfStore(than: search.currentName) {
            throw laterStoreError(writtenBy: later, current: search.currentName ?? "", url: url)
        }
        do {
            if let model = try storedModel() {
                model.freeze()
                if try fits(model) { return Found(model: model, origin: .storeModelCache) }
                tried.append("the model kept in the store (Z_MODELCACHE), which its tables do not fit")
            }
        } catch {
            tried.append("the model kept in the store (Z_MODELCACHE), which could not be read: \(error)")
        }
        throw missingSourceModelError(tried: tried, url: url)
    }

    /// The version of the model file that wrote the store, when it comes after `currentName` in
    /// the file's versions as the store recorded them: a store of a later release, opened by an
    /// earlier one that does not have that version. Its own model (`Z_MODELCACHE`) would make
    /// a migration possible, but a migration back to an earlier version drops what the later
    /// one added, so the store is not migrated (as staged migration refuses to go back, 134506).
    private func laterVersionOfStore(than currentName: String?) -> String? {
        guard let currentName,
              let versions = (metadata[StoreMetadataKey.modelFileVersions] as? [Any])?.compactMap({ $0 as? String }),
              let storeVersion = metadata[StoreMetadataKey.modelFileVersion] as? String,
              let storeIndex = versions.firstIndex(of: storeVersion),
              let currentIndex = versions.firstIndex(of: currentName),
              storeIndex > currentIndex else { return nil }
        return storeVersion
    }

    /// 134130 for a store of a later version of the model (`laterVersionOfStore`).
    private func laterStoreError(writtenBy later: String, current: String, url: URL?) -> CocoaError {
        var info: [String: Any] = ["NSStoreModelVersionHashes": VersionHashing.hashes(inMetadata: metadata) ?? [:]]
        if let url { info[NSURLErrorKey] = url }
        return CoreDataError.make(.migrationMissingSourceModel,
                                  "The store \(url?.path ?? "") was written with version \"\(later)\" of the model, which comes after this model's version \"\(current)\" and is not among its versions; a store is not migrated back to an earlier version, which would drop what the later one added",
                                  info)
    }

    /// Core Data's 134130, naming what the store says of its model and what was tried.
    private func missingSourceModelError(tried: [String], url: URL?) -> CocoaError {
        let hashes = VersionHashing.hashes(inMetadata: metadata) ?? [:]
        let listed = VersionHashing.sortedByBytes(Set(hashes.keys))
            .map { "\($0) \(hashes[$0]!.prefix(6).map { String(format: "%02x", $0) }.joined())…" }
            .joined(separator: ", ")
        let triedText = tried.isEmpty
            ? "the model was not loaded from a versioned model file, so there were no other versions to try, and the store keeps no model of its own"
            : "tried: " + tried.joined(separator: ", ")
        var info: [String: Any] = ["NSStoreModelVersionHashes": hashes]
        if let url { info[NSURLErrorKey] = url }
        return CoreDataError.make(.migrationMissingSourceModel,
                                  "Can't find the model the store \(url?.path ?? "") was written with (its entities: \(listed.isEmpty ? "none recorded" : listed)); \(triedText)",
                                  info)
    }
}
