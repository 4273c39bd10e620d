import Foundation
import OpenCoreData

/// `ocd store info|dump PATH [--model PATH] [--json]`: a SQLite store's metadata, entities and
/// objects. The store is opened read-only and left as it was. `ocd store convert` is
/// `ConvertCommand`.
enum StoreCommand {
    static func run(_ arguments: [String]) -> Int32 {
        guard let subcommand = arguments.first, ["info", "dump", "convert"].contains(subcommand) else {
            Output.fail(arguments.isEmpty ? "store needs a subcommand: info, dump or convert" : "unknown store subcommand '\(arguments[0])'")
            return 2
        }
        if subcommand == "convert" { return ConvertCommand.run(Array(arguments.dropFirst())) }
        return Output.exitCode {
            let options = try CommandOptions(Array(arguments.dropFirst()), allowsModel: true)
            let url = try options.existingPath(what: "store")
            if subcommand == "dump" { try dump(url, options: options) } else { try info(url, options: options) }
        }
    }

    // MARK: dump

    private static func dump(_ url: URL, options: CommandOptions) throws {
        let (model, source) = try model(for: url, modelPath: options.modelPath)
        let context = try openReadOnly(url, model: model)
        // Where the model came from, so that an inferred one (lower-case names, no to-manys) shows.
        if options.json {
            print("{\n  \"model\" : \(try jsonString(source)),\n  \"objects\" : [")
        } else {
            print("Model: \(source)")
        }
        var first = true
        try context.performAndWait {
            for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) where !entity.isAbstract {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
                request.includesSubentities = false
                request.fetchBatchSize = 500
                // In batches, in primary-key order: memory stays flat however large the store.
                for object in try context.fetchInBatches(request) {
                    let dumped = try DumpedObject(object)
                    if options.json {
                        let encoder = JSONEncoder()
                        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                        print((first ? "    " : "  , ") + String(decoding: try encoder.encode(dumped), as: UTF8.self))
                    } else {
                        print(dumped.text)
                    }
                    first = false
                    context.refresh(object, mergeChanges: false)
                }
            }
        }
        if options.json { print("  ],\n  \"store\" : \(try jsonString(url.path))\n}") }
    }

    // MARK: info

    private static func info(_ url: URL, options: CommandOptions) throws {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let stored = try? NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        var compatibility: StoreInfo.Compatibility?
        var opened: (context: NSManagedObjectContext, model: NSManagedObjectModel)?
        if let path = options.modelPath {
            let (model, _) = try model(for: url, modelPath: options.modelPath)
            let attempt = Result { try openReadOnly(url, model: model) }
            compatibility = StoreInfo.Compatibility(of: model, path: path, with: metadata, opened: attempt)
            if let context = try? attempt.get() { opened = (context, model) }
        }
        // Count with the given model when it fits, else with the store's own.
        if opened == nil, let model = stored?.model { opened = (try openReadOnly(url, model: model), model) }
        var counts: [StoreInfo.EntityCount] = []
        if let (context, counting) = opened {
            try context.performAndWait {
                for entity in counting.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
                    let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
                    request.includesSubentities = false
                    counts.append(StoreInfo.EntityCount(name: entity.name ?? "", parent: entity.superentity?.name,
                                                        count: try context.count(for: request)))
                }
            }
        }
        let report = StoreInfo(path: url.path, metadata: metadata, storedModel: stored?.source.rawValue,
                               compatibility: compatibility, entities: counts)
        if options.json { try Output.printJSON(report) } else { print(report.text) }
    }

    // MARK: Shared

    /// The model to read the store with: the one at `modelPath`, or else the one the store carries.
    static func model(for url: URL, modelPath: String?) throws -> (NSManagedObjectModel, String) {
        if let path = modelPath {
            return (try NSManagedObjectModel(validatingContentsOf: CommandOptions.existing(path)), path)
        }
        let stored = try NSPersistentStoreCoordinator.storedModelForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        switch stored.source {
        case .modelCache: return (stored.model, "the store's model cache")
        case .inferredFromTables: return (stored.model, "inferred from the store's tables")
        }
    }

    static func openReadOnly(_ url: URL, model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        registerStandInTransformers(for: model)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                               options: [NSReadOnlyPersistentStoreOption: true, OCDSQLiteReadImmutableOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The tool does not have the application's value transformers; for each one the model
    /// names and nobody registered, a stand-in hands the stored bytes through, so that they are
    /// printed (in base64) instead of nothing.
    static func registerStandInTransformers(for model: NSManagedObjectModel) {
        for entity in model.entities {
            for attribute in entity.properties.compactMap({ $0 as? NSAttributeDescription }) {
                guard let name = attribute.valueTransformerName, !name.isEmpty,
                      !name.hasPrefix("NS"),
                      ValueTransformer.valueTransformer(forName: NSValueTransformerName(name)) == nil else { continue }
                ValueTransformer.setValueTransformer(StoredBytesTransformer(), forName: NSValueTransformerName(name))
            }
        }
    }

    static func describe(_ error: Error) -> String {
        if let cocoa = error as? CocoaError, let message = cocoa.userInfo[NSLocalizedDescriptionKey] as? String { return message }
        return "\(error)"
    }

    /// Hands data through unchanged, both ways.
    final class StoredBytesTransformer: ValueTransformer, @unchecked Sendable {
        // @unchecked Sendable: no state.
        override func transformedValue(_ value: Any?) -> Any? { value }
        override func reverseTransformedValue(_ value: Any?) -> Any? { value }
    }

    private static func jsonString(_ text: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(text), as: UTF8.self)
    }
}
