import Foundation
import OCDPostgres
import Testing

/// The PostgreSQL server the tests use: `OCD_POSTGRES_URL` (`.ci/run` starts a throwaway one and
/// sets it; `.ci/postgres start DIR` does the same by hand). Without it the tests that need a
/// server are skipped with one line, except under CI, where they run and fail.
enum PostgresServer {
    static let url: String? = {
        let named = ProcessInfo.processInfo.environment["OCD_POSTGRES_URL"] ?? ""
        return named.isEmpty ? nil : named
    }()

    static let isRequired = url != nil || ProcessInfo.processInfo.environment["CI"] == "true"

    static let skipReason = "needs a PostgreSQL server: set OCD_POSTGRES_URL (`.ci/postgres start DIR` starts one)"

    /// The URL, or one that cannot connect, so that a test run under CI without a server fails.
    static var baseURL: String { url ?? "postgresql:///ocd-no-server?host=/nonexistent/OCD_POSTGRES_URL-unset" }
}

extension Trait where Self == ConditionTrait {
    static var needsPostgres: Self { .enabled(if: PostgresServer.isRequired, Comment(rawValue: PostgresServer.skipReason)) }
}

/// A schema of its own on the test server, dropped by `drop()` when the test is done: `url`
/// connects with it as the search path, so that tests running at once never see each other's
/// tables.
final class PostgresTestSchema {
    let name: String
    let url: String

    init() throws {
        name = "ocd_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let admin = try PostgresConnection(url: PostgresServer.baseURL)
        try admin.execute("CREATE SCHEMA \(name)")
        let base = PostgresServer.baseURL
        url = base + (base.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(name)"
    }

    func connect() throws -> PostgresConnection { try PostgresConnection(url: url) }

    func drop() {
        if let admin = try? PostgresConnection(url: PostgresServer.baseURL) {
            try? admin.execute("DROP SCHEMA IF EXISTS \(name) CASCADE")
        }
    }
}
