import CZlib
import Foundation
import OpenCoreDataCore

/// Writes a stored graph in the binary store's format (`Docs/BinaryStoreFormat.md`): a header
/// with the magic, the format version and the metadata, a body of entities, keys, rows and
/// memberships, and a CRC-32 of everything before it.
struct BinaryStoreWriter {
    private var bytes: [UInt8] = []

    /// The whole file.
    static func file(graph: StoredGraph, metadata: [String: Any], model: NSManagedObjectModel) throws -> [UInt8] {
        var body = BinaryStoreWriter()
        var rootNames: [ObjectIdentifier: String] = [:]
        for entity in model.entities where entity.superentity == nil { rootNames[ObjectIdentifier(entity)] = entity.name }
        try body.writeBody(graph, rootNames: rootNames)
        return try file(body: body.bytes, metadata: metadata)
    }

    /// The whole file around a body already written (setting the metadata keeps the body).
    static func file(body: some Collection<UInt8>, metadata: [String: Any]) throws -> [UInt8] {
        let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
        var file = BinaryStoreWriter()
        file.bytes.reserveCapacity(BinaryStoreFormat.headerSize + plist.count + body.count + 4)
        file.bytes += BinaryStoreFormat.magic
        file.fixed(BinaryStoreFormat.version)
        file.fixed(UInt32(plist.count))
        file.fixed(UInt64(body.count))
        file.bytes += plist
        file.bytes += body
        let checksum = file.bytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        file.fixed(checksum)
        return file.bytes
    }

    // MARK: The body

    private mutating func writeBody(_ graph: StoredGraph, rootNames: [ObjectIdentifier: String]) throws {
        // The entities that have rows, by name: the file says which attributes and to-ones each
        // row holds, in which order, so that it reads back by name whatever the model's order.
        var entities: [NSEntityDescription] = []
        var seen = Set<ObjectIdentifier>()
        for row in graph.allRows {
            if seen.insert(ObjectIdentifier(row.entity)).inserted { entities.append(row.entity) }
            for case let destination? in row.toOne where seen.insert(ObjectIdentifier(destination.entity)).inserted {
                entities.append(destination.entity)
            }
        }
        for members in graph.toManyMembers.values {
            for list in members.values {
                for member in list where seen.insert(ObjectIdentifier(member.entity)).inserted { entities.append(member.entity) }
            }
        }
        entities.sort { ($0.name ?? "") < ($1.name ?? "") }
        var index: [ObjectIdentifier: Int] = [:]
        for (position, entity) in entities.enumerated() { index[ObjectIdentifier(entity)] = position }
        let layouts = entities.map(EntityColumns.init)

        varint(UInt64(entities.count))
        for (entity, columns) in zip(entities, layouts) {
            string(entity.name ?? "")
            varint(UInt64(columns.attributes.count))
            for attribute in columns.attributes { string(attribute.name) }
            varint(UInt64(columns.toOnes.count))
            for relationship in columns.toOnes { string(relationship.name) }
        }

        // By the root entity's name: a tree whose objects were all deleted keeps its last key,
        // so that keys are never handed out twice.
        let roots = Dictionary(graph.lastKeys.compactMap { root, key in
            rootNames[root].map { ($0, key) }
        }, uniquingKeysWith: max).sorted { $0.key < $1.key }
        varint(UInt64(roots.count))
        for (name, key) in roots {
            string(name)
            varint(UInt64(bitPattern: key))
        }

        var rowsByEntity = [[RowSnapshot]](repeating: [], count: entities.count)
        for row in graph.allRows { rowsByEntity[index[ObjectIdentifier(row.entity)]!].append(row) }
        for (rows, columns) in zip(rowsByEntity, layouts) {
            varint(UInt64(rows.count))
            for row in rows.sorted(by: { $0.primaryKey < $1.primaryKey }) {
                varint(UInt64(bitPattern: row.primaryKey))
                varint(UInt64(bitPattern: row.version))
                for attribute in columns.attributes { try value(row.values[attribute.attributeSlot], of: attribute) }
                for relationship in columns.toOnes {
                    reference(row.toOne[relationship.relationshipSlot], index: index, graph: graph)
                }
            }
        }

        let memberships = graph.toManyMembers.compactMap { identity, members in
            Self.relationship(identity, in: entities).map { ($0, members) }
        }
        varint(UInt64(memberships.count))
        for (relationship, members) in memberships.sorted(by: { Self.name(of: $0.0) < Self.name(of: $1.0) }) {
            string(relationship.entity?.name ?? "")
            string(relationship.name)
            let sources = members.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
            varint(UInt64(sources.count))
            for (source, list) in sources {
                varint(UInt64(bitPattern: source))
                varint(UInt64(list.lazy.filter { graph.holds($0) }.count))
                for member in list where graph.holds(member) { reference(member, index: index, graph: graph) }
            }
        }
    }

