import Foundation
import OpenCoreDataCore

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

    /// Core Data's 134100 for an incompatible store, listing what differs.
    func incompatibilityError(url: URL?) -> CocoaError? { StoreDifference.incompatibilityError(differences, url: url) }
}
