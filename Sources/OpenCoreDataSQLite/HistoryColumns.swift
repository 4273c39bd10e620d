import Foundation
import OpenCoreDataCore

/// The bit set of `ACHANGE.ZCOLUMNS` (see `SQLiteStore+History`).
package enum HistoryColumns {
    /// The persistent properties bits are numbered over: inherited ones included, in name order.
    package static func numbered(_ entity: NSEntityDescription) -> [NSPropertyDescription] {
        entity.propertiesByName.values.filter { ($0 is NSAttributeDescription || $0 is NSRelationshipDescription) && !$0.isTransient }
            .sorted { $0.name < $1.name }
    }

    /// The attributes of `entity` whose values a deletion keeps in history, in the order of the
    /// `ZTOMBSTONE<n>` columns: by name (as a public third-party description reports it).
    package static func tombstoneAttributes(of entity: NSEntityDescription) -> [NSAttributeDescription] {
        entity.layout.attributes.filter { $0.preservesValueInHistoryOnDeletion && !$0.isTransient }.sorted { $0.name < $1.name }
    }

    /// The bit of each attribute and relationship slot of one entity.
    package struct Map {
        package let attributeBits: [Int?]
        package let relationshipBits: [Int?]
        package let byteCount: Int
        package let hasToMany: Bool

        package init(_ entity: NSEntityDescription) {
            let bits = Dictionary(uniqueKeysWithValues: HistoryColumns.numbered(entity).enumerated().map { ($1.name, $0) })
            let layout = entity.layout
            attributeBits = layout.attributes.map { bits[$0.name] }
            relationshipBits = layout.relationships.map { bits[$0.name] }
            byteCount = (bits.count + 7) / 8
            hasToMany = layout.relationships.contains { $0.isToMany && !$0.isTransient }
        }

        package var noBits: [UInt8] { [UInt8](repeating: 0, count: byteCount) }

        package func bits(attributes: [Int], relationships: [Int]) -> [UInt8] {
            var bytes = noBits
            for slot in attributes { set(attributeBits[slot], in: &bytes) }
            for slot in relationships { set(relationshipBits[slot], in: &bytes) }
            return bytes
        }

        package func add(relationships: [Int], to bytes: inout [UInt8]) {
            for slot in relationships { set(relationshipBits[slot], in: &bytes) }
        }

        private func set(_ bit: Int?, in bytes: inout [UInt8]) {
            guard let bit else { return }
            bytes[bit / 8] |= 0x80 >> UInt8(bit % 8)
        }
    }

    /// Maps made once per entity per save.
    package struct Maps {
        private var maps: [ObjectIdentifier: Map] = [:]
        private var last: (ObjectIdentifier, Map)?

        package mutating func map(for entity: NSEntityDescription) -> Map {
            let id = ObjectIdentifier(entity)
            if let last, last.0 == id { return last.1 }
            let map = maps[id] ?? Map(entity)
            maps[id] = map
            last = (id, map)
            return map
        }
    }

    /// The properties `bits` stands for, over an entity's `numbered` properties.
    package static func properties(in bits: Data, numbered properties: [NSPropertyDescription]) -> Set<NSPropertyDescription> {
        var chosen = Set<NSPropertyDescription>()
        for (offset, byte) in bits.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                let index = offset * 8 + bit
                if index < properties.count { chosen.insert(properties[index]) }
            }
        }
        return chosen
    }
}
