import Foundation
import OCDSQLite
import Testing
import OpenCoreData
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite

/// The predicate compiler decides what a predicate means over Core Data's tables; a dialect
/// only spells it. Compiling the same predicates for another dialect changes the spelling and
/// nothing else: the joins, sub-selects and arguments stay.
@Suite struct SQLDialectTests {
    /// A dialect that spells things as PostgreSQL does, to show the compiler holds no SQLite.
    enum StandardSpelling: SQLDialect {
        static let storeName = "a standard SQL store"
        static var alwaysTrue: SQLFragment { "TRUE" }
        static var alwaysFalse: SQLFragment { "FALSE" }
        static func nullSafeEqual(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment { "\(left) IS NOT DISTINCT FROM \(right)" }
        static func knownTrue(_ condition: SQLFragment) -> SQLFragment { "COALESCE((\(condition)), FALSE)" }
        static func fold(_ string: SQLFragment, _ options: NSComparisonPredicate.Options) -> SQLFragment { "lower(\(string))" }
        static func stringComparison(_ left: SQLFragment, _ type: NSComparisonPredicate.Operator, _ right: SQLFragment,
                                     options: NSComparisonPredicate.Options) -> SQLFragment {
            "starts_with(\(left), \(right))"
        }
        static func function(_ name: String, _ arguments: [SQLFragment]) -> SQLFragment {
            "\(raw: String(name.dropLast()))(\(arguments.joined(separator: ", ")))"
        }
        static let numericFunctions: Set<String> = ["sqrt:"]
        static func statistic(_ name: String, of values: SQLFragment) -> SQLFragment { "percentile_cont(0.5) WITHIN GROUP (ORDER BY \(values))" }
        static func floatingDivision(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment { "(\(left)::float8 / \(right))" }
        static func integerRemainder(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment { "(\(left) % NULLIF(\(right), 0))" }
        static let ordersRowsOnlyWhenAsked = true
        static func truncatedToInteger(_ number: SQLFragment) -> SQLFragment { "trunc(\(number))::int8" }
        static func total(_ values: SQLFragment) -> SQLFragment { "COALESCE(SUM(\(values)), 0.0)" }
        static func sortKey(_ string: SQLFragment, _ ordering: StringOrdering) -> SQLFragment { ordering == .binary ? string : "lower(\(string))" }
        static func sortTerm(_ key: SQLFragment, ascending: Bool) -> SQLFragment { "\(key) \(raw: ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")" }
        static func limit(_ limit: Int, offset: Int) -> SQLFragment { " LIMIT \(bind: .integer(Int64(limit))) OFFSET \(bind: .integer(Int64(offset)))" }
        static func argument(_ value: PrimitiveValue, of attribute: NSAttributeDescription) throws -> SQLiteValue {
            try SQLiteValueCoding.sqliteValue(value, of: attribute)
        }
        static func compositeElement(_ column: SQLFragment, _ elementPath: [String]) -> SQLFragment {
            "(\(column)::jsonb #>> \(bind: .text("{" + elementPath.joined(separator: ",") + "}")))"
        }
    }

    private func compile<Dialect: SQLDialect>(_ format: String, _ arguments: [Any], as dialect: Dialect.Type) throws -> SQLFragment {
        let stack = try TestStack(.sqlite)
        let store = try #require(stack.coordinator.persistentStores.first as? SQLiteStore)
        let person = try #require(stack.model.entitiesByName["Person"])
        var compiler = PredicateSQLCompiler<Dialect>(schema: store.schema, mapping: try #require(store.schema.mapping(for: person)))
        return try compiler.whereClause(for: NSPredicate(format: format, argumentArray: arguments))
    }

    @Test func anotherDialectSpellsTheSameMeaning() throws {
        let source = "name BEGINSWITH %@ AND NOT (age > %d) AND (height / 2 > %d OR TRUEPREDICATE) AND sqrt:(age) > 1 AND ANY pets.name ==[c] %@"
        let sqlite = try compile(source, ["A", 30, 1, "rex"], as: SQLiteDialect.self)
        let standard = try compile(source, ["A", 30, 1, "rex"], as: StandardSpelling.self)

        #expect(sqlite.text.contains("ocd_string_compare(") && sqlite.text.contains("NOT COALESCE((") && sqlite.text.contains("AS REAL"))
        #expect(standard.text.contains("starts_with(t0.ZNAME, ?)"), "\(standard.text)")
        #expect(standard.text.contains("NOT COALESCE((t0.ZAGE > ?), FALSE)"), "\(standard.text)")
        #expect(standard.text.contains("(t0.ZHEIGHT::float8 / ?) > ?"), "\(standard.text)")
        #expect(standard.text.contains("OR TRUE)"), "\(standard.text)")
        #expect(standard.text.contains("sqrt(t0.ZAGE)"), "\(standard.text)")
        #expect(standard.text.contains("lower(t0_s1.ZNAME) = ?"), "\(standard.text)")
        #expect(!standard.text.contains("ocd_") && !standard.text.contains("REAL"), "\(standard.text)")
        // The same tables, the same sub-select, and the values bound in the order they appear.
        #expect(standard.text.contains("EXISTS (SELECT 1 FROM ZPET t0_s1 WHERE t0_s1.ZOWNER = t0.Z_PK"), "\(standard.text)")
        #expect(standard.arguments == [.text("A"), .integer(30), .integer(2), .integer(1), .integer(1), .text("rex")])
        #expect(standard.arguments.count == standard.text.filter { $0 == "?" }.count)
    }

    /// What a dialect does not compute is refused, with the function's name.
    @Test func aFunctionTheDialectLacksIsRefused() throws {
        let error = #expect(throws: CocoaError.self) { try compile("ln:(age) > 1", [], as: StandardSpelling.self) }
        #expect(error?.message.contains("ln:") == true, "\(error?.message ?? "")")
        _ = try compile("ln:(age) > 1", [], as: SQLiteDialect.self)
    }

    /// SQLite's spelling runs: the fetch statement is built from the SQLite dialect and its
    /// limit clause binds its values after the WHERE clause's.
    @Test func theSQLiteStatementBindsInTextOrder() throws {
        let stack = try TestStack(.sqlite)
        for (name, age) in [("Ada", 36), ("Bob", 12), ("Cy", 50), ("Dee", 20)] { stack.insert("Person", ["name": name, "age": age]) }
        try stack.context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSPredicate(format: "age > %d AND name != %@", 15, "Cy")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        request.fetchLimit = 1
        request.fetchOffset = 1
        let (sql, arguments) = try stack.model.sqliteStatement(for: request)
        #expect(sql.hasSuffix("LIMIT ? OFFSET ?"), "\(sql)")
        #expect(arguments.count == 4 && arguments[0] as? Int64 == 15 && arguments[1] as? String == "Cy"
            && arguments[2] as? Int64 == 1 && arguments[3] as? Int64 == 1, "\(arguments)")
        #expect(try stack.context.fetch(request).map { $0.value(forKey: "name") as? String } == ["Ada"])
    }
}
