import Foundation
import OpenCoreDataCore

/// One way a store file differs from the model it is opened with: what a migration has to
/// change, or why the store cannot be opened.
struct StoreDifference: Equatable {
    enum Kind: Equatable {
        /// The entity's version hash in the store's metadata is not the model's.
        case versionHash
        case entityOnlyInModel
        case entityOnlyInStore
        /// The entity has another `Z_ENT` in the store.
        case entityNumber
        case missingTable
        case missingJoinTable
        /// A column an attribute, a to-one, an order key or a join table needs.
        case missingColumn
        /// An attribute's column holds another type.
        case columnType
    }

    let kind: Kind
    let entity: String
    let property: String?
    /// The difference in a sentence, naming the entity and property.
    let description: String

    init(_ kind: Kind, entity: String, property: String? = nil, _ description: String) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.description = description
    }
}

/// A name the store uses where the schema, following the one store Core Data's rule is known
/// from, expected another; the schema takes the store's name, and the store still fits.
enum StoreNameAdoption {
    case joinTable(String, storeName: String)
    case column(String, storeName: String, table: SQLiteSchema.TableMapping)

    func apply(to schema: SQLiteSchema) {
        switch self {
        case .joinTable(let name, let storeName): schema.renameJoinTable(name, to: storeName)
        case .column(let name, let storeName, let table): schema.renameColumn(name, to: storeName, in: table)
        }
    }
}

/// What comparing a store with the model found (`StoreCompatibility.compare`).
struct StoreComparison {
    /// Every difference, in the order found: version hashes first, then structure.
    private(set) var differences: [StoreDifference] = []
    var adoptions: [StoreNameAdoption] = []

    /// Whether the store fits the model (once the adoptions are applied).
    var isCompatible: Bool { differences.isEmpty }

    /// Adds a difference, once: the hashes and the structure may find the same one.
    mutating func add(_ difference: StoreDifference) {
        if !differences.contains(difference) { differences.append(difference) }
    }

    static func += (comparison: inout StoreComparison, differences: [StoreDifference]) {
        for difference in differences { comparison.add(difference) }
    }

    /// Core Data's 134100 for an incompatible store, listing what differs (the first five, and
    /// how many more), with the first difference's entity and property in `userInfo`.
    func incompatibilityError(url: URL?) -> CocoaError? {
        guard let first = differences.first else { return nil }
        var info: [String: Any] = ["NSEntityNameKey": first.entity]
        if let property = first.property { info[NSValidationKeyErrorKey] = property }
        if let url { info[NSURLErrorKey] = url }
        let listed = differences.prefix(5).map(\.description).joined(separator: "; ")
        let more = differences.count > 5 ? "; and \(differences.count - 5) more" : ""
        return CoreDataError.make(.persistentStoreIncompatibleVersionHash,
                                  "The model used to open the store is incompatible with the one used to create it (\(url?.path ?? "store")): \(listed)\(more)",
                                  info)
    }
}
