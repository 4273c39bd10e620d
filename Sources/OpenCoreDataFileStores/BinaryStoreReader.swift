import CZlib
import Foundation
import OpenCoreDataCore

/// Reads a file in the binary store's format (`Docs/BinaryStoreFormat.md`). Every length and
/// reference is checked: a truncated or damaged file is an error naming the file and what is
/// wrong, never a crash.
struct BinaryStoreReader {
    let url: URL
    private let file: Data
    /// How transformable values' keyed archives are decoded.
    let transformables: TransformableDecoding

    /// Securely, with Foundation's property-list classes, the attribute's value class and these
    /// (`NSBinaryStoreSecureDecodingClasses`); or without checking classes
    /// (`NSBinaryStoreInsecureDecodingCompatibilityOption`).
    enum TransformableDecoding {
        case secure(allowing: [AnyClass])
        case insecure
    }

    init(url: URL, transformables: TransformableDecoding = .secure(allowing: [])) throws {
        self.url = url
        self.transformables = transformables
        do {
            file = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw CoreDataError.store(.persistentStoreOpen, "Can't read the binary store \(url.path): \(error.localizedDescription)",
                                      url: url, underlying: error)
        }
    }

    /// The header's lengths, checked against the file's size.
    private func layout() throws -> (metadata: Range<Int>, body: Range<Int>) {
        guard file.count >= BinaryStoreFormat.headerSize, file.prefix(8).elementsEqual(BinaryStoreFormat.magic) else {
            throw notAStore()
        }
        let version: UInt32 = fixed(at: 8)
        guard version == BinaryStoreFormat.version else {
            throw corrupt("its format version is \(version); this OpenCoreData reads version \(BinaryStoreFormat.version)")
        }
        let metadataLength = Int(fixed(at: 12) as UInt32)
        let bodyLength = fixed(at: 16) as UInt64
        let metadataStart = BinaryStoreFormat.headerSize
        // In 64-bit unsigned arithmetic: a damaged length must not overflow.
        let expected = UInt64(metadataStart + metadataLength + 4).addingReportingOverflow(bodyLength)
        guard !expected.overflow, expected.partialValue == UInt64(file.count) else {
            throw corrupt("it is \(file.count) bytes long, and its header says \(expected.overflow ? "more than 2^64" : String(expected.partialValue)) (truncated or damaged)")
        }
        let bodyStart = metadataStart + metadataLength
        return (metadataStart..<bodyStart, bodyStart..<file.count - 4)
    }

