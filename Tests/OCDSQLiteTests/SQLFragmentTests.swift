import Foundation
import OCDSQLite
import Testing

@Suite struct SQLFragmentTests {
    let directory = TemporaryDirectory()

    @Test func interpolationKeepsArgumentsInTextOrder() {
        let age: SQLFragment = "a > \(bind: .integer(30))"
        let name: SQLFragment = "b = \(bind: .text("Ada"))"
        // Made in one order, composed in the other: the arguments follow the text.
        let condition: SQLFragment = "\(name) AND \(age) AND c IN (\([SQLFragment.bind(1), .bind(2)].joined(separator: ", ")))"
        #expect(condition.text == "b = ? AND a > ? AND c IN (?, ?)")
        #expect(condition.arguments == [.text("Ada"), .integer(30), .integer(1), .integer(2)])
    }

    @Test func rawTextAndNumbersAreSpliced() {
        let fragment: SQLFragment = "SELECT \(raw: "t0.ZNAME") FROM \(raw: "ZPERSON") t0 WHERE t0.Z_ENT = \(raw: 7)"
        #expect(fragment.text == "SELECT t0.ZNAME FROM ZPERSON t0 WHERE t0.Z_ENT = 7")
        #expect(fragment.arguments.isEmpty)
    }

    @Test func appendingAndParenthesizing() {
        var fragment: SQLFragment = "x = \(bind: 1)"
        fragment += " OR y = \(bind: 2)"
        #expect(fragment.parenthesized.text == "(x = ? OR y = ?)")
        #expect((fragment + " AND z = \(bind: 3)").arguments == [1, 2, 3])
        #expect(SQLFragment.empty.isEmpty && !fragment.isEmpty)
        #expect([SQLFragment]().joined(separator: ", ") == .empty)
        let list = SQLFragment.list([1, "two", nil])
        #expect(list.text == "?, ?, ?" && list.arguments == [1, "two", nil])
        #expect(SQLFragment.list([]).isEmpty)
    }

    /// A value that looks like SQL stays a value: it is bound, never part of the text.
    @Test func boundValuesRunAsValues() throws {
        let connection = try SQLiteConnection(path: directory.path("fragment.sqlite"))
        try connection.execute("CREATE TABLE t (name TEXT, rank INTEGER)")
        let hostile = "x'); DROP TABLE t; --"
        try connection.run("INSERT INTO t VALUES (\(bind: .text(hostile)), \(bind: 2))")
        try connection.run("INSERT INTO t VALUES (\(bind: "plain"), \(bind: 1))")
        let rows = try connection.rows("SELECT name FROM t WHERE rank > \(bind: 1) OR name = \(bind: .text(hostile))")
        #expect(rows == [[.text(hostile)]])
    }
}
