import Foundation
import OpenCoreData

/// `ocd fetch STORE --entity NAME [--where FORMAT [ARG …]] [--sort KEY[:desc] …] [--limit N]
/// [--offset N] [--model PATH] [--json | --csv]`: the objects of one entity that a fetch request
/// returns, as a table (entity, URI, attributes, to-ones as URIs, to-manys as counts), JSON or
/// CSV. Without `--model` the store's own model is used; the store is opened read-only.
enum FetchCommand {
    static func run(_ arguments: [String]) -> Int32 {
        Output.exitCode {
            let options = try FetchOptions(arguments)
            try fetch(try CommandOptions.existing(options.storePath ?? ""), options: options)
        }
    }

    private static func fetch(_ url: URL, options: FetchOptions) throws {
        let (model, source) = try StoreCommand.model(for: url, modelPath: options.modelPath)
        let entityName = options.entityName ?? ""
        // The store checks the predicate's and the sort's key paths, naming the entity.
        guard let entity = model.entitiesByName[entityName] else {
            let names = model.entities.compactMap(\.name).sorted().joined(separator: ", ")
            throw CommandFailure("\(url.path): the model (\(source)) has no entity '\(entityName)'; it has \(names)")
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
        if let format = options.whereFormat {
            request.predicate = try NSPredicate(validatingFormat: format, argumentArray: options.whereArguments)
        }
        request.sortDescriptors = options.sortKeys.map { NSSortDescriptor(key: $0.key, ascending: $0.ascending) }
        request.fetchLimit = options.limit
        request.fetchOffset = options.offset
        let context = try StoreCommand.openReadOnly(url, model: model)
        let columns = FetchedObject.columns(of: entity)
        let objects: [FetchedObject] = try context.performAndWait {
            try context.fetch(request).map { try FetchedObject($0, columns: columns) }
        }
        switch options.format {
        case .json:
            try Output.printJSON(FetchReport(store: url.path, model: source, entity: entityName,
                                             predicate: request.predicate?.predicateFormat, objects: objects))
        case .csv:
            print(FetchedObject.csv(objects, columns: columns), terminator: "")
        case .table:
            print(FetchedObject.table(objects, columns: columns), terminator: "")
        }
    }

    /// The `--json` output; documented in Docs/ocd-json.md.
    struct FetchReport: Encodable {
        let store: String
        let model: String
        let entity: String
        let predicate: String?
        let objects: [FetchedObject]
    }
}
