import Foundation
import CoreData

extension APISignatures {
    static func nsMappingModel(_ check: inout Checks) {
        check("NSMappingModel") {
            let _: NSObject = NSMappingModel()
        }
        check("NSMappingModel.init()") {
            let _: NSMappingModel = NSMappingModel()
        }
        check("NSMappingModel.init(from:forSourceModel:destinationModel:)") {
            let _: ([Bundle]?, NSManagedObjectModel?, NSManagedObjectModel?) -> NSMappingModel?
                = NSMappingModel.init(from:forSourceModel:destinationModel:)
            let _: NSMappingModel? = NSMappingModel(from: nil, forSourceModel: NSManagedObjectModel(), destinationModel: NSManagedObjectModel())
        }
        check("NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)") {
            let _: (NSManagedObjectModel, NSManagedObjectModel) throws -> NSMappingModel
                = NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)
            let _: NSMappingModel = try NSMappingModel.inferredMappingModel(forSourceModel: NSManagedObjectModel(), destinationModel: NSManagedObjectModel())
        }
        check("NSMappingModel.init(contentsOf:)") {
            let _: (URL?) -> NSMappingModel? = NSMappingModel.init(contentsOf:)
            let _: NSMappingModel? = NSMappingModel(contentsOf: URL(fileURLWithPath: "/x.cdm"))
        }
        check("NSMappingModel.entityMappings") {
            let _: ReferenceWritableKeyPath<NSMappingModel, [NSEntityMapping]?> = \.entityMappings
            let model = NSMappingModel()
            let _: [NSEntityMapping] = model.entityMappings
            model.entityMappings = nil
        }
        check("NSMappingModel.entityMappingsByName") {
            let _: KeyPath<NSMappingModel, [String: NSEntityMapping]> = \.entityMappingsByName
        }
    }
}
