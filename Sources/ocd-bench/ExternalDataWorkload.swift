import Foundation
import OpenCoreData

/// WX, WXf and WXn: `photoCount` values of `imageSize` bytes in a binary attribute that allows
/// external storage (Docs/ExternalBinaryData.md), so each goes to a file of its own: saved in
/// one save (WX), then fetched and read in a new stack (WXf), or fetched with only the names
/// read (WXn: a list of photos), against raw SQLite keeping the same bytes in a BLOB column.
/// N is ignored.
enum ExternalDataWorkload {
    static let photoCount = 500
    static let imageSize = 256 * 1024

    /// Photo `i`'s bytes: a pattern of its own, so that no two files are alike.
    static func image(_ i: Int) -> Data {
        Data((0..<imageSize).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) })
    }

    /// What reading a value costs at least: one byte of every page, summed.
    static func touch(_ data: Data) -> Int {
        stride(from: 0, to: data.count, by: 4096).reduce(data.count) { $0 &+ Int(data[data.startIndex + $1]) }
    }

    static var expectedTouch: Int { (0..<photoCount).reduce(0) { $0 &+ touch(image($1)) } }

    static func model() -> NSManagedObjectModel {
        let photo = NSEntityDescription(name: "Photo")
        let image = NSAttributeDescription(name: "image", type: .binaryDataAttributeType)
        image.allowsExternalBinaryDataStorage = true
        photo.properties = [NSAttributeDescription(name: "name", type: .stringAttributeType), image]
        let model = NSManagedObjectModel()
        model.entities = [photo]
        return model
    }

    // MARK: Framework

    static func frameworkInsert(directory: URL, n: Int) throws -> Double {
        let images = (0..<photoCount).map(image)
        let stack = try BenchStack(directory: directory, model: model())
        return try Stopwatch.time { try insert(images, into: stack) }
    }

    static func frameworkFetch(directory: URL, n: Int) throws -> Double {
        let stack = try filledStack(in: directory)
        var total = 0
        let seconds = try Stopwatch.time {
            for photo in try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")) {
                total &+= touch(photo.value(forKey: "image") as? Data ?? Data())
            }
        }
        try RawWorkloads.expect(total == expectedTouch, "WXf", "read \(total), expected \(expectedTouch)")
        return seconds
    }

    static func frameworkFetchNames(directory: URL, n: Int) throws -> Double {
        let stack = try filledStack(in: directory)
        var total = 0
        let seconds = try Stopwatch.time {
            for photo in try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")) {
                total &+= (photo.value(forKey: "name") as? String)?.utf8.count ?? 0
            }
        }
        try RawWorkloads.expect(total == expectedNameBytes, "WXn", "read \(total), expected \(expectedNameBytes)")
        return seconds
    }

    static var expectedNameBytes: Int { (0..<photoCount).reduce(0) { $0 + "photo-\($1)".utf8.count } }

    /// A new stack on a store the photos were saved into by another (untimed).
    private static func filledStack(in directory: URL) throws -> BenchStack {
        try insert((0..<photoCount).map(image), into: BenchStack(directory: directory, model: model()))
        return try BenchStack(directory: directory, model: model())
    }

    private static func insert(_ images: [Data], into stack: BenchStack) throws {
        for (index, data) in images.enumerated() {
            let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: stack.context)
            photo.setValue("photo-\(index)", forKey: "name")
            photo.setValue(data, forKey: "image")
        }
        try stack.context.save()
    }

    // MARK: Raw

    static func rawInsert(directory: URL, n: Int) throws -> Double {
        let images = (0..<photoCount).map(image)
        let db = try emptyRawDatabase(in: directory)
        return try Stopwatch.time { try insert(images, into: db) }
    }

    static func rawFetch(directory: URL, n: Int) throws -> Double {
        let (writer, reader) = try filledRawDatabase(in: directory)
        defer { withExtendedLifetime(writer) {} }
        var total = 0
        let seconds = try Stopwatch.time {
            let select = try reader.prepare("SELECT id, name, image FROM photo")
            while try select.step() {
                BenchSink.consume(Int(select.int64(0)) &+ (select.text(1)?.utf8.count ?? 0))
                total &+= touch(select.data(2))
            }
        }
        try RawWorkloads.expect(total == expectedTouch, "WXf", "raw read \(total), expected \(expectedTouch)")
        return seconds
    }

    static func rawFetchNames(directory: URL, n: Int) throws -> Double {
        let (writer, reader) = try filledRawDatabase(in: directory)
        defer { withExtendedLifetime(writer) {} }
        var total = 0
        let seconds = try Stopwatch.time {
            let select = try reader.prepare("SELECT id, name FROM photo")
            while try select.step() {
                BenchSink.consume(Int(select.int64(0)))
                total &+= select.text(1)?.utf8.count ?? 0
            }
        }
        try RawWorkloads.expect(total == expectedNameBytes, "WXn", "raw read \(total), expected \(expectedNameBytes)")
        return seconds
    }

    private static func emptyRawDatabase(in directory: URL) throws -> RawDatabase {
        let db = try RawDatabase.open(in: directory)
        try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, name TEXT, image BLOB)")
        return db
    }

    /// A new connection to a database the photos were saved into by `writer`, which stays open
    /// (its WAL not checkpointed) while the reader reads.
    private static func filledRawDatabase(in directory: URL) throws -> (writer: RawDatabase, reader: RawDatabase) {
        let writer = try emptyRawDatabase(in: directory)
        try insert((0..<photoCount).map(image), into: writer)
        return (writer, try RawDatabase.open(in: directory))
    }

    private static func insert(_ images: [Data], into db: RawDatabase) throws {
        try db.transaction {
            let insert = try db.prepare("INSERT INTO photo (id, name, image) VALUES (?1, ?2, ?3)")
            for (index, data) in images.enumerated() {
                try insert.bind(Int64(index + 1), at: 1)
                try insert.bind("photo-\(index)", at: 2)
                try insert.bind(data, at: 3)
                try insert.run()
            }
        }
    }
}
