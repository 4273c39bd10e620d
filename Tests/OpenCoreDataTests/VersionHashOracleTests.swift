import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Version hashes, digests and checksums computed with our API, against the values Apple's tools
/// wrote into the corpus: momc's `VersionInfo.plist` and `.omo`, and the metadata of stores Core
/// Data wrote.
@Suite struct VersionHashOracleTests {
    static let sampleModelVersionInfo = "compiled/alemar11__CoreDataPlus/Tests__Resources__SampleModel__Fixtures__SampleModel.momd/VersionInfo.plist"
    static let sampleModelOmo = "compiled/alemar11__CoreDataPlus/Tests__Resources__SampleModel__Fixtures__SampleModel.momd/SampleModel.omo"
    static let sampleModelStore = "stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite"
    static let syncMetadataStore = "stores/duckduckgo__BrowserServicesKit/Tests__DDGSyncTests__Resources__SyncMetadata_V3.sqlite"

    /// Every Apple-written store of the corpus.
    static let corpusStores = [
        "stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite",
        "stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel2__Fixtures__SampleModel2_V2.sqlite",
        "stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite",
        "stores/alemar11__CoreDataPlus/Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite",
        "stores/duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V1.sqlite",
        "stores/duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V2.sqlite",
        "stores/duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V3.sqlite",
        "stores/duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V4.sqlite",
        "stores/duckduckgo__BrowserServicesKit/Tests__BookmarksTests__Resources__Bookmarks_V5.sqlite",
        "stores/duckduckgo__BrowserServicesKit/Tests__DDGSyncTests__Resources__SyncMetadata_V3.sqlite",
    ]

    // MARK: CoreDataPlus SampleModel (version "SampleModel")

    /// The first version of CoreDataPlus's SampleModel (`SampleModel.xcdatamodel/contents`), built
    /// with our API: inheritance (Car → SportCar → ExpensiveSportCar), transient attributes on
    /// Car and Person, a history-preserved attribute, a to-many without maximum, and uniqueness
    /// constraints on Car and Person.
    static func sampleModel() -> NSManagedObjectModel {
        let car = NSEntityDescription(name: "Car")
        let color = NSAttributeDescription(name: "color", type: .transformableAttributeType)
        color.valueTransformerName = "ColorTransformer"
        let currentDrivingSpeed = NSAttributeDescription(name: "currentDrivingSpeed", type: .integer64AttributeType, defaultValue: 0)
        currentDrivingSpeed.isTransient = true
        let maker = NSAttributeDescription(name: "maker", type: .stringAttributeType)
        let markedForDeletionAsOf = NSAttributeDescription(name: "markedForDeletionAsOf", type: .dateAttributeType)
        let model = NSAttributeDescription(name: "model", type: .stringAttributeType)
        let numberPlate = NSAttributeDescription(name: "numberPlate", type: .stringAttributeType, optional: false)

        let person = NSEntityDescription(name: "Person")
        let firstName = NSAttributeDescription(name: "firstName", type: .stringAttributeType)
        let id = NSAttributeDescription(name: "id", type: .UUIDAttributeType, optional: false)
        id.preservesValueInHistoryOnDeletion = true
        let isDriving = NSAttributeDescription(name: "isDriving", type: .booleanAttributeType, optional: false, defaultValue: false)
        isDriving.isTransient = true
        let lastName = NSAttributeDescription(name: "lastName", type: .stringAttributeType)
        let updatedAt = NSAttributeDescription(name: "updatedAt", type: .dateAttributeType, optional: false)

        let owner = NSRelationshipDescription(name: "owner", destination: person)
        let cars = NSRelationshipDescription(name: "cars", destination: car, toMany: true)
        owner.inverseRelationship = cars
        cars.inverseRelationship = owner

        car.properties = [color, currentDrivingSpeed, maker, markedForDeletionAsOf, model, numberPlate, owner]
        car.uniquenessConstraints = [["numberPlate"]]
        person.properties = [firstName, id, isDriving, lastName, updatedAt, cars]
        person.uniquenessConstraints = [["firstName", "lastName"]]

        let expensiveSportCar = NSEntityDescription(name: "ExpensiveSportCar")
        expensiveSportCar.properties = [NSAttributeDescription(name: "isLimitedEdition", type: .booleanAttributeType, defaultValue: false)]
        let sportCar = NSEntityDescription(name: "SportCar")
        car.subentities = [sportCar]
        sportCar.subentities = [expensiveSportCar]

        let result = NSManagedObjectModel()
        result.entities = [car, expensiveSportCar, person, sportCar]
        result.versionIdentifiers = ["1"]
        return result
    }

