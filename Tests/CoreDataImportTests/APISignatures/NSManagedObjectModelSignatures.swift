import Foundation
import CoreData

extension APISignatures {
    static func nsManagedObjectModel(_ check: inout Checks) {
        check("NSManagedObjectModel.copy(with:)") {
            let _: (NSManagedObjectModel) -> (NSZone?) -> Any = NSManagedObjectModel.copy(with:)
            let _: any NSCopying.Type = NSManagedObjectModel.self
        }
        check("NSManagedObjectModel.init(coder:)") {
            let _: (NSCoder) -> NSManagedObjectModel? = NSManagedObjectModel.init(coder:)
            let _: any NSSecureCoding.Type = NSManagedObjectModel.self
        }
        check("NSManagedObjectModel.encode(with:)") {
            let _: (NSManagedObjectModel) -> (NSCoder) -> Void = NSManagedObjectModel.encode(with:)
        }
        check("NSManagedObjectModel.checksumsForVersionedModel(at:)") {
            let _: (URL) throws -> [String: String] = NSManagedObjectModel.checksumsForVersionedModel(at:)
        }
        check("NSManagedObjectModel") {
            let _: NSObject = NSManagedObjectModel()
        }
        check("NSManagedObjectModel.localizationDictionary") {
            let _: ReferenceWritableKeyPath<NSManagedObjectModel, [String: String]?> = \.localizationDictionary
        }
        check("NSManagedObjectModel.init()") {
            let _: NSManagedObjectModel = NSManagedObjectModel()
        }
        check("NSManagedObjectModel.init(contentsOf:)") {
            let _: NSManagedObjectModel? = NSManagedObjectModel(contentsOf: URL(fileURLWithPath: "/x.momd"))
        }
        check("NSManagedObjectModel.mergedModel(from:)") {
            let _: ([Bundle]?) -> NSManagedObjectModel? = NSManagedObjectModel.mergedModel(from:)
            let _: NSManagedObjectModel? = NSManagedObjectModel.mergedModel(from: nil)
        }
        check("NSManagedObjectModel.init(byMerging:)") {
            let _: NSManagedObjectModel? = NSManagedObjectModel(byMerging: [NSManagedObjectModel()])
            let none: [NSManagedObjectModel]? = nil
            let _: NSManagedObjectModel? = NSManagedObjectModel(byMerging: none)
        }
        check("NSManagedObjectModel.init(byMerging:forStoreMetadata:)") {
            let _: ([NSManagedObjectModel], [String: Any]) -> NSManagedObjectModel? = NSManagedObjectModel.init(byMerging:forStoreMetadata:)
        }
        check("NSManagedObjectModel.mergedModel(from:forStoreMetadata:)") {
            let _: ([Bundle]?, [String: Any]) -> NSManagedObjectModel? = NSManagedObjectModel.mergedModel(from:forStoreMetadata:)
        }
        check("NSManagedObjectModel.entitiesByName") {
            let _: KeyPath<NSManagedObjectModel, [String: NSEntityDescription]> = \.entitiesByName
        }
        check("NSManagedObjectModel.entities") {
            let _: ReferenceWritableKeyPath<NSManagedObjectModel, [NSEntityDescription]> = \.entities
        }
        check("NSManagedObjectModel.configurations") {
            let _: KeyPath<NSManagedObjectModel, [String]> = \.configurations
        }
        check("NSManagedObjectModel.entities(forConfigurationName:)") {
            let _: (NSManagedObjectModel) -> (String?) -> [NSEntityDescription]? = NSManagedObjectModel.entities(forConfigurationName:)
        }
        check("NSManagedObjectModel.setEntities(_:forConfigurationName:)") {
            let _: (NSManagedObjectModel) -> ([NSEntityDescription], String) -> Void = NSManagedObjectModel.setEntities(_:forConfigurationName:)
        }
        check("NSManagedObjectModel.setFetchRequestTemplate(_:forName:)") {
            let _: (NSManagedObjectModel) -> (NSFetchRequest<any NSFetchRequestResult>?, String) -> Void = NSManagedObjectModel.setFetchRequestTemplate(_:forName:)
        }
        check("NSManagedObjectModel.fetchRequestTemplate(forName:)") {
            let _: (NSManagedObjectModel) -> (String) -> NSFetchRequest<any NSFetchRequestResult>? = NSManagedObjectModel.fetchRequestTemplate(forName:)
        }
        check("NSManagedObjectModel.fetchRequestFromTemplate(withName:substitutionVariables:)") {
            let _: (NSManagedObjectModel) -> (String, [String: Any]) -> NSFetchRequest<any NSFetchRequestResult>? = NSManagedObjectModel.fetchRequestFromTemplate(withName:substitutionVariables:)
        }
        check("NSManagedObjectModel.fetchRequestTemplatesByName") {
            let _: KeyPath<NSManagedObjectModel, [String: NSFetchRequest<any NSFetchRequestResult>]> = \.fetchRequestTemplatesByName
        }
        check("NSManagedObjectModel.versionIdentifiers") {
            let _: ReferenceWritableKeyPath<NSManagedObjectModel, Set<AnyHashable>> = \.versionIdentifiers
        }
        check("NSManagedObjectModel.isConfiguration(withName:compatibleWithStoreMetadata:)") {
            let _: (NSManagedObjectModel) -> (String?, [String: Any]) -> Bool = NSManagedObjectModel.isConfiguration(withName:compatibleWithStoreMetadata:)
        }
        check("NSManagedObjectModel.entityVersionHashesByName") {
            let _: KeyPath<NSManagedObjectModel, [String: Data]> = \.entityVersionHashesByName
        }
        check("NSManagedObjectModel.versionChecksum") {
            let _: KeyPath<NSManagedObjectModel, String> = \.versionChecksum
        }
    }
}
