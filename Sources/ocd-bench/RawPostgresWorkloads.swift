import CLibPQ
import Foundation

/// The raw PostgreSQL side of workloads W1p–W6p: the jobs of W1–W6 through libpq called
/// directly — statements prepared once, arguments and rows in the binary format, each write
/// phase one transaction whose statements are pipelined, as the store pipelines its saves.
enum RawPostgresWorkloads {
    private static let int8: Oid = 20, float8: Oid = 701, text: Oid = 25

    static func w1(directory: URL, n: Int) throws -> Double {
        let db = try RawPostgres(url: try BenchPostgres.url(for: directory))
        try createItemSchema(db)
        let seconds = try Stopwatch.time { try insertItems(n: n, into: db) }
        try expectCount(db, "SELECT count(*) FROM item", n, "W1p")
        return seconds
    }

    static func w2(directory: URL, n: Int) throws -> Double {
        let url = try BenchPostgres.url(for: directory)
        try fillItemStore(url: url, n: n)
        let db = try RawPostgres(url: url)
        try db.prepare("all", "SELECT \(ItemRow.columns) FROM item", types: [])
        var rows: [ItemRow] = []
        let seconds = try Stopwatch.time {
            rows = items(try db.query("all"))
            BenchSink.consume(ItemRow.checksum(rows))
        }
        try RawWorkloads.expect(rows.count == n, "W2p", "fetched \(rows.count) rows, expected \(n)")
        return seconds
    }

    static func w3(directory: URL, n: Int) throws -> Double {
        let url = try BenchPostgres.url(for: directory)
        try fillItemStore(url: url, n: n)
        let db = try RawPostgres(url: url)
        try db.prepare("range", "SELECT \(ItemRow.columns) FROM item WHERE score BETWEEN $1 AND $2", types: [int8, int8])
        var fetched = 0
        let seconds = try Stopwatch.time {
            for k in 0..<BenchData.rangeFetchCount {
                let lo = BenchData.rangeLow(k)
                let rows = items(try db.query("range", [.int8(lo), .int8(lo + 9)]))
                fetched += rows.count
                BenchSink.consume(ItemRow.checksum(rows))
            }
        }
        let expected = BenchData.expectedRangeFetchRows(n: n)
        try RawWorkloads.expect(fetched == expected, "W3p", "fetched \(fetched) rows, expected \(expected)")
        return seconds
    }

    static func w4(directory: URL, n: Int) throws -> Double {
        let url = try BenchPostgres.url(for: directory)
        try fillItemStore(url: url, n: n)
        let db = try RawPostgres(url: url)
        try db.prepare("targets", "SELECT id, price FROM item WHERE score % 2 = 0", types: [])
        try db.prepare("update", "UPDATE item SET price = $1 WHERE id = $2", types: [float8, int8])
        var updated = 0
        let seconds = try Stopwatch.time {
            try db.execute("BEGIN")
            let targets = try db.query("targets")
            updated = targets.count
            try db.runPipelined("update", (0..<targets.count).map { row in
                [.float8(targets.double(row, 1) * BenchData.priceFactor), .int8(targets.int64(row, 0))]
            })
            try db.execute("COMMIT")
        }
        try RawWorkloads.expect(updated == (n + 1) / 2, "W4p", "updated \(updated) rows, expected \((n + 1) / 2)")
        return seconds
    }

    static func w5(directory: URL, n: Int) throws -> Double {
        let url = try BenchPostgres.url(for: directory)
        try fillItemStore(url: url, n: n)
        let db = try RawPostgres(url: url)
        try db.prepare("targets", "SELECT id FROM item WHERE id % 2 = 0", types: [])
        try db.prepare("delete", "DELETE FROM item WHERE id = $1", types: [int8])
        let seconds = try Stopwatch.time {
            try db.execute("BEGIN")
            let targets = try db.query("targets")
            try db.runPipelined("delete", (0..<targets.count).map { [.int8(targets.int64($0, 0))] })
            try db.execute("COMMIT")
        }
        try expectCount(db, "SELECT count(*) FROM item", n - n / 2, "W5p")
        return seconds
    }

