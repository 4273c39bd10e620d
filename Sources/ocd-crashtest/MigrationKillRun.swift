import Foundation
import OCDSQLite
import OpenCoreData

/// Kills a process while it migrates a store, and checks that the store is then either the old
/// version or the new one, whole: SQLite's integrity check, the version hashes of exactly one of
/// the two models, and the bank's invariants read through that model. Then the store is opened
/// with the new model (migrating it if it was left at the old one) and checked again.
///
/// The two versions, in a `.xcdatamodeld` written into the run's directory: version 2 adds an
/// optional attribute to `Account` (a column added in place) and renames `Transfer.writer` to
/// `author` (the table rebuilt), and adds an entity.
///
/// With `--mapping custom`, a `.xcmappingmodel` beside the bundle maps the two versions, its
/// transfers through `TransferAuthorPolicy`: the store is migrated by an `NSMigrationManager`
/// into a new file, which then replaces it.
///
/// With `--mapping staged`, a third version adds `Account.tier`, and an `NSStagedMigrationManager`
/// takes the store through a lightweight stage (1 → 2) and a custom stage (2 → 3) whose
/// `didMigrateHandler` labels every account: the store may be left whole at any of the three
/// versions, and at version 3 either every account is labelled or the handler is recorded as
/// owed (and runs on the next add).
struct MigrationKillRun {
    /// How the versions are mapped.
    enum Mapping: String {
        /// Inferred by lightweight migration, in place.
        case inferred
        /// By a mapping model of the application's own, into a new file.
        case custom
        /// By an `NSStagedMigrationManager`'s stages.
        case staged

        /// The kind of migration, as the run's summary names it.
        var kind: String { self == .inferred ? "lightweight" : rawValue }
    }

    struct Options {
        var kills = 100
        var seed: UInt64 = 1
        var transfers = 20_000
        var mapping = Mapping.inferred
    }

    let options: Options

    func run() throws -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-crashtest-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try Self.writeBundle(in: directory)
        if options.mapping == .custom { try Self.writeMappingModel(in: directory) }
        let template = directory.appendingPathComponent("template/Bank.sqlite")
        try fillTemplate(at: template, bundle: bundle)
        let duration = try migrationSeconds(of: template, bundle: bundle, in: directory.appendingPathComponent("timing"))