    func fixed<T: FixedWidthInteger>(at offset: Int) -> T {
        var value = T.zero
        withUnsafeMutableBytes(of: &value) { raw in
            file.withUnsafeBytes { source in raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + MemoryLayout<T>.size])) }
        }
        return T(littleEndian: value)
    }

    init(url: URL, file: Data, transformables: TransformableDecoding = .secure(allowing: [])) {
        self.url = url
        self.file = file
        self.transformables = transformables
    }

    func metadata() throws -> [String: Any] {
        let range = try layout().metadata
        guard let metadata = try? PropertyListSerialization.propertyList(from: file.subdata(in: range), format: nil) as? [String: Any] else {
            throw corrupt("its metadata is not a property list")
        }
        return metadata
    }

    /// The metadata of the file at `url`, reading only its header and metadata (the objects
    /// are not read, and the checksum over them is not checked).
    static func metadata(at url: URL) throws -> [String: Any] {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw CoreDataError.store(.persistentStoreOpen, "Can't read the binary store \(url.path): \(error.localizedDescription)",
                                      url: url, underlying: error)
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: BinaryStoreFormat.headerSize)) ?? Data()
        let size = (try? handle.seekToEnd()).map(Int.init) ?? 0
        let probe = BinaryStoreReader(url: url, file: header)
        guard header.count == BinaryStoreFormat.headerSize, header.prefix(8).elementsEqual(BinaryStoreFormat.magic) else {
            throw probe.notAStore()
        }
        let metadataLength = Int(probe.fixed(at: 12) as UInt32)
        guard BinaryStoreFormat.headerSize + metadataLength + 4 <= size else {
            throw probe.corrupt("it is \(size) bytes long, shorter than its header says (truncated)")
        }
        try? handle.seek(toOffset: UInt64(BinaryStoreFormat.headerSize))
        let metadata = (try? handle.read(upToCount: metadataLength)) ?? Data()
        // The header and the metadata, with a body of the length the header gives, for the checks.
        var head = header
        head.append(metadata)
        let bodyLength = probe.fixed(at: 16) as UInt64
        let expected = UInt64(BinaryStoreFormat.headerSize + metadataLength + 4).addingReportingOverflow(bodyLength)
        guard !expected.overflow, expected.partialValue == UInt64(size) else {
            throw probe.corrupt("it is \(size) bytes long, and its header says \(expected.overflow ? "more than 2^64" : String(expected.partialValue)) (truncated or damaged)")
        }
        let version: UInt32 = probe.fixed(at: 8)
        guard version == BinaryStoreFormat.version else {
            throw probe.corrupt("its format version is \(version); this OpenCoreData reads version \(BinaryStoreFormat.version)")
        }
        return try BinaryStoreReader(url: url, file: head).metadataOfHead(length: metadataLength)
    }

    private func metadataOfHead(length: Int) throws -> [String: Any] {
        let range = BinaryStoreFormat.headerSize..<BinaryStoreFormat.headerSize + length
        guard file.count == range.upperBound,
              let metadata = try? PropertyListSerialization.propertyList(from: file.subdata(in: range), format: nil) as? [String: Any] else {
            throw corrupt("its metadata is not a property list")
        }
        return metadata
    }

    /// The body's bytes, after checking the file's checksum.
    func body() throws -> Data {
        let range = try layout().body
        let stored: UInt32 = fixed(at: file.count - 4)
        let computed = file.withUnsafeBytes { raw in
            UInt32(crc32(0, raw.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(file.count - 4)))
        }
        guard stored == computed else { throw corrupt("its checksum does not match its contents (damaged)") }
        return file.subdata(in: range)
    }

    func graph(model: NSManagedObjectModel, store: NSPersistentStore) throws -> StoredGraph {
        let body = try body()
        return try body.withUnsafeBytes { raw in
            var cursor = Cursor(bytes: raw, reader: self)
            return try cursor.graph(model: model, store: store)
        }
    }

    /// A file that is not a binary store at all (as Core Data answers for a file of another type).
    func notAStore() -> CocoaError {
        CoreDataError.store(.persistentStoreInvalidType, "The file \(url.path) is not a binary store (it does not begin with OCDBIN)", url: url)
    }

    /// A transformable value decoded securely; one holding a class not allowed stops the store
    /// from opening, with an error naming the file, the entity and the attribute.
    func decodeSecurely(_ data: Data, for attribute: NSAttributeDescription, allowing classes: [AnyClass]) throws -> Any? {
        do {
            return try TransformableCoding.decodeSecurely(data, for: attribute, allowing: classes)
        } catch let error as TransformableCodingError {
            throw CoreDataError.store(.persistentStoreOpen, "The binary store \(url.path) can't be read: \(error)", url: url, underlying: error)
        }
    }

    func corrupt(_ reason: String) -> CocoaError {
        CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path,
                                                    NSLocalizedDescriptionKey: "The binary store \(url.path) can't be read: \(reason)"])
    }
}

/// A position in the body, reading forward; every read checks that the bytes are there.
private struct Cursor {
    let bytes: UnsafeRawBufferPointer
    let reader: BinaryStoreReader
    var offset = 0

    init(bytes: UnsafeRawBufferPointer, reader: BinaryStoreReader) {
        self.bytes = bytes
        self.reader = reader
    }

    /// A file entity: the model's entity of that name, and where each of the file's columns goes.
    struct FileEntity {
        let entity: NSEntityDescription
        let rootIdentity: ObjectIdentifier
        let attributes: [NSAttributeDescription?]
        let toOneSlots: [Int?]
    }