    static func w6(directory: URL, n: Int) throws -> Double {
        let db = try RawPostgres(url: try BenchPostgres.url(for: directory))
        try db.execute("""
            CREATE TABLE owner(id bigint PRIMARY KEY, name text);
            CREATE TABLE pet(id bigserial PRIMARY KEY, owner bigint REFERENCES owner(id), name text, weight double precision);
            CREATE INDEX pet_owner ON pet(owner);
            """)
        try db.prepare("owner", "INSERT INTO owner(id, name) VALUES ($1, $2)", types: [int8, text])
        try db.prepare("pet", "INSERT INTO pet(owner, name, weight) VALUES ($1, $2, $3)", types: [int8, text, float8])
        try db.prepare("graph", """
            SELECT owner.id, owner.name, pet.id, pet.name, pet.weight FROM owner JOIN pet ON pet.owner = owner.id ORDER BY owner.id
            """, types: [])
        try db.prepare("deletePets", "DELETE FROM pet WHERE owner = $1", types: [int8])
        try db.prepare("deleteOwner", "DELETE FROM owner WHERE id = $1", types: [int8])
        let insertSeconds = try Stopwatch.time {
            try db.execute("BEGIN")
            try db.runPipelined("owner", (0..<BenchData.ownerCount).map { [.int8(Int64($0 + 1)), .text(BenchData.ownerName($0))] })
            var pets: [[RawArgument]] = []
            pets.reserveCapacity(BenchData.ownerCount * BenchData.petsPerOwner)
            for owner in 0..<BenchData.ownerCount {
                for pet in 0..<BenchData.petsPerOwner {
                    pets.append([.int8(Int64(owner + 1)), .text(BenchData.petName(owner: owner, pet: pet)), .float8(BenchData.petWeight(pet: pet))])
                }
            }
            try db.runPipelined("pet", pets)
            try db.execute("COMMIT")
        }
        var owners: [OwnerRow] = []
        let fetchSeconds = try Stopwatch.time {
            let result = try db.query("graph")
            for row in 0..<result.count {
                let ownerID = result.int64(row, 0)
                if owners.last?.id != ownerID { owners.append(OwnerRow(id: ownerID, name: result.text(row, 1) ?? "", pets: [])) }
                owners[owners.count - 1].pets.append(PetRow(id: result.int64(row, 2), name: result.text(row, 3) ?? "", weight: result.double(row, 4)))
            }
        }
        try RawWorkloads.checkGraph(owners)
        let deleteSeconds = try Stopwatch.time {
            try db.execute("BEGIN")
            try db.runPipelined("deletePets", owners.map { [.int8($0.id)] })
            try db.runPipelined("deleteOwner", owners.map { [.int8($0.id)] })
            try db.execute("COMMIT")
        }
        try expectCount(db, "SELECT count(*) FROM pet", 0, "W6p")
        return insertSeconds + fetchSeconds + deleteSeconds
    }

    // MARK: Helpers

    private static func createItemSchema(_ db: RawPostgres) throws {
        try db.execute("""
            CREATE TABLE item(id bigint PRIMARY KEY, name text, score bigint, price double precision,
                              created double precision, flag bigint, note text);
            CREATE INDEX item_score ON item(score);
            """)
    }

    private static func insertItems(n: Int, into db: RawPostgres) throws {
        try db.prepare("insert", "INSERT INTO item(id, name, score, price, created, flag, note) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                       types: [int8, text, int8, float8, float8, int8, text])
        try db.execute("BEGIN")
        try db.runPipelined("insert", (0..<n).map { i in
            [.int8(Int64(i + 1)), .text(BenchData.name(i)), .int8(BenchData.score(i)), .float8(BenchData.price(i)),
             .float8(BenchData.created(i)), .int8(BenchData.flag(i) ? 1 : 0), BenchData.note(i).map { .text($0) } ?? .null]
        })
        try db.execute("COMMIT")
    }

    static func fillItemStore(url: String, n: Int) throws {
        let db = try RawPostgres(url: url)
        try createItemSchema(db)
        try insertItems(n: n, into: db)
    }

    private static func items(_ result: RawResult) -> [ItemRow] {
        var rows: [ItemRow] = []
        rows.reserveCapacity(result.count)
        for row in 0..<result.count {
            rows.append(ItemRow(id: result.int64(row, 0), name: result.text(row, 1) ?? "", score: result.int64(row, 2),
                                price: result.double(row, 3), created: Date(timeIntervalSinceReferenceDate: result.double(row, 4)),
                                flag: result.int64(row, 5) != 0, note: result.text(row, 6)))
        }
        return rows
    }

    static func expectCount(_ db: RawPostgres, _ sql: String, _ expected: Int, _ workload: String) throws {
        try db.prepare("count", sql, types: [])
        let count = Int(try db.query("count").int64(0, 0))
        try RawWorkloads.expect(count == expected, workload, "\(count) rows, expected \(expected)")
    }
}

extension ItemRow {
    init(id: Int64, name: String, score: Int64, price: Double, created: Date, flag: Bool, note: String?) {
        self.id = id
        self.name = name
        self.score = score
        self.price = price
        self.created = created
        self.flag = flag
        self.note = note
    }
}
