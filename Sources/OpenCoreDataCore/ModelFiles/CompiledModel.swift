import Foundation

/// Apple's compiled models: a `.mom` file, a `.momd` folder of versions, and the copy of the
/// model Core Data keeps inside its SQLite stores (COREDATA-FORMAT.md §5).
///
/// ```swift
/// let model = try CompiledModel.load(at: bundle.appendingPathComponent("Model.momd"))
/// let info = try CompiledModel.versionInfo(at: momd)      // current version, entity hashes
/// ```
/// A `.mom` is an `NSKeyedArchiver` archive of the `NSManagedObjectModel`; a store's
/// `Z_MODELCACHE.Z_CONTENT` is the same archive, raw-DEFLATE compressed. The `.omo` files
/// momc writes beside the `.mom` ones (an undocumented binary layout starting `momv2`) are not
/// read: the `.mom` of the same version holds the same model.
package enum CompiledModel {
    /// What `VersionInfo.plist` in a `.momd` says about the model's versions.
    struct VersionInfo: Sendable, Equatable {
        /// `NSManagedObjectModel_CurrentVersionName`: the version `load(at:)` picks, without
        /// extension (`"SampleModel"` for `SampleModel.mom`).
        var currentVersionName: String?
        /// `NSManagedObjectModel_VersionHashes`: version name → entity name → the entity's
        /// 32-byte version hash.
        var versionHashes: [String: [String: Data]]
        /// `NSManagedObjectModel_VersionChecksums`: version name → the model's checksum
        /// (base64), written by newer Xcode versions only.
        var versionChecksums: [String: String]
    }

    /// The model in a `.mom` file, or the current version of a `.momd` folder: the version
    /// `VersionInfo.plist` names, or, without that file, the folder's only `.mom`.
    static func load(at url: URL) throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try load(at: url, into: model)
        return model
    }

    /// Loads the model `load(at:)` loads into `model`, an empty, unfrozen model (for an
    /// initializer such as `NSManagedObjectModel(contentsOf:)`).
    static func load(at url: URL, into model: NSManagedObjectModel) throws {
        try decode(momAt: try momFile(at: url), into: model)
    }

    /// The `.mom` file `load(at:)` reads for `url`.
    static func momFile(at url: URL) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelFileError(file: url, reason: "there is no such file or folder")
        }
        guard isDirectory.boolValue else { return url }

        let plist = url.appendingPathComponent("VersionInfo.plist")
        if FileManager.default.fileExists(atPath: plist.path) {
            guard let name = try versionInfo(at: url).currentVersionName else {
                throw ModelFileError(file: plist, reason: "it names no current version (NSManagedObjectModel_CurrentVersionName)")
            }
            let mom = url.appendingPathComponent(name + ".mom")
            guard FileManager.default.fileExists(atPath: mom.path) else {
                let omo = url.appendingPathComponent(name + ".omo")
                let note = FileManager.default.fileExists(atPath: omo.path) ? " (there is a \(name).omo, a format this reader does not read)" : ""
                throw ModelFileError(file: url, reason: "VersionInfo.plist names the current version \"\(name)\", but the folder has no \(name).mom\(note)")
            }
            return mom
        }

        let contents: [String]
        do {
            contents = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw ModelFileError(file: url, reason: "the folder cannot be read (\(error.localizedDescription))")
        }
        let moms = contents.filter { $0.hasSuffix(".mom") }.sorted()
        switch moms.count {
        case 1:
            return url.appendingPathComponent(moms[0])
        case 0:
            throw ModelFileError(file: url, reason: "the folder has neither a VersionInfo.plist nor a .mom file")
        default:
            throw ModelFileError(file: url, reason: "the folder has no VersionInfo.plist to choose among its \(moms.count) .mom files (\(moms.joined(separator: ", ")))")
        }
    }

    /// What `VersionInfo.plist` in the `.momd` folder `momd` says.
    static func versionInfo(at momd: URL) throws -> VersionInfo {
        let url = momd.appendingPathComponent("VersionInfo.plist")
        let data = try ModelFileReader.data(of: url)
        let plist: PropertyListValue
        do {
            plist = try PropertyListValue.read(data)
        } catch let error as PropertyListError {
            throw ModelFileError(file: url, reason: error.reason)
        }
        guard case .dictionary(let root) = plist else {
            throw ModelFileError(file: url, reason: "it holds \(plist.kindName), not a dictionary")
        }
        var info = VersionInfo(currentVersionName: nil, versionHashes: [:], versionChecksums: [:])
        switch root["NSManagedObjectModel_CurrentVersionName"] {
        case nil: break
        case .string(let name)?: info.currentVersionName = name
        case let other?: throw ModelFileError(file: url, element: "NSManagedObjectModel_CurrentVersionName", reason: "it is \(other.kindName), not a string")
        }
        if let hashes = root["NSManagedObjectModel_VersionHashes"] {
            guard case .dictionary(let versions) = hashes else {
                throw ModelFileError(file: url, element: "NSManagedObjectModel_VersionHashes", reason: "it is \(hashes.kindName), not a dictionary")
            }
            for (version, entities) in versions {
                guard case .dictionary(let entityHashes) = entities else {
                    throw ModelFileError(file: url, element: "NSManagedObjectModel_VersionHashes.\(version)", reason: "it is \(entities.kindName), not a dictionary")
                }
                info.versionHashes[version] = try entityHashes.mapValues { hash in
                    guard case .data(let bytes) = hash else {
                        throw ModelFileError(file: url, element: "NSManagedObjectModel_VersionHashes.\(version)", reason: "an entity hash is \(hash.kindName), not data")
                    }
                    return bytes
                }
            }
        }
        if let checksums = root["NSManagedObjectModel_VersionChecksums"] {
            guard case .dictionary(let versions) = checksums else {
                throw ModelFileError(file: url, element: "NSManagedObjectModel_VersionChecksums", reason: "it is \(checksums.kindName), not a dictionary")
            }
            info.versionChecksums = try versions.mapValues { checksum in
                guard case .string(let text) = checksum else {
                    throw ModelFileError(file: url, element: "NSManagedObjectModel_VersionChecksums", reason: "a checksum is \(checksum.kindName), not a string")
                }
                return text
            }
        }
        return info
    }

    /// The model in a store's model cache (`Z_MODELCACHE.Z_CONTENT`, raw DEFLATE of the
    /// model's keyed archive). Errors name `source`, the store.
    package static func model(fromModelCache data: Data, source: URL) throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try decode(modelCache: data, source: source, into: model)
        return model
    }

    /// A store's model cache of `model`: its keyed archive in the model cache's layout, raw
    /// DEFLATE compressed, as Core Data writes `Z_MODELCACHE.Z_CONTENT`. Throws
    /// `KeyedArchiveEncodingError` for a model the archive cannot hold (a block predicate in a
    /// fetch request template, for example).
    package static func modelCache(of model: NSManagedObjectModel) throws -> Data {
        try RawDeflate.deflate(KeyedArchiveModelEncoder.archive(model))
    }

    /// Decodes a store's model cache into `model`, an empty, unfrozen model.
    static func decode(modelCache data: Data, source: URL, into model: NSManagedObjectModel) throws {
        let archive: Data
        do {
            archive = try RawDeflate.inflate(data)
        } catch let error as RawDeflate.Failure {
            throw ModelFileError(file: source, element: "Z_MODELCACHE", reason: "the model cache cannot be inflated: \(error.reason)")
        }
        try KeyedArchiveModelDecoder(data: archive, source: source, wholeElement: "Z_MODELCACHE").decodeModel(into: model)
    }

    /// The model archived in `data` (the contents of a `.mom`). Errors name `source`.
    static func model(fromArchive data: Data, source: URL) throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try decode(archive: data, source: source, into: model)
        return model
    }

    /// Decodes the model archived in `data` into `model`, an empty, unfrozen model.
    static func decode(archive data: Data, source: URL, into model: NSManagedObjectModel) throws {
        if data.starts(with: Array("momv2".utf8)) {
            throw ModelFileError(file: source, reason: "it is an .omo file (momc's optimized model, starting \"momv2\"), which this reader does not read; load the .mom of the same version")
        }
        try KeyedArchiveModelDecoder(data: data, source: source).decodeModel(into: model)
    }

    private static func decode(momAt url: URL, into model: NSManagedObjectModel) throws {
        let data = try ModelFileReader.data(of: url)
        try decode(archive: data, source: url, into: model)
    }
}
