import CLibPQ
import Foundation
import Synchronization

/// The PostgreSQL server of the W1p–W6p workloads: `OCD_POSTGRES_URL` (`.ci/postgres start DIR`
/// starts a throwaway one). Each side of each run works in a schema of its own, named after
/// its run directory, made on first use and dropped when the side is done.
enum BenchPostgres {
    /// The server's URL; nil when none was given (the PostgreSQL workloads are then left out).
    static let baseURL: String? = {
        let url = ProcessInfo.processInfo.environment["OCD_POSTGRES_URL"] ?? ""
        return url.isEmpty ? nil : url
    }()

    /// The schema of the run directory `directory`.
    static func schema(for directory: URL) -> String {
        let letters = directory.lastPathComponent.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return "ocd_bench_" + String(letters.suffix(40))
    }

    /// A URL whose connections work in `directory`'s schema, which is made if need be.
    static func url(for directory: URL) throws -> String {
        guard let baseURL else { throw BenchCheckError(workload: "PostgreSQL", detail: "set OCD_POSTGRES_URL to run the PostgreSQL workloads") }
        let name = schema(for: directory)
        if created.withLock({ $0.insert(name).inserted }) {
            try admin { try $0.execute("CREATE SCHEMA IF NOT EXISTS \(name)") }
        }
        return baseURL + (baseURL.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(name)"
    }

    /// Drops `directory`'s schema, if a workload made one.
    static func dropSchema(for directory: URL) {
        let name = schema(for: directory)
        guard created.withLock({ $0.remove(name) != nil }) else { return }
        try? admin { try $0.execute("DROP SCHEMA IF EXISTS \(name) CASCADE") }
    }

    /// The schemas made and not yet dropped.
    private static let created = Mutex<Set<String>>([])

    private static func admin(_ body: (RawPostgres) throws -> Void) throws {
        guard let baseURL else { return }
        try body(try RawPostgres(url: baseURL))
    }
}

/// A minimal libpq connection for the raw side: statements prepared once, arguments and results
/// in the binary format, writes pipelined (a round trip per thousand statements), as one would
/// write them by hand.
final class RawPostgres {
    private let connection: OpaquePointer

    init(url: String) throws {
        guard let connection = PQconnectdb(url), PQstatus(connection) == CONNECTION_OK else {
            throw BenchCheckError(workload: "PostgreSQL", detail: "cannot connect to the server OCD_POSTGRES_URL names")
        }
        self.connection = connection
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { PQfinish(connection) }

    func execute(_ sql: String) throws {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        try check(result, sql)
    }

    func prepare(_ name: String, _ sql: String, types: [Oid]) throws {
        let result = PQprepare(connection, name, sql, Int32(types.count), types)
        defer { PQclear(result) }
        try check(result, sql)
    }

    /// Runs prepared statement `name` once with `arguments`, returning its rows (binary).
    func query(_ name: String, _ arguments: [RawArgument] = []) throws -> RawResult {
        let result = RawArgument.withLibPQ(arguments) { values, lengths, formats in
            PQexecPrepared(connection, name, Int32(arguments.count), values, lengths, formats, 1)
        }
        try check(result, name)
        return RawResult(result!)
    }

    /// Runs prepared statement `name` once per element of `rows`, pipelined.
    func runPipelined(_ name: String, _ rows: [[RawArgument]]) throws {
        guard PQenterPipelineMode(connection) == 1 else { throw BenchCheckError(workload: "PostgreSQL", detail: "no pipeline mode") }
        defer { PQexitPipelineMode(connection) }
        var start = 0
        while start < rows.count {
            let end = min(start + 1000, rows.count)
            for row in rows[start..<end] {
                let sent = RawArgument.withLibPQ(row) { values, lengths, formats in
                    PQsendQueryPrepared(connection, name, Int32(row.count), values, lengths, formats, 1)
                }
                guard sent == 1 else { throw BenchCheckError(workload: "PostgreSQL", detail: String(cString: PQerrorMessage(connection))) }
            }
            PQpipelineSync(connection)
            for _ in start..<end {
                let result = PQgetResult(connection)
                defer { PQclear(result) }
                try check(result, name)
                while let extra = PQgetResult(connection) { PQclear(extra) }
            }
            while let result = PQgetResult(connection) {
                let status = PQresultStatus(result)
                PQclear(result)
                if status == PGRES_PIPELINE_SYNC { break }
            }
            start = end
        }
    }

    private func check(_ result: OpaquePointer?, _ what: String) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw BenchCheckError(workload: "PostgreSQL", detail: "\(what): \(String(cString: PQerrorMessage(connection)))")
        }
    }
}

/// One argument in PostgreSQL's binary format.
enum RawArgument {
    case int8(Int64), float8(Double), text(String), null

    /// Calls `body` with libpq's arrays for `arguments`: one buffer holding every value's bytes
    /// (big-endian numbers, UTF-8 text), valid during the call.
    static func withLibPQ<T>(_ arguments: [RawArgument], _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> T) -> T {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64)
        var offsets: [Int] = [], lengths: [Int32] = []
        for argument in arguments {
            let start = buffer.count
            offsets.append(start)
            switch argument {
            case .int8(let value): withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
            case .float8(let value): withUnsafeBytes(of: value.bitPattern.bigEndian) { buffer.append(contentsOf: $0) }
            case .text(let value): buffer.append(contentsOf: value.utf8)
            case .null: offsets[offsets.count - 1] = -1
            }
            lengths.append(Int32(buffer.count - start))
        }
        buffer.append(0)
        let formats = [Int32](repeating: 1, count: arguments.count)
        return buffer.withUnsafeBufferPointer { storage in
            let base = UnsafeRawPointer(storage.baseAddress!).assumingMemoryBound(to: CChar.self)
            let pointers = offsets.map { $0 < 0 ? nil : base + $0 }
            return body(pointers, lengths, formats)
        }
    }
}

/// Rows in the binary format, read in place.
final class RawResult {
    private let result: OpaquePointer
    let count: Int

    init(_ result: OpaquePointer) {
        self.result = result
        count = Int(PQntuples(result))
    }

    deinit { PQclear(result) }

    func isNull(_ row: Int, _ column: Int32) -> Bool { PQgetisnull(result, Int32(row), column) == 1 }

    func int64(_ row: Int, _ column: Int32) -> Int64 {
        Int64(bigEndian: UnsafeRawPointer(PQgetvalue(result, Int32(row), column)!).loadUnaligned(as: Int64.self))
    }

    func double(_ row: Int, _ column: Int32) -> Double {
        Double(bitPattern: UInt64(bigEndian: UnsafeRawPointer(PQgetvalue(result, Int32(row), column)!).loadUnaligned(as: UInt64.self)))
    }

    func text(_ row: Int, _ column: Int32) -> String? {
        if isNull(row, column) { return nil }
        let start = UnsafeRawPointer(PQgetvalue(result, Int32(row), column)!)
        return String(decoding: UnsafeRawBufferPointer(start: start, count: Int(PQgetlength(result, Int32(row), column))), as: UTF8.self)
    }
}
