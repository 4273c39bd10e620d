import Foundation
import Testing

/// The list of Apple's Core Data API in `Docs/API` cannot drift from the code: every symbol it
/// says OpenCoreData provides has a compile-time signature check (`APISignatures`), every check
/// names a listed symbol, and the README's totals are the list's.
@Suite struct APIListTests {
    /// One row of a `Docs/API` table.
    struct Row {
        let file: String
        let symbol: String
        let state: String
        let note: String
    }

    static let states = ["provided", "differs", "not yet"]

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func rows() throws -> [Row] {
        let folder = repository.appendingPathComponent("Docs/API")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }.sorted()
        return try files.flatMap { file in
            try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n")
                .filter { $0.hasPrefix("| `") }
                .map { line in
                    let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                        .dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
                    guard cells.count == 4 else { throw ListError(file: file, line: String(line), problem: "has \(cells.count) cells, not 4") }
                    return Row(file: file, symbol: cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")),
                               state: cells[2], note: cells[3])
                }
        }
    }

    struct ListError: Error, CustomStringConvertible {
        let file: String
        let line: String
        let problem: String
        var description: String { "Docs/API/\(file): \(line) \(problem)" }
    }

    @Test func everyRowHasAKnownStateAndAUniqueSymbol() throws {
        let rows = try Self.rows()
        #expect(!rows.isEmpty)
        for row in rows where !Self.states.contains(row.state) {
            Issue.record("Docs/API/\(row.file): \(row.symbol) has state '\(row.state)'")
        }
        for row in rows where row.state == "differs" && row.note.isEmpty {
            Issue.record("Docs/API/\(row.file): \(row.symbol) differs but its note does not say how")
        }
        let repeated = Dictionary(grouping: rows, by: \.symbol).filter { $0.value.count > 1 }.keys.sorted()
        #expect(repeated.isEmpty, "listed more than once: \(repeated)")
    }

    @Test func whatTheListProvidesIsWhatTheSignatureChecksCompile() throws {
        let listed = Set(try Self.rows().filter { $0.state != "not yet" }.map(\.symbol))
        let checked = APISignatures.checkedSymbols
        let repeated = Dictionary(grouping: checked, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(repeated.isEmpty, "checked more than once: \(repeated)")
        #expect(listed.subtracting(checked).sorted() == [], "listed as provided without a signature check")
        #expect(Set(checked).subtracting(listed).sorted() == [], "checked but not listed as provided")
    }

    @Test func theReadmeTotalsAreTheLists() throws {
        let rows = try Self.rows()
        let count = { (state: String) in rows.filter { $0.state == state }.count }
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let line = "Apple's Core Data API, as [Docs/API](Docs/API) lists it: \(rows.count) symbols, \(count("provided")) provided, "
            + "\(count("differs")) provided with a documented difference, \(count("not yet")) not yet."
        #expect(readme.contains(line), "the README should say: \(line)")
    }
}