        var random = SplitMix(seed: options.seed)
        var failures = 0
        var left: [String: Int] = [:]
        for round in 1...options.kills {
            let store = try copy(template, to: directory.appendingPathComponent("round-\(round)"))
            let migrator = try startMigrator(store: store, bundle: bundle)
            // Anywhere from before the store is opened to after the migration committed.
            usleep(useconds_t(Double(random.next() % 1_000) / 1_000 * duration * 1.3 * 1_000_000))
            kill(migrator.processIdentifier, SIGKILL)
            migrator.waitUntilExit()
            switch try check(store, bundle: bundle) {
            case .failure(let problem):
                failures += 1
                print("kill \(round): \(problem)")
            case .success(let version):
                left[version, default: 0] += 1
            }
            try? FileManager.default.removeItem(at: store.deletingLastPathComponent())
        }
        let versions = Self.versions(for: options.mapping)
        let leftAt = versions.map { "\(left[$0] ?? 0) at \"\($0)\"" }.joined(separator: ", ")
        print("\(options.kills) kills during \(options.mapping.kind) migration (\(String(format: "%.0f", duration * 1000)) ms each), "
              + "left \(leftAt), \(failures) failures")
        return failures == 0
    }

    // MARK: The migrating child

    /// Opens the store with the newest model, migrating it, and exits.
    static func migrate(store: URL, bundle: URL, mapping: Mapping) throws {
        let model = try Self.model(versions(for: mapping).last!, in: bundle)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store,
                                           options: try migrationOptions(for: mapping, bundle: bundle))
    }

    private func startMigrator(store: URL, bundle: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = ["migrator", store.path, bundle.path, options.mapping.rawValue]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    // MARK: Checking

    /// Which version the store is whole at, or what is wrong with it.
    private func check(_ store: URL, bundle: URL) throws -> Result<String, Problem> {
        var configuration = SQLiteConnection.Configuration()
        configuration.createIfMissing = false
        let integrity = try SQLiteConnection(path: store.path, configuration: configuration)
            .rows("PRAGMA integrity_check").compactMap { $0.first?.stringValue }
        guard integrity == ["ok"] else { return .failure(Problem("integrity_check: \(integrity.joined(separator: "; "))")) }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store, options: nil)
        let versions = Self.versions(for: options.mapping)
        let fitting = try versions.filter { version in
            try Self.model(version, in: bundle).isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
        }
        guard fitting.count == 1, let version = fitting.first, let newest = versions.last else {
            return .failure(Problem("the store's hashes fit \(fitting.isEmpty ? "no version" : "several versions: \(fitting)")"))
        }
        // At the staged run's last version, the custom stage's handler is done or recorded as owed.
        let handlerOwed = metadata[StagedMigration.pendingHandlerKey] != nil
        let labelsExpected = options.mapping == .staged && version == newest && !handlerOwed
        if let problem = try checkBank(store, model: try Self.model(version, in: bundle), options: [:], labelled: labelsExpected) {
            return .failure(Problem("left at \(version): \(problem)"))
        }
        // Whatever the kill left, the newest version opens it (migrating the rest of the way now).
        if let problem = try checkBank(store, model: try Self.model(newest, in: bundle),
                                       options: try Self.migrationOptions(for: options.mapping, bundle: bundle), labelled: options.mapping == .staged) {
            return .failure(Problem("opened with \(newest) after the kill: \(problem)"))
        }
        let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store, options: nil)
        if after[StagedMigration.pendingHandlerKey] != nil {
            return .failure(Problem("opened with \(newest) after the kill: the custom stage's handler is still recorded as owed"))
        }
        return .success(version)
    }

    /// The bank's invariants through `model`; with `labelled`, every account's label too.
    private func checkBank(_ store: URL, model: NSManagedObjectModel, options storeOptions: [AnyHashable: Any], labelled: Bool) throws -> String? {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: storeOptions)
        defer { try? coordinator.remove(coordinator.persistentStores[0]) }
        let (problem, transfers) = try BankStore(url: store, model: model).check(on: coordinator)
        if let problem { return problem }
        if labelled, let unlabelled = try Self.unlabelledAccounts(on: coordinator), unlabelled > 0 {
            return "\(unlabelled) accounts without the label the custom stage's handler gives"
        }
        return transfers == options.transfers ? nil : "\(transfers) transfers, expected \(options.transfers)"
    }

    /// The accounts whose label is not the one `labelAccounts` gives; nil before version 2.
    private static func unlabelledAccounts(on coordinator: NSPersistentStoreCoordinator) throws -> Int? {
        guard coordinator.managedObjectModel.entitiesByName["Account"]?.attributesByName["label"] != nil else { return nil }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account")).filter { account in
                account.value(forKey: "label") as? String != label(of: account)
            }.count
        }
    }

    private static func label(of account: NSManagedObject) -> String {
        "account \((account.value(forKey: "number") as? Int64) ?? -1)"
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: Setup

    static let oldVersion = "Bank", newVersion = "Bank 2", stagedVersion = "Bank 3"

    /// The versions a run migrates through, oldest first.
    static func versions(for mapping: Mapping) -> [String] {
        mapping == .staged ? [oldVersion, newVersion, stagedVersion] : [oldVersion, newVersion]
    }

    /// The options of an add that migrates: with the stages for a staged run.
    static func migrationOptions(for mapping: Mapping, bundle: URL) throws -> [AnyHashable: Any] {
        var options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
        if mapping == .staged { options[NSPersistentStoreStagedMigrationManagerOptionKey] = try stages(bundle: bundle) }
        return options
    }

    /// A lightweight stage from version 1 to 2, then a custom stage to version 3 whose
    /// `didMigrateHandler` labels every account, in one save.
    static func stages(bundle: URL) throws -> NSStagedMigrationManager {
        let (v1, v2, v3) = (try model(oldVersion, in: bundle), try model(newVersion, in: bundle), try model(stagedVersion, in: bundle))
        let labels = NSCustomMigrationStage(migratingFrom: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum),
                                            to: NSManagedObjectModelReference(model: v3, versionChecksum: v3.versionChecksum))
        labels.label = "account labels"
        labels.didMigrateHandler = { manager, _ in
            guard let container = manager.container else { return }
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for account in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account")) {
                    account.setValue(label(of: account), forKey: "label")
                }
                try context.save()
            }
        }
        return NSStagedMigrationManager([NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum]), labels])
    }

    static func model(_ version: String, in bundle: URL) throws -> NSManagedObjectModel {
        try NSManagedObjectModel(validatingContentsOf: bundle.appendingPathComponent("\(version).xcdatamodel"))
    }

    /// The old version's store: the accounts and `options.transfers` transfers between them.
    private func fillTemplate(at url: URL, bundle: URL) throws {
        let store = BankStore(url: url, model: try Self.model(Self.oldVersion, in: bundle))
        try store.create()
        let context = try store.open()
        var random = SplitMix(seed: options.seed ^ 0xC0FFEE)
        try context.performAndWait {
            let accounts = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account"))
            for _ in 0..<options.transfers {
                Writer.transfer(between: accounts, by: 0, random: &random, in: context)
            }
            try context.save()
            if let coordinator = context.persistentStoreCoordinator {
                for store in coordinator.persistentStores { try coordinator.remove(store) }
            }
        }
    }

    /// How long one migration of the template takes here, to spread the kills over it.
    private func migrationSeconds(of template: URL, bundle: URL, in directory: URL) throws -> Double {
        let store = try copy(template, to: directory)
        let start = Date()
        let migrator = try startMigrator(store: store, bundle: bundle)
        migrator.waitUntilExit()
        guard migrator.terminationStatus == 0 else { throw Problem("the migrating child failed with status \(migrator.terminationStatus)") }
        return Date().timeIntervalSince(start)
    }

    /// A copy of the store (with its `-wal` and `-shm`, if any) in a directory of its own.
    private func copy(_ store: URL, to directory: URL) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let target = directory.appendingPathComponent(store.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store.path + suffix) {
            try FileManager.default.copyItem(atPath: store.path + suffix, toPath: target.path + suffix)
        }
        return target
    }

    /// `Bank.xcdatamodeld`: version "Bank" is `BankModel`'s; "Bank 2" adds `Account.label`,
    /// renames `Transfer.writer` to `author` and adds `Audit`; "Bank 3" adds `Account.tier`.
    static func writeBundle(in directory: URL) throws -> URL {
        let bundle = directory.appendingPathComponent("Bank.xcdatamodeld")
        let account = """
            <attribute name="number" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="balance" attributeType="Integer 64" usesScalarValueType="YES"/>
            <relationship name="outgoing" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Transfer" inverseName="from" inverseEntity="Transfer"/>
            <relationship name="incoming" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Transfer" inverseName="to" inverseEntity="Transfer"/>
            <uniquenessConstraints><uniquenessConstraint><constraint value="number"/></uniquenessConstraint></uniquenessConstraints>
            """
        let transfer = """
            <attribute name="amount" attributeType="Integer 64" usesScalarValueType="YES"/>
            <relationship name="from" maxCount="1" deletionRule="Nullify" destinationEntity="Account" inverseName="outgoing" inverseEntity="Account"/>
            <relationship name="to" maxCount="1" deletionRule="Nullify" destinationEntity="Account" inverseName="incoming" inverseEntity="Account"/>
            """
        let versions = [
            (oldVersion, """
                <entity name="Account" syncable="YES">\(account)</entity>
                <entity name="Transfer" syncable="YES">\(transfer)<attribute name="writer" attributeType="Integer 64" usesScalarValueType="YES"/></entity>
                """),
            (newVersion, """
                <entity name="Account" syncable="YES">\(account)<attribute name="label" optional="YES" attributeType="String"/></entity>
                <entity name="Transfer" syncable="YES">\(transfer)<attribute name="author" attributeType="Integer 64" usesScalarValueType="YES" elementID="writer"/></entity>
                <entity name="Audit" syncable="YES"><attribute name="note" optional="YES" attributeType="String"/></entity>
                """),
            (stagedVersion, """
                <entity name="Account" syncable="YES">\(account)<attribute name="label" optional="YES" attributeType="String"/>\
                <attribute name="tier" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/></entity>
                <entity name="Transfer" syncable="YES">\(transfer)<attribute name="author" attributeType="Integer 64" usesScalarValueType="YES" elementID="writer"/></entity>
                <entity name="Audit" syncable="YES"><attribute name="note" optional="YES" attributeType="String"/></entity>
                """),
        ]
        for (version, entities) in versions {
            let folder = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
                \(entities)
                </model>
                """.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        return bundle
    }

    /// `Bank1to2.xcmappingmodel`: accounts copied; transfers through `TransferAuthorPolicy`.
    static func writeMappingModel(in directory: URL) throws {
        let mapping = directory.appendingPathComponent("Bank1to2.xcmappingmodel")
        try FileManager.default.createDirectory(at: mapping, withIntermediateDirectories: true)
        func property(_ id: String, _ kind: String, _ name: String, of owner: String) -> String {
            """
            <object type="XDDEV\(kind)MAPPING" id="\(id)"><attribute name="name" type="string">\(name)</attribute>\
            <attribute name="autogenerateexpression" type="bool">1</attribute>\
            <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="\(owner)"></relationship></object>
            """
        }
        let xml = """
            <?xml version="1.0" standalone="yes"?>
            <database>
            \(property("z10", "ATTRIBUTE", "number", of: "z2"))
            \(property("z11", "ATTRIBUTE", "balance", of: "z2"))
            \(property("z12", "RELATIONSHIP", "outgoing", of: "z2"))
            \(property("z13", "RELATIONSHIP", "incoming", of: "z2"))
            \(property("z20", "ATTRIBUTE", "amount", of: "z3"))
            \(property("z21", "RELATIONSHIP", "from", of: "z3"))
            \(property("z22", "RELATIONSHIP", "to", of: "z3"))
            <object type="XDDEVENTITYMAPPING" id="z2"><attribute name="sourcename" type="string">Account</attribute>\
            <attribute name="destinationname" type="string">Account</attribute><attribute name="mappingnumber" type="int16">1</attribute>\
            <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z10 z11"></relationship>\
            <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="z12 z13"></relationship></object>
            <object type="XDDEVENTITYMAPPING" id="z3"><attribute name="sourcename" type="string">Transfer</attribute>\
            <attribute name="destinationname" type="string">Transfer</attribute><attribute name="mappingnumber" type="int16">2</attribute>\
            <attribute name="migrationpolicyclassname" type="string">\(String(reflecting: TransferAuthorPolicy.self))</attribute>\
            <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z20"></relationship>\
            <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="z21 z22"></relationship></object>
            <object type="XDDEVMAPPINGMODEL" id="z1"><attribute name="sourcemodelpath" type="string">Bank.xcdatamodeld/Bank.xcdatamodel</attribute>\
            <attribute name="destinationmodelpath" type="string">Bank.xcdatamodeld/Bank 2.xcdatamodel</attribute>\
            <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z2 z3"></relationship></object>
            </database>
            """
        try xml.write(to: mapping.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
    }
}

/// Carries a transfer's `writer` over as version 2's `author`, as an application's policy
/// would for a rename it did not mark in the model.
final class TransferAuthorPolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(forSource source: NSManagedObject, in mapping: NSEntityMapping,
                                             manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
        let transfer = manager.destinationInstances(forEntityMappingName: mapping.name ?? "", sourceInstances: [source])[0]
        transfer.setValue(source.value(forKey: "writer"), forKey: "author")
    }
}
