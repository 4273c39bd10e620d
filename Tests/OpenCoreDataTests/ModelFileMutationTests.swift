import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// Every corpus model, damaged in many small ways (values replaced, attributes or lines dropped,
/// lines repeated or swapped), either loads or is refused with a `ModelFileError`, never a crash.
/// A model that loads and checks out must also work through a store: each of its entities gets
/// an object, saved or refused with an error. Deterministic: the same damage on every run.
@Suite struct ModelFileMutationTests {
    private static let replacementValues = ["", "-1", "0", "99999999999999999999999", "YES", "NO", "garbage value", "Integer 16",
                                            "Transformable", "1e400", "NaN", "&lt;x&gt;", "Nullify", "Cascade", "Deny"]

    private static func mutated(_ xml: String, random: inout SplitMix) -> String {
        var lines = xml.components(separatedBy: "\n")
        let attribute = /([A-Za-z]+)="([^"]*)"/
        switch random.next() % 5 {
        case 0, 1:  // a value replaced, or an attribute dropped
            let index = Int(random.next() % UInt64(lines.count))
            let matches = lines[index].matches(of: attribute)
            guard !matches.isEmpty else { break }
            let match = matches[Int(random.next() % UInt64(matches.count))]
            let replacement = random.next() % 3 == 0 ? ""
                : "\(match.output.1)=\"\(replacementValues[Int(random.next() % UInt64(replacementValues.count))])\""
            lines[index].replaceSubrange(match.range, with: replacement)
        case 2:
            lines.remove(at: Int(random.next() % UInt64(lines.count)))
        case 3:
            let index = Int(random.next() % UInt64(lines.count))
            lines.insert(lines[index], at: index)
        default:
            lines.swapAt(Int(random.next() % UInt64(lines.count)), Int(random.next() % UInt64(lines.count)))
        }
        return lines.joined(separator: "\n")
    }

    @Test(.needsCorpus, arguments: XcodeModelTests.versionFolders)
    func damagedModelsLoadOrAreRefusedClearly(version: URL) throws {
        let original = try String(contentsOf: version.appendingPathComponent("contents"), encoding: .utf8)
        var random = SplitMix(seed: UInt64(truncatingIfNeeded: version.lastPathComponent.hashValueStable))
        for _ in 0..<12 {
            var xml = original
            for _ in 0..<(1 + random.next() % 3) { xml = Self.mutated(xml, random: &random) }
            let model: NSManagedObjectModel
            do {
                model = try XcodeModelTests.load(xml)
            } catch let error as ModelFileError {
                #expect(!error.reason.isEmpty)
                continue
            }
            _ = model.validationIssues()
            guard (try? model.validate()) != nil else { continue }
            try Self.exercise(model)
        }
    }

    /// Opens an in-memory store on `model` and saves one object of each concrete entity; any
    /// failure must be a thrown error.
    private static func exercise(_ model: NSManagedObjectModel) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        do {
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, at: nil)
        } catch {
            return
        }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.performAndWait {
            for entity in model.entities where !entity.isAbstract {
                guard let name = entity.name else { continue }
                _ = NSEntityDescription.insertNewObject(forEntityName: name, into: context)
            }
            do { try context.save() } catch { context.rollback() }
        }
    }
}

private extension String {
    /// A hash that is the same on every run (Swift's `hashValue` is seeded per process).
    var hashValueStable: UInt64 {
        utf8.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
    }
}