    /// momc's entity hashes for version "SampleModel" match ours for every entity. None of its
    /// entities has a derived attribute, so all are expected to match.
    @Test(.needsCorpus) func sampleModelEntityHashesMatchVersionInfo() throws {
        let data = try Data(contentsOf: Corpus.url(Self.sampleModelVersionInfo))
        let info = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let versions = try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: Any])
        let apple = try #require(VersionHashing.hashes(inMetadata: [NSStoreModelVersionHashesKey: versions["SampleModel"] as Any]))
        let ours = Self.sampleModel().entityVersionHashesByName
        #expect(apple.keys.sorted() == ["Car", "ExpensiveSportCar", "Person", "SportCar"])
        #expect(ours.keys.sorted() == apple.keys.sorted())
        for (name, hash) in apple.sorted(by: { $0.key < $1.key }) {
            #expect(ours[name] == hash, "entity \(name): ours \(hex(ours[name])) Apple's \(hex(hash))")
        }
        // This VersionInfo.plist predates `NSManagedObjectModel_VersionChecksums` (and the store of
        // this version, fw 1044, predates `NSStoreModelVersionChecksumKey`), so there is no Apple
        // checksum for this model. When a newer momc adds one, it is compared here; the checksum
        // is checked against Apple's in `syncMetadataModelMatchesStore` and `corpusStoreDigests`.
        if let checksums = info["NSManagedObjectModel_VersionChecksums"] as? [String: Any],
           let checksum = checksums["SampleModel"] as? String {
            #expect(Self.sampleModel().versionChecksum == checksum)
        }
    }

    /// The per-property hashes momc stores in `SampleModel.omo` include ours for every property,
    /// transient ones included (the .omo layout is not known, so each hash is looked for as bytes).
    @Test(.needsCorpus) func sampleModelPropertyHashesAppearInOmo() throws {
        let omo = try Data(contentsOf: Corpus.url(Self.sampleModelOmo))
        let model = Self.sampleModel()
        for entity in model.entities {
            for property in entity.properties {
                #expect(omo.range(of: property.versionHash) != nil, "\(entity.name!).\(property.name): \(hex(property.versionHash))")
            }
        }
    }

    /// Apple's metadata in the store written with this version: the same hashes, and a digest
    /// equal to ours.
    @Test(.needsCorpus) func sampleModelStoreMetadataMatches() throws {
        let directory = TemporaryDirectory()
        let url = try Corpus.copyStore(Self.sampleModelStore, to: directory)
        let (_, plist) = try Corpus.rawMetadata(ofStoreAt: url)
        let model = Self.sampleModel()
        let stored = try #require(VersionHashing.hashes(inMetadata: plist))
        #expect(stored == model.entityVersionHashesByName)
        #expect(plist[StoreMetadataKey.versionHashesDigest] as? String == VersionHashing.digest(of: model.entityVersionHashesByName))
        #expect(plist[NSStoreModelVersionIdentifiersKey] as? [String] == ["1"])
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: plist))
    }

    // MARK: DuckDuckGo SyncMetadata (version "SyncMetadata 3"), with Apple's checksum

    /// `SyncMetadata 3.xcdatamodel`: two entities with a uniqueness constraint and a fetch index each.
    static func syncMetadataModel() -> NSManagedObjectModel {
        let settings = NSEntityDescription(name: "SyncableSettingsMetadata")
        let key = NSAttributeDescription(name: "key", type: .stringAttributeType, optional: false)
        settings.properties = [key, NSAttributeDescription(name: "lastModified", type: .dateAttributeType)]
        settings.uniquenessConstraints = [[key]]
        settings.indexes = [NSFetchIndexDescription(name: "byKey", elements: [NSFetchIndexElementDescription(property: key, collationType: .binary)])]
        let feature = NSEntityDescription(name: "SyncFeatureEntity")
        let name = NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false)
        feature.properties = [NSAttributeDescription(name: "lastModified", type: .stringAttributeType), name,
                              NSAttributeDescription(name: "state", type: .stringAttributeType)]
        feature.uniquenessConstraints = [["name"]]
        feature.indexes = [NSFetchIndexDescription(name: "byName", elements: [NSFetchIndexElementDescription(property: name, collationType: .binary)])]
        let model = NSManagedObjectModel()
        model.entities = [settings, feature]
        return model
    }

    /// Entity hashes, digest and checksum of a model built with our API, against the store Core
    /// Data 1338 wrote with it (which has `NSStoreModelVersionChecksumKey`).
    @Test(.needsCorpus) func syncMetadataModelMatchesStore() throws {
        let directory = TemporaryDirectory()
        let url = try Corpus.copyStore(Self.syncMetadataStore, to: directory)
        let (_, plist) = try Corpus.rawMetadata(ofStoreAt: url)
        let model = Self.syncMetadataModel()
        #expect(VersionHashing.hashes(inMetadata: plist) == model.entityVersionHashesByName)
        #expect(plist[StoreMetadataKey.versionHashesDigest] as? String == VersionHashing.digest(of: model.entityVersionHashesByName))
        #expect(plist[NSStoreModelVersionChecksumKey] as? String == model.versionChecksum)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: plist))
    }

    /// In every corpus store, the digest and checksum (where present) follow from the stored
    /// entity hashes by our formulas. This covers stores whose entity hashes we cannot compute
    /// (SampleModel2 has derived attributes).
    @Test(.needsCorpus, arguments: corpusStores)
    func corpusStoreDigests(store: String) throws {
        let directory = TemporaryDirectory()
        let url = try Corpus.copyStore(store, to: directory)
        let (_, plist) = try Corpus.rawMetadata(ofStoreAt: url)
        let hashes = try #require(VersionHashing.hashes(inMetadata: plist))
        #expect(!hashes.isEmpty)
        #expect(hashes.values.allSatisfy { $0.count == 32 })
        #expect(plist[StoreMetadataKey.versionHashesVersion] as? Int == 3)
        // Every corpus store is from Core Data 1044 or later, which writes the digest; only 1333
        // and later write the checksum (SampleModel2_V1/V2, Bookmarks_V4, SyncMetadata_V3).
        let digest = try #require(plist[StoreMetadataKey.versionHashesDigest] as? String)
        #expect(VersionHashing.digest(of: hashes) == digest)
        if let checksum = plist[NSStoreModelVersionChecksumKey] as? String {
            #expect(VersionHashing.checksum(of: hashes) == checksum)
        }
    }

    private func hex(_ data: Data?) -> String { data.map { $0.map { String(format: "%02x", $0) }.joined() } ?? "nil" }
}
