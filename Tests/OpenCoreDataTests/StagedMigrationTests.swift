import Foundation
import Testing
@testable import OpenCoreData

/// Staged migration (`NSStagedMigrationManager`, Apple's documentation "Staged migrations"): a
/// store several versions behind goes through every stage, with the custom stages' handlers
/// run on the store as their models see it.
@Suite struct StagedMigrationTests {
    /// Version 1: notes with an optional title.
    static let notesV1 = """
        <entity name="Note" representedClassName="Note" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="text" optional="YES" attributeType="String"/>
        </entity>
        """
    /// Version 2: a mood added (lightweight).
    static let notesV2 = notesV1.replacingOccurrences(
        of: "</entity>", with: "    <attribute name=\"mood\" optional=\"YES\" attributeType=\"Integer 16\" usesScalarValueType=\"YES\"/>\n</entity>")
    /// Version 3: the title required, without a default: no inference can fill the notes that
    /// have none, so a custom stage does, before.
    static let notesV3 = notesV2.replacingOccurrences(
        of: "<attribute name=\"title\" optional=\"YES\" attributeType=\"String\"/>", with: "<attribute name=\"title\" attributeType=\"String\"/>")
    /// Version 4: a word count, computed by a custom stage after the migration.
    static let notesV4 = notesV3.replacingOccurrences(
        of: "</entity>", with: "    <attribute name=\"words\" optional=\"YES\" attributeType=\"Integer 32\" usesScalarValueType=\"YES\"/>\n</entity>")

    /// A bundle of the four versions, with version 1 current.
    static func bundle(in directory: TemporaryDirectory) throws -> ModelBundle {
        try ModelBundle(in: directory, name: "Notes",
                        versions: [("Notes", notesV1), ("Notes 2", notesV2), ("Notes 3", notesV3), ("Notes 4", notesV4)], current: "Notes")
    }

    static func model(_ bundle: ModelBundle, _ version: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel(validatingContentsOf: bundle.url.appendingPathComponent("\(version).xcdatamodel"))
    }

