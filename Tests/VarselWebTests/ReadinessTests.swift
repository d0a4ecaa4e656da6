import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import Testing
import VarselService
import VarselStore

@testable import VarselSQLite
@testable import VarselWeb

@Suite("Readiness and a store that cannot serve")
struct ReadinessTests {
    /// Limits the world's SQLite database to its present size plus `pages`: SQLite then answers a write that needs more
    /// exactly as on a full disk (SQLITE_FULL).
    static func limit(_ world: TestWorld, toPagesMore pages: Int?) async throws {
        try await world.repository.writer.writeWithoutTransaction { db in
            let count = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages.map { count + $0 } ?? 1_073_741_823)")
        }
    }

    @Test("a full disk: creates get 507 problem+json with Retry-After at once, reads go on, /readyz says why, and all comes back with room")
    func fullDisk() async throws {
        var configuration = VarselServices.Configuration()
        configuration.metricsToken = "scrape-secret"
        let world = try await TestWorld(configuration: configuration)
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let kari = try await client.token("kari")
            #expect(try await client.call(.get, "/readyz", token: nil).text == "ready\n")
            try await Self.limit(world, toPagesMore: 2)
            let send = #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"Practice","body":"\#(String(repeating: "b", count: 3000))"}"#
            var refused: TestResponse?
            for _ in 0..<50 {
                let response = try await client.call(.post, "/api/v1/notifications", token: coordinator, json: send)
                if response.status != .created {
                    refused = response
                    break
                }
            }
            let full = try #require(refused)
            let detail = try full.expectProblem(HTTPResponse.Status(code: 507))
            #expect(full.headers[.retryAfter] == "5")
            #expect(detail.contains("disk") && !detail.contains("Practice"))
            #expect(try await client.call(.get, "/api/v1/notifications", token: kari).status == .ok, "reads go on")
            world.clock.advance(by: 2)
            let notReady = try await client.call(.get, "/readyz", token: nil)
            #expect(notReady.status == .serviceUnavailable)
            #expect(notReady.text == "not ready: The disk the database writes to is full.\n")
            #expect(notReady.headers[.retryAfter] == "5")
            let metrics = try await client.call(.get, "/metrics", token: "scrape-secret").text
            #expect(metrics.contains("varsel_ready 0\n"))
            #expect(metrics.contains("varsel_store_unavailable_total{condition=\"disk_full\"} 1\n"))
            #expect(metrics.contains("varsel_outbox_items{outbox=\"push\"} 0\n"))

            try await Self.limit(world, toPagesMore: nil)
            #expect(
                try await client.call(.post, "/api/v1/notifications", token: coordinator, json: send).status == .created,
                "writes resume without a restart")
            world.clock.advance(by: 2)
            #expect(try await client.call(.get, "/readyz", token: nil).text == "ready\n")
            #expect(try await client.call(.get, "/metrics", token: "scrape-secret").text.contains("varsel_ready 1\n"))
        }
    }

    @Test("a store that cannot be reached or did not answer in time is 503 with Retry-After, never 500, and names no request data")
    func unreachableIsServiceUnavailable() throws {
        for condition in [StoreUnavailable.unreachable, .timedOut] {
            let problem = Problem.from(condition)
            #expect(problem.status == .serviceUnavailable)
            #expect(problem.headers[.retryAfter] == "5")
            #expect(problem.detail.contains("Idempotency-Key"))
        }
        #expect(Problem.from(StoreUnavailable.diskFull).status.code == 507)
    }
}