    /// The relationship an identity of the graph's memberships stands for, among those of the
    /// entities written (a membership's source is always one of them).
    private static func relationship(_ identity: ObjectIdentifier, in entities: [NSEntityDescription]) -> NSRelationshipDescription? {
        for entity in entities {
            if let found = entity.layout.relationships.first(where: { ObjectIdentifier($0) == identity }) { return found }
        }
        return nil
    }

    private static func name(of relationship: NSRelationshipDescription) -> String {
        "\(relationship.entity?.name ?? "").\(relationship.name)"
    }

    /// An object: its entity's position in the file plus one, and its key; 0 and 0 for none. A
    /// destination the graph does not hold (deleted through a relationship without inverse, as
    /// a SQLite store's foreign key then reads as no object) is written as none.
    private mutating func reference(_ id: NSManagedObjectID?, index: [ObjectIdentifier: Int], graph: StoredGraph) {
        guard let id, graph.holds(id), let position = index[ObjectIdentifier(id.entity)] else {
            varint(0)
            varint(0)
            return
        }
        varint(UInt64(position + 1))
        varint(UInt64(bitPattern: id.primaryKey!))
    }


    // MARK: Values

    private mutating func value(_ value: PrimitiveValue, of attribute: NSAttributeDescription) throws {
        switch value {
        case .null: tag(.null)
        case .integer(let number):
            tag(.integer)
            varint(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
        case .double(let number):
            tag(.double)
            fixed(number.bitPattern)
        case .bool(let flag): tag(flag ? .true : .false)
        case .string(let text):
            tag(.string)
            string(text)
        case .date(let date):
            tag(.date)
            fixed(date.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let data):
            tag(.data)
            varint(UInt64(data.count))
            bytes += data
        case .externalData(let external):
            try self.value(.data(try external.data()), of: attribute)
        case .uuid(let uuid):
            tag(.uuid)
            withUnsafeBytes(of: uuid.uuid) { bytes += $0 }
        case .url(let url):
            tag(.url)
            string(url.absoluteString)
        case .decimal(let decimal):
            // Its exact decimal text: a binary double would round it.
            tag(.decimal)
            string(NSDecimalNumber(decimal: decimal).description(withLocale: Locale(identifier: "en_US_POSIX")))
        case .transformable(let box):
            tag(.transformable)
            let data = try TransformableCoding.encode(box.value, for: attribute)
            varint(UInt64(data.count))
            bytes += data
        }
    }

    private mutating func tag(_ tag: BinaryStoreFormat.Tag) { bytes.append(tag.rawValue) }

    private mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    private mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private mutating func fixed<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}

/// The attributes and to-ones a row of an entity holds in the file, in order: the persistent
/// ones of its layout.
struct EntityColumns {
    let attributes: [NSAttributeDescription]
    let toOnes: [NSRelationshipDescription]

    init(_ entity: NSEntityDescription) {
        attributes = entity.layout.attributes.filter { !$0.isTransient }
        toOnes = entity.layout.relationships.filter { !$0.isToMany && !$0.isTransient }
    }
}