    /// A store of `version` holding three notes, the last without a title.
    static func writeStore(at url: URL, bundle: ModelBundle, version: String = "Notes") throws {
        let (container, error) = LightweightMigrationTests.container(try model(bundle, version), at: url)
        try #require(error == nil)
        for (index, title) in ["Shopping", "Ideas", nil].enumerated() {
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: container.viewContext)
            note.setValue(title, forKey: "title")
            note.setValue(String(repeating: "word ", count: index + 1), forKey: "text")
        }
        try container.viewContext.save()
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])
    }

    /// A store of `version` (three notes) in the four-version bundle, whose current version is
    /// then `current`, as the app's next release makes it.
    static func store(writtenWith version: String = "Notes", current: String, in directory: TemporaryDirectory) throws -> (ModelBundle, URL) {
        let bundle = try bundle(in: directory)
        let url = directory.file("Notes.sqlite")
        try writeStore(at: url, bundle: bundle, version: version)
        try bundle.makeCurrent(current)
        return (bundle, url)
    }

    /// What the handlers saw: the stage, the handler, and the checksum of the model the
    /// container's store was opened with.
    typealias Calls = LockedBox<[String]>

    /// The stages from version 1 to 4: a lightweight stage 1 → 2, a custom stage 2 → 3 that
    /// gives untitled notes a title first, a custom stage 3 → 4 that counts words afterwards.
    /// `observe` is called as each handler starts, with the stage's label.
    static func manager(_ bundle: ModelBundle, calls: Calls, failIn failing: String? = nil,
                        observe: @escaping (String) -> Void = { _ in }) throws -> NSStagedMigrationManager {
        let (v1, v2, v3, v4) = (try model(bundle, "Notes"), try model(bundle, "Notes 2"), try model(bundle, "Notes 3"), try model(bundle, "Notes 4"))
        let early = NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])
        early.label = "mood"
        let titles = NSCustomMigrationStage(
            migratingFrom: NSManagedObjectModelReference(fileURL: bundle.url, versionChecksum: v2.versionChecksum),
            to: NSManagedObjectModelReference(name: "Notes 3", in: Bundle(path: bundle.url.deletingLastPathComponent().path),
                                              versionChecksum: v3.versionChecksum))
        titles.label = "required titles"
        titles.willMigrateHandler = { manager, stage in
            let container = try #require(manager.container)
            calls.mutate { $0.append("\(stage.label!) will \(container.managedObjectModel.versionChecksum)") }
            observe(stage.label!)
            if failing == "titles" { throw CocoaError(.featureUnsupported) }
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
                request.predicate = NSPredicate(format: "title == nil")
                for note in try context.fetch(request) { note.setValue("Untitled", forKey: "title") }
                try context.save()
            }
        }
        let words = NSCustomMigrationStage(migratingFrom: NSManagedObjectModelReference(model: v3, versionChecksum: v3.versionChecksum),
                                           to: NSManagedObjectModelReference(model: v4, versionChecksum: v4.versionChecksum))
        words.label = "word counts"
        words.didMigrateHandler = { manager, stage in
            let container = try #require(manager.container)
            calls.mutate { $0.append("\(stage.label!) did \(container.managedObjectModel.versionChecksum)") }
            observe(stage.label!)
            if failing == "words" { throw CocoaError(.featureUnsupported) }
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for note in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")) {
                    let text = note.value(forKey: "text") as? String ?? ""
                    note.setValue(NSNumber(value: text.split(separator: " ").count), forKey: "words")
                }
                try context.save()
            }
        }
        return NSStagedMigrationManager([early, titles, words])
    }

    static func open(_ url: URL, with model: NSManagedObjectModel, manager: NSStagedMigrationManager?,
                     progress: Progress? = nil) -> (NSPersistentContainer, Error?) {
        LightweightMigrationTests.container(model, at: url) { description in
            if let manager { description.setOption(manager, forKey: NSPersistentStoreStagedMigrationManagerOptionKey) }
            description.migrationProgress = progress
        }
    }

    static func notes(in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.sortDescriptors = [NSSortDescriptor(key: "text", ascending: true)]
        return try context.fetch(request)
    }

    @Test func aStoreThreeVersionsBehindGoesThroughEveryStage() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(current: "Notes 4", in: directory)
        let calls = Calls([])
        let v4 = try bundle.model()

        let (container, error) = Self.open(url, with: v4, manager: try Self.manager(bundle, calls: calls))
        #expect(error == nil)
        let notes = try Self.notes(in: container.viewContext)
        #expect(notes.map { $0.value(forKey: "title") as? String } == ["Shopping", "Ideas", "Untitled"])
        #expect(notes.map { ($0.value(forKey: "words") as? NSNumber)?.intValue } == [1, 2, 3])
        // Each handler ran once, on the store opened with its own version of the model.
        let (v2, v4Checksum) = (try Self.model(bundle, "Notes 2").versionChecksum, v4.versionChecksum)
        #expect(calls.value == ["required titles will \(v2)", "word counts did \(v4Checksum)"])
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])

        // The store is version 4's now: it opens without the manager, and its metadata says so.
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata[NSStoreModelVersionChecksumKey] as? String == v4Checksum)
        let (reopened, reopenError) = Self.open(url, with: try bundle.model(), manager: nil)
        #expect(reopenError == nil)
        #expect(try Self.notes(in: reopened.viewContext).count == 3)
    }

    @Test func withoutTheStagesTheSameStoreCannotBeMigratedAndIsLeftAsItWas() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(current: "Notes 4", in: directory)

        let (_, error) = Self.open(url, with: try bundle.model(), manager: nil)
        // A note without a title cannot become a version 4 note by inference alone.
        #expect((error as? CocoaError)?.code == .migration)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(try Self.model(bundle, "Notes").isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func aStoreAlreadyPartWayRunsOnlyTheStagesAfterItsVersion() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(writtenWith: "Notes 2", current: "Notes 3", in: directory)
        let calls = Calls([])

        // The coordinator's model is version 3: the stages stop there, the word counts do not run.
        let (container, error) = Self.open(url, with: try bundle.model(), manager: try Self.manager(bundle, calls: calls))
        #expect(error == nil)
        #expect(calls.value == ["required titles will \(try Self.model(bundle, "Notes 2").versionChecksum)"])
        #expect(try Self.notes(in: container.viewContext).map { $0.value(forKey: "title") as? String } == ["Shopping", "Ideas", "Untitled"])
    }

    @Test func aHandlerThatFailsNamesItsStageAndLeavesTheStoreAtTheLastCompletedVersion() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(current: "Notes 4", in: directory)
        let calls = Calls([])

        let (_, error) = Self.open(url, with: try bundle.model(), manager: try Self.manager(bundle, calls: calls, failIn: "titles"))
        let failure = try #require(error as? CocoaError)
        #expect(failure.code == .migration)
        #expect(failure.localizedDescription.contains("willMigrateHandler of stage \"required titles\" (stage 2 of 3)"))
        #expect((failure.userInfo[NSUnderlyingErrorKey] as? CocoaError)?.code == .featureUnsupported)
        // The lightweight stage before it was committed: the store is version 2's, with its notes.
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(try Self.model(bundle, "Notes 2").isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        // The next launch, with a handler that works, goes on from version 2.
        let again = Calls([])
        let (container, retryError) = Self.open(url, with: try bundle.model(), manager: try Self.manager(bundle, calls: again))
        #expect(retryError == nil)
        #expect(again.value.count == 2)
        #expect(try Self.notes(in: container.viewContext).map { ($0.value(forKey: "words") as? NSNumber)?.intValue } == [1, 2, 3])
    }

    @Test func aModelNoReferenceCanFindFailsTheAddWith134504AndLeavesTheStore() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(current: "Notes 2", in: directory)
        let v1 = try Self.model(bundle, "Notes")
        let wrong = NSCustomMigrationStage(
            migratingFrom: NSManagedObjectModelReference(fileURL: bundle.url, versionChecksum: v1.versionChecksum),
            to: NSManagedObjectModelReference(fileURL: bundle.url, versionChecksum: "not-a-checksum"))

        let (_, error) = Self.open(url, with: try bundle.model(), manager: NSStagedMigrationManager([wrong]))
        let failure = try #require(error as? CocoaError)
        #expect(failure.code.rawValue == NSManagedObjectModelReferenceNotFoundError)
        // The message names the checksum looked for and each version's.
        #expect(failure.localizedDescription.contains("not-a-checksum"))
        #expect(failure.localizedDescription.contains("\"Notes 3\" has checksum \(try Self.model(bundle, "Notes 3").versionChecksum)"))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func aStoreLaterInTheStagesThanTheModelIsNotMigratedBack() throws {
        let directory = TemporaryDirectory()
        let bundle = try Self.bundle(in: directory)
        let url = directory.file("Notes.sqlite")
        try Self.writeStore(at: url, bundle: bundle, version: "Notes 2")
        let calls = Calls([])

        // An older app (version 1) meets a store version 2 wrote.
        let (_, error) = Self.open(url, with: try Self.model(bundle, "Notes"), manager: try Self.manager(bundle, calls: calls))
        #expect((error as? CocoaError)?.code.rawValue == NSStagedMigrationBackwardMigrationError)
        #expect(calls.value.isEmpty)
    }

    @Test func aReferenceResolvesTheVersionWithItsChecksumAmongABundlesVersions() throws {
        let directory = TemporaryDirectory()
        let bundle = try Self.bundle(in: directory)
        let v3 = try Self.model(bundle, "Notes 3")

        let byFile = NSManagedObjectModelReference(fileURL: bundle.url, versionChecksum: v3.versionChecksum)
        #expect(byFile.resolvedModel.entityVersionHashesByName == v3.entityVersionHashesByName)
        let byHashes = NSManagedObjectModelReference(entityVersionHashes: v3.entityVersionHashesByName,
                                                     in: Bundle(path: directory.url.path), versionChecksum: v3.versionChecksum)
        #expect(byHashes.resolvedModel.entityVersionHashesByName == v3.entityVersionHashesByName)
        // One that names nothing there resolves to an empty model; the migration reports why.
        let missing = NSManagedObjectModelReference(name: "Elsewhere", in: Bundle(path: directory.url.path), versionChecksum: v3.versionChecksum)
        #expect(missing.resolvedModel.entities.isEmpty)
        #expect(throws: CocoaError.self) { try missing.resolve() }
    }

    @Test func aDidMigrateHandlerThatFailedRunsAgainOnTheNextAdd() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(writtenWith: "Notes 2", current: "Notes 4", in: directory)
        let v4 = try bundle.model()

        let (_, error) = Self.open(url, with: v4, manager: try Self.manager(bundle, calls: Calls([]), failIn: "words"))
        #expect((error as? CocoaError)?.code == .migration)
        // The stage's migration was committed; its handler is still owed.
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(v4.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        let calls = Calls([])
        let (container, retryError) = Self.open(url, with: v4, manager: try Self.manager(bundle, calls: calls))
        #expect(retryError == nil)
        #expect(calls.value == ["word counts did \(v4.versionChecksum)"])
        #expect(try Self.notes(in: container.viewContext).map { ($0.value(forKey: "words") as? NSNumber)?.intValue } == [1, 2, 3])
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])

        // Done once: the next add runs no handler.
        let again = Calls([])
        _ = Self.open(url, with: v4, manager: try Self.manager(bundle, calls: again))
        #expect(again.value.isEmpty)
    }

    /// A progress that records every entity name a migration tells it.
    // @unchecked Sendable: `names` is a locked box; Progress guards the rest.
    final class RecordingProgress: Progress, @unchecked Sendable {
        let names = LockedBox<[String]>([])
        override func setUserInfoObject(_ objectOrNil: Any?, forKey key: ProgressUserInfoKey) {
            super.setUserInfoObject(objectOrNil, forKey: key)
            if key == .migrationEntityName, let name = objectOrNil as? String { names.mutate { $0.append(name) } }
        }
    }

    /// The description's progress counts the stages: one unit per step, each step's migration
    /// a child worth one unit, whose entity names reach the progress the app holds.
    @Test func theProgressCountsEveryStageAndNamesTheEntities() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(current: "Notes 4", in: directory)
        let progress = RecordingProgress(totalUnitCount: 0)
        let seen = LockedBox<[String: Double]>([:])
        let manager = try Self.manager(bundle, calls: Calls([])) { label in
            seen.mutate { $0[label] = progress.fractionCompleted }
        }
        let (container, error) = Self.open(url, with: try bundle.model(), manager: manager, progress: progress)
        #expect(error == nil)
        #expect(try Self.notes(in: container.viewContext).count == 3)
        #expect(progress.totalUnitCount == 3)
        #expect(progress.fractionCompleted == 1)
        // Before the second stage migrates, the first is done; after the third, all three are.
        #expect(abs((seen.value["required titles"] ?? -1) - 1.0 / 3) < 1e-9)
        #expect((seen.value["word counts"] ?? -1) > 2.0 / 3)
        #expect(progress.names.value.filter { $0 == "Note" }.count == 3)
    }

    /// Stages that do not meet at one version (a lightweight stage naming version 1 alone, then
    /// a custom stage from version 2) are joined by an inferred step, as Core Data's lightweight
    /// stages are: the store goes 1 → 2 → 3 → 4 with both handlers run. A gap that cannot be
    /// inferred fails with 134140 naming the change, the store left at version 1.
    @Test func stagesThatDoNotMeetAreJoinedByAnInferredStep() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(current: "Notes 4", in: directory)
        let calls = Calls([])
        let full = try Self.manager(bundle, calls: calls)
        let v1 = try Self.model(bundle, "Notes")
        let gapped = NSStagedMigrationManager([NSLightweightMigrationStage([v1.versionChecksum])] + full.stages.dropFirst())

        let (container, error) = Self.open(url, with: try bundle.model(), manager: gapped)
        #expect(error == nil)
        #expect(try Self.notes(in: container.viewContext).map { $0.value(forKey: "title") as? String } == ["Shopping", "Ideas", "Untitled"])
        #expect(calls.value.count == 2)
        try container.persistentStoreCoordinator.remove(container.persistentStoreCoordinator.persistentStores[0])

        // Version 1 → a version whose text became a date: no inferred step joins them.
        let otherDirectory = TemporaryDirectory()
        let broken = try ModelBundle(in: otherDirectory, name: "Notes", versions: [
            ("Notes", Self.notesV1),
            ("Notes 2", Self.notesV2.replacingOccurrences(of: "name=\"text\" optional=\"YES\" attributeType=\"String\"",
                                                          with: "name=\"text\" optional=\"YES\" attributeType=\"Date\" usesScalarValueType=\"NO\"")),
        ], current: "Notes")
        let brokenURL = otherDirectory.file("Notes.sqlite")
        try Self.writeStore(at: brokenURL, bundle: broken)
        let bytes = try Data(contentsOf: brokenURL)
        try broken.makeCurrent("Notes 2")
        let (b1, b2) = (try Self.model(broken, "Notes"), try Self.model(broken, "Notes 2"))
        #expect(b1.versionChecksum != b2.versionChecksum)
        let unjoinable = NSStagedMigrationManager([NSLightweightMigrationStage([b1.versionChecksum]),
                                                   NSLightweightMigrationStage([b2.versionChecksum])])
        let (_, brokenError) = Self.open(brokenURL, with: try broken.model(), manager: unjoinable)
        let failure = try #require(brokenError as? CocoaError)
        #expect(failure.code.rawValue == 134140, "\(failure)")
        #expect(failure.message.contains("text"), "\(failure.message)")
        #expect(try Data(contentsOf: brokenURL) == bytes)
    }

    /// Loaded through the async `loadPersistentStores()` from the main actor, the migration runs
    /// off the main thread: while a stage is held, the main actor is free to run the task that
    /// cancels the description's progress, and the load then fails with 134120, the store whole
    /// at version 2, where the last finished stage left it.
    @MainActor @Test(.timeLimit(.minutes(1)))
    func anAsyncLoadMigratesOffTheMainThreadAndCanBeCancelledFromIt() async throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(current: "Notes 4", in: directory)
        let progress = Progress(totalUnitCount: 0)
        let onMainThread = LockedBox<[Bool]>([])
        let held = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        let manager = try Self.manager(bundle, calls: Calls([])) { label in
            onMainThread.mutate { $0.append(Thread.isMainThread) }
            if label == "required titles" {
                held.signal()
                released.wait()
            }
        }
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: try bundle.model())
        let description = NSPersistentStoreDescription(url: url)
        description.setOption(manager, forKey: NSPersistentStoreStagedMigrationManagerOptionKey)
        description.migrationProgress = progress
        container.persistentStoreDescriptions = [description]

        // Runs on the main actor while the load below is suspended: the migration must not hold it.
        let canceller = Task { @MainActor in
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    held.wait()
                    continuation.resume()
                }
            }
            progress.cancel()
            released.signal()
        }
        let error = await #expect(throws: (any Error).self) { try await container.loadPersistentStores() }
        await canceller.value
        #expect((error as? CocoaError)?.code.rawValue == NSMigrationCancelledError)
        #expect(onMainThread.value == [false])
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(try Self.model(bundle, "Notes 2").isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    /// Cancelling the progress stops the staged migration inside the current stage (134120);
    /// the store is whole at the version the last finished stage reached, and the next add
    /// goes on from there.
    @Test func cancellingStopsTheStagesAndLeavesTheStoreAtTheLastVersionReached() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.store(current: "Notes 4", in: directory)
        let progress = Progress(totalUnitCount: 0)
        let manager = try Self.manager(bundle, calls: Calls([])) { label in
            if label == "required titles" { progress.cancel() }
        }
        let (_, error) = Self.open(url, with: try bundle.model(), manager: manager, progress: progress)
        #expect((error as? CocoaError)?.code.rawValue == NSMigrationCancelledError)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(try Self.model(bundle, "Notes 2").isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        let (container, retryError) = Self.open(url, with: try bundle.model(), manager: try Self.manager(bundle, calls: Calls([])))
        #expect(retryError == nil)
        #expect(try Self.notes(in: container.viewContext).map { ($0.value(forKey: "words") as? NSNumber)?.intValue } == [1, 2, 3])
    }
}