    mutating func graph(model: NSManagedObjectModel, store: NSPersistentStore) throws -> StoredGraph {
        var entities: [FileEntity] = []
        let entityCount = try count()
        for _ in 0..<entityCount {
            let name = try string()
            guard let entity = model.entitiesByName[name] else {
                throw reader.corrupt("it holds objects of the entity \(name), which the model does not have")
            }
            let properties = entity.layout.propertiesByName
            let attributes = try (0..<count()).map { _ in properties[try string()] as? NSAttributeDescription }
            let toOneSlots = try (0..<count()).map { _ in (properties[try string()] as? NSRelationshipDescription)?.relationshipSlot }
            entities.append(FileEntity(entity: entity, rootIdentity: ObjectIdentifier(entity.rootEntity), attributes: attributes, toOneSlots: toOneSlots))
        }
        var graph = StoredGraph()
        // Every object a to-one or a membership names, checked once the whole file is read.
        var references: [NSManagedObjectID] = []
        for _ in 0..<(try count()) {
            let name = try string()
            guard let root = model.entitiesByName[name], root.superentity == nil else {
                throw reader.corrupt("it holds the last key of \(name), which is not a root entity of the model")
            }
            graph.lastKeys[ObjectIdentifier(root)] = try key()
        }
        let readAt = SnapshotClock.now()
        for fileEntity in entities {
            let layout = fileEntity.entity.layout
            // Copied for each row (made once here: making an array of these types per row costs
            // a generic metadata lookup each time).
            let noValues = [PrimitiveValue](repeating: .null, count: layout.attributes.count)
            let noToOnes = [NSManagedObjectID?](repeating: nil, count: layout.relationships.count)
            let rowCount = try count()
            var table = graph.rows[fileEntity.rootIdentity] ?? [:]
            table.reserveCapacity(table.count + rowCount)
            for _ in 0..<rowCount {
                let key = try self.key()
                let version = Int64(bitPattern: try varint())
                var values = noValues
                for attribute in fileEntity.attributes {
                    let value = try self.value(for: attribute)
                    if let attribute { values[attribute.attributeSlot] = value }
                }
                var toOne = noToOnes
                for slot in fileEntity.toOneSlots {
                    let destination = try reference(in: entities, store: store)
                    if let slot, let destination {
                        try check(destination, of: layout.relationships[slot])
                        toOne[slot] = destination
                        references.append(destination)
                    }
                }
                guard table.updateValue(RowSnapshot(primaryKey: key, entity: fileEntity.entity, store: store, rootIdentity: fileEntity.rootIdentity,
                                                    version: version, values: values, toOne: toOne, readAt: readAt), forKey: key) == nil else {
                    throw reader.corrupt("two objects of \(fileEntity.entity.rootEntity.name ?? "?") have the key \(key)")
                }
            }
            graph.rows[fileEntity.rootIdentity] = table
        }
        for _ in 0..<(try count()) {
            let entityName = try string(), name = try string()
            guard let relationship = model.entitiesByName[entityName]?.layout.propertiesByName[name] as? NSRelationshipDescription,
                  relationship.isToMany else {
                throw reader.corrupt("it holds members of \(entityName).\(name), which is not a to-many relationship of the model")
            }
            var members: [Int64: [NSManagedObjectID]] = [:]
            for _ in 0..<(try count()) {
                let source = try key()
                members[source] = try (0..<count()).map { _ in
                    guard let member = try reference(in: entities, store: store) else { throw reader.corrupt("a member of \(entityName).\(name) is missing") }
                    try check(member, of: relationship)
                    references.append(member)
                    return member
                }
            }
            graph.toManyMembers[ObjectIdentifier(relationship)] = members
        }
        guard offset == bytes.count else { throw reader.corrupt("\(bytes.count - offset) bytes follow its last membership") }
        // Keys are handed out after the largest the file holds, whatever its last keys say.
        for (root, table) in graph.rows {
            if let largest = table.keys.max(), largest > graph.lastKeys[root] ?? 0 { graph.lastKeys[root] = largest }
        }
        for id in references where !graph.holds(id) {
            throw reader.corrupt("it refers to the object \(id.entity.name ?? "?") \(id.primaryKey ?? 0), which it does not hold")
        }
        return graph
    }

