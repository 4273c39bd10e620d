import Foundation
import Testing
import OpenCoreData

/// `ocd migrate`: the plan for a store and a model version, `--dry-run` changing nothing, the
/// migration itself, and `--json`.
@Suite struct OCDMigrateTests {
    static func journalStore(in directory: TemporaryDirectory) throws -> (URL, ModelBundle) {
        let (bundle, url) = try LightweightMigrationTests.version1Store(upgradingTo: LightweightMigrationTests.entryV2, in: directory)
        try bundle.makeCurrent("Journal 2")
        return (url, bundle)
    }

    @Test func aDryRunPrintsThePlanAndChangesNothing() throws {
        let directory = TemporaryDirectory()
        let (url, bundle) = try Self.journalStore(in: directory)
        let bytes = try Data(contentsOf: url)
        let result = try OCD.run(["migrate", "--store", url.path, "--model", bundle.url.path, "--dry-run"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("Source: model version \"Journal\" (its version hashes are the store's)"))
        #expect(result.output.contains("Mapping: inferred"))
        #expect(result.output.contains("  ~ entity Book → Journal"))
        #expect(result.output.contains("      ~ note → text"))
        #expect(result.output.contains("      + mood"))
        #expect(result.output.contains("      - draft"))
        #expect(result.output.contains("  + entity Place"))
        #expect(result.output.contains("  - entity Scratch"))
        #expect(result.output.hasSuffix("Dry run: nothing was changed.\n"))
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func itMigratesAndThenHasNothingToDo() throws {
        let directory = TemporaryDirectory()
        let (url, bundle) = try Self.journalStore(in: directory)
        let result = try OCD.run(["migrate", "--store", url.path, "--model", bundle.url.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(json["needed"] as? Bool == true)
        #expect(json["migratedSeconds"] is Double)
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.contains { $0["mapping"] as? String == "AddPlace" && $0["type"] as? String == "add" })
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)
        #expect(try bundle.model().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        let again = try OCD.run(["migrate", "--store", url.path, "--model", bundle.url.path])
        #expect(again.status == 0)
        #expect(again.output.hasSuffix("The store fits the model.\nNothing to migrate.\n"))
    }

    /// With a mapping model of the application's own for the two versions beside the model, the
    /// plan is that mapping model's, as the add would follow it, not an inferred one.
    @Test func aDryRunShowsTheApplicationsMappingModelWhenThereIsOne() throws {
        let directory = TemporaryDirectory()
        let (bundle, _) = try XcodeMappingModelTests.project(in: directory)
        let url = directory.file("People.sqlite")
        try XcodeMappingModelTests.writeStore(at: url, bundle: bundle)
        try bundle.makeCurrent("People 2")
        let bytes = try Data(contentsOf: url)
        let result = try OCD.run(["migrate", "--store", url.path, "--model", bundle.url.path, "--dry-run", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(json["mappingKind"] as? String == "mapping model")
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.contains { $0["mapping"] as? String == "PersonToPerson" && $0["type"] as? String == "custom" })
        #expect(try Data(contentsOf: url) == bytes)
    }

    /// A version the bundle does not have fails with the versions it has (status 1); a missing
    /// option is a usage error (status 2).
    @Test func aVersionTheBundleLacksFailsWithItsVersions() throws {
        let directory = TemporaryDirectory()
        let (url, bundle) = try Self.journalStore(in: directory)
        let missing = try OCD.run(["migrate", "--store", url.path, "--model", bundle.url.path, "--to", "Journal 9"])
        #expect(missing.status == 1)
        #expect(missing.error.contains("has no version 'Journal 9' (its versions: Journal, Journal 2)"))
        let usage = try OCD.run(["migrate", "--store", url.path])
        #expect(usage.status == 2)
        #expect(usage.error.contains("migrate needs --model PATH"))
    }
}
