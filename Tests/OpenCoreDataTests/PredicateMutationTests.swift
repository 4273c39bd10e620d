import Foundation
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// The corpus format strings, damaged in many small ways, parse or are refused with a
/// positioned `PredicateFormatError`, never a crash. What parses prints a format that parses
/// again, evaluates in memory, and compiles to SQL or is refused with an error.
@Suite struct PredicateMutationTests {
    private static let insertions = ["(", ")", "[", "]", "{", "}", "'", "\"", "%", "$", "@", "#", "!", "=", "<", ">", "&&",
                                     "||", ",", ".", ":", "\\", " AND ", " ANY ", " IN ", "SUBQUERY(", "FUNCTION(", "[c]",
                                     "%K", "%@", "%d", "{1,", "@count", "0x", "-", "*", "**", " BETWEEN ", "TRUEPREDICATE"]

    private static func mutated(_ format: String, random: inout SplitMix) -> String {
        var characters = Array(format)
        guard !characters.isEmpty else { return insertions[Int(random.next() % UInt64(insertions.count))] }
        let index = Int(random.next() % UInt64(characters.count))
        switch random.next() % 4 {
        case 0: characters.remove(at: index)
        case 1: characters.insert(contentsOf: insertions[Int(random.next() % UInt64(insertions.count))], at: index)
        case 2: characters = Array(characters[..<index])
        default: characters.swapAt(index, Int(random.next() % UInt64(characters.count)))
        }
        return String(characters)
    }

    @Test(.needsCorpus) func damagedCorpusFormatsParseOrAreRefusedWithAPosition() throws {
        let corpus = Corpus.url("predicates/predicates.jsonl")
        let formats = try String(contentsOf: corpus, encoding: .utf8).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["format"] as? String
        }
        #expect(formats.count == 335)
        let model = TestModel.make()
        var random = SplitMix(seed: 2026)
        var parsed = 0, refused = 0
        for format in formats {
            for _ in 0..<16 {
                var damaged = format
                for _ in 0..<(1 + random.next() % 2) { damaged = Self.mutated(damaged, random: &random) }
                let arguments = PredicateFormatTests.syntheticArguments(for: damaged)
                do {
                    let predicate = try NSPredicate(validatingFormat: damaged, argumentArray: arguments)
                    parsed += 1
                    let printed = predicate.predicateFormat
                    #expect((try? NSPredicate(validatingFormat: printed)) != nil, "\(damaged) printed as \(printed), which does not parse")
                    _ = predicate.evaluate(with: ["key": 1, "name": "Ada", "value": "value"])
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                    request.predicate = predicate
                    _ = try? model.sqliteStatement(for: request)
                } catch let error as PredicateFormatError {
                    refused += 1
                    #expect(error.position >= 0 && error.position <= damaged.count, "\(damaged): position \(error.position)")
                }
            }
        }
        #expect(parsed + refused == formats.count * 16)
    }
}