    // MARK: Reading values

    private mutating func reference(in entities: [FileEntity], store: NSPersistentStore) throws -> NSManagedObjectID? {
        let index = Int(clamping: try varint())
        let key = try self.key(allowingZero: index == 0)
        guard index > 0 else { return nil }
        guard index <= entities.count else { throw reader.corrupt("it refers to entity number \(index - 1) of \(entities.count)") }
        let entity = entities[index - 1]
        return NSManagedObjectID(entity: entity.entity, store: store, primaryKey: key, rootIdentity: entity.rootIdentity)
    }

    /// Refuses an object a relationship cannot lead to (another entity than its destination's).
    private func check(_ destination: NSManagedObjectID, of relationship: NSRelationshipDescription) throws {
        guard let expected = relationship.destinationEntity, !destination.entity.isKindOf(entity: expected) else { return }
        throw reader.corrupt("\(relationship.entity?.name ?? "?").\(relationship.name) refers to an object of \(destination.entity.name ?? "?"), not of \(expected.name ?? "?")")
    }

    private mutating func value(for attribute: NSAttributeDescription?) throws -> PrimitiveValue {
        guard let tag = BinaryStoreFormat.Tag(rawValue: try byte()) else {
            throw reader.corrupt("a value of \(attribute?.name ?? "an attribute") has the unknown type tag \(bytes[offset - 1])")
        }
        if let attribute, !BinaryStoreFormat.tag(tag, fits: attribute.attributeType) {
            throw reader.corrupt("the \(attribute.attributeType.modelName) attribute \(attribute.entity?.name ?? "?").\(attribute.name) has a value of type tag \(tag.rawValue)")
        }
        switch tag {
        case .null: return .null
        case .integer:
            let zigzag = try varint()
            return .integer(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
        case .double: return .double(Double(bitPattern: try fixed()))
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .string: return .string(try string())
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try fixed())))
        case .data: return .data(Data(try slice(count())))
        case .uuid:
            let raw = try slice(16)
            return .uuid(UUID(uuid: raw.loadUnaligned(as: uuid_t.self)))
        case .url:
            let text = try string()
            guard let url = URL(string: text) else { throw reader.corrupt("\(text) is not a URL") }
            return .url(url)
        case .decimal:
            let text = try string()
            guard let decimal = text == "NaN" ? Decimal.nan : Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw reader.corrupt("\(text) is not a decimal")
            }
            return .decimal(decimal)
        case .transformable:
            let data = Data(try slice(count()))
            guard let attribute else { return .null }
            // Bytes that cannot be decoded now (a transformer not registered yet) are kept as
            // they are, so that the next save does not lose them.
            let value = switch reader.transformables {
            case .insecure: TransformableCoding.decode(data, for: attribute)
            case .secure(let classes):
                try reader.decodeSecurely(data, for: attribute, allowing: classes)
            }
            return .transformable(TransformableValue(value: value ?? data))
        }
    }

    private mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw truncated() }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte()
            guard shift < 64 else { throw reader.corrupt("a number is longer than 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// A count of things that follow, which cannot exceed the bytes left.
    private mutating func count() throws -> Int {
        let value = try varint()
        guard value <= UInt64(bytes.count - offset) else { throw truncated() }
        return Int(value)
    }

    private mutating func key(allowingZero: Bool = false) throws -> Int64 {
        let key = Int64(bitPattern: try varint())
        guard key > 0 || (allowingZero && key == 0) else { throw reader.corrupt("an object has the key \(key)") }
        return key
    }

    private mutating func fixed() throws -> UInt64 {
        let raw = try slice(8)
        return UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
    }

    private mutating func slice(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count <= bytes.count - offset else { throw truncated() }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    private mutating func string() throws -> String {
        String(decoding: try slice(count()), as: UTF8.self)
    }

    private func truncated() -> CocoaError {
        reader.corrupt("its contents end in the middle of a value (truncated or damaged)")
    }
}
