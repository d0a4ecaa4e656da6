import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselWeb

/// Scheduling through the API: `sendAt` on a create, then the waiting send read, changed and cancelled.
@Suite("API: scheduled sends")
struct ScheduledSendAPITests {
    struct Scheduled: Decodable {
        var id: Int64
        var recipientIds: [Int64]
        var kind: String
        var title: String
        var sendAt: Date
        var state: String
    }

    struct Listed: Decodable {
        var items: [Scheduled]
    }

    @Test("a create with sendAt is scheduled (202), listed, changed, sent once at its time by the worker's round, and then refused a change")
    func scheduleChangeSend() async throws {
        let world = try await TestWorld()
        let sendAt = ISO8601DateFormatter().string(from: world.clock.now.addingTimeInterval(3600))
        try await world.test { client in
            let token = try await client.token("coord")
            let created = try await client.call(
                .post, "/api/v1/notifications", token: token,
                json: #"{"recipients":["kari","ola"],"kind":"scenarioPrompt","title":"Scenario for Monday","body":"b","sendAt":"\#(sendAt)"}"#)
            #expect(created.status == .accepted)
            let send = try created.decode(Scheduled.self)
            #expect(send.state == "waiting" && send.kind == "scenarioPrompt" && send.recipientIds.count == 2)
            #expect(abs(send.sendAt.timeIntervalSince(world.clock.now) - 3600) < 1)
            #expect(try await world.repository.notifications(for: world.kari.id, filter: .all, after: nil, limit: 10).items.isEmpty)
            let listed = try await client.call(.get, "/api/v1/scheduled-sends", token: token).decode(Listed.self)
            #expect(listed.items.map(\.id) == [send.id])
            let changed = try await client.call(
                .patch, "/api/v1/scheduled-sends/\(send.id)", token: token, json: #"{"title":"Scenario for Tuesday"}"#)
            #expect(try changed.decode(Scheduled.self).title == "Scenario for Tuesday")
            world.clock.advance(by: 3600)
            let sent = try await world.services.scheduledSends.sendDue()
            #expect(sent.map(\.send.id.rawValue) == [send.id])
            let kari = try await world.repository.notifications(for: world.kari.id, filter: .all, after: nil, limit: 10).items
            #expect(kari.map(\.title) == ["Scenario for Tuesday"])
            try await client.call(.patch, "/api/v1/scheduled-sends/\(send.id)", token: token, json: #"{"title":"Too late"}"#)
                .expectProblem(.conflict)
            try await client.call(.delete, "/api/v1/scheduled-sends/\(send.id)", token: token).expectProblem(.conflict)
            #expect(try await client.call(.get, "/api/v1/scheduled-sends/\(send.id)", token: token).decode(Scheduled.self).state == "sent")
            #expect(try await client.call(.get, "/api/v1/scheduled-sends", token: token).decode(Listed.self).items.isEmpty)
        }
    }

    @Test("a scenario published with sendAt is scheduled (202) and published once at its time; a past sendAt is a 422 naming the field")
    func scheduledScenario() async throws {
        let world = try await TestWorld()
        let sendAt = ISO8601DateFormatter().string(from: world.clock.now.addingTimeInterval(3600))
        try await world.test { client in
            let token = try await client.token("coord")
            let created = try await client.call(
                .post, "/api/v1/scenarios", token: token,
                json: #"{"title":"Stairs","body":"Guide a visitor down the stairs.","mentors":["kari"],"sendAt":"\#(sendAt)"}"#)
            #expect(created.status == .accepted)
            #expect(created.text.contains(#""publishesScenario":true"#))
            let send = try created.decode(Scheduled.self)
            #expect(try await world.repository.scenarios(forMentor: world.kari.id).isEmpty)
            let past = ISO8601DateFormatter().string(from: world.clock.now.addingTimeInterval(-60))
            let refused = try await client.call(
                .post, "/api/v1/scenarios", token: token, json: #"{"title":"Stairs","body":"Text","sendAt":"\#(past)"}"#)
            _ = try refused.expectProblem(.unprocessableContent)
            #expect(try refused.decode(ProblemBody.self).errors?.map(\.field) == ["sendAt"])
            world.clock.advance(by: 3600)
            #expect(try await world.services.scheduledSends.sendDue().map(\.send.id.rawValue) == [send.id])
            #expect(try await world.repository.scenarios(forMentor: world.kari.id).map(\.scenario.title) == ["Stairs"])
            #expect(try await world.repository.scenarios(forMentor: world.ola.id).isEmpty)
        }
    }

    @Test("a cancelled send never goes; a bad or past sendAt is a 422 naming the field, never echoing it; another's send is a 404")
    func cancelAndRefusals() async throws {
        let world = try await TestWorld()
        let soon = ISO8601DateFormatter().string(from: world.clock.now.addingTimeInterval(60))
        try await world.test { client in
            let token = try await client.token("coord")
            let send = try await client.call(
                .post, "/api/v1/notifications", token: token,
                json: #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"t","body":"b","sendAt":"\#(soon)"}"#
            ).decode(Scheduled.self)
            let cancelled = try await client.call(.delete, "/api/v1/scheduled-sends/\(send.id)", token: token)
            #expect(try cancelled.decode(Scheduled.self).state == "cancelled")
            world.clock.advance(by: 120)
            #expect(try await world.services.scheduledSends.sendDue().isEmpty)
            #expect(try await world.repository.notifications(for: world.kari.id, filter: .all, after: nil, limit: 10).items.isEmpty)
            for bad in ["next monday", "2020-01-01T09:00:00Z"] {
                let refused = try await client.call(
                    .post, "/api/v1/notifications", token: token,
                    json: #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"t","body":"b","sendAt":"\#(bad)"}"#)
                let detail = try refused.expectProblem(.unprocessableContent)
                #expect(detail.contains("sendAt") && !refused.text.contains(bad))
            }
            let admin = try await client.token("admin")
            let theirs = try await client.call(
                .post, "/api/v1/notifications", token: admin,
                json:
                    #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"t","body":"b","sendAt":"\#(ISO8601DateFormatter().string(from: world.clock.now.addingTimeInterval(600)))"}"#
            ).decode(Scheduled.self)
            try await client.call(.get, "/api/v1/scheduled-sends/\(theirs.id)", token: token).expectProblem(.notFound)
            try await client.call(.delete, "/api/v1/scheduled-sends/\(theirs.id)", token: token).expectProblem(.notFound)
        }
    }
}

extension ScheduledSendAPITests {
    @Test(
        "a scheduled create retried with its idempotency key schedules once and answers with the same send, also after its time; another body is refused"
    )
    func idempotentSchedule() async throws {
        let world = try await TestWorld()
        let sendAt = ISO8601DateFormatter().string(from: world.clock.now.addingTimeInterval(3600))
        let body = #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"Monday","body":"","sendAt":"\#(sendAt)"}"#
        try await world.test { client in
            let token = try await client.token("coord")
            let headers: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json", .init("Idempotency-Key")!: "monday-1"]
            let first = try await client.execute(uri: "/api/v1/notifications", method: .post, headers: headers, body: ByteBuffer(string: body))
            #expect(first.status == .accepted)
            #expect(first.headers[.init("Idempotent-Replayed")!] == nil)
            let again = try await client.execute(uri: "/api/v1/notifications", method: .post, headers: headers, body: ByteBuffer(string: body))
            #expect(again.status == .accepted)
            #expect(again.headers[.init("Idempotent-Replayed")!] == "true")
            #expect(try again.decode(Scheduled.self).id == first.decode(Scheduled.self).id)
            let other = try await client.execute(
                uri: "/api/v1/notifications", method: .post, headers: headers,
                body: ByteBuffer(string: body.replacingOccurrences(of: "Monday", with: "Tuesday")))
            try other.expectProblem(.unprocessableContent)
            #expect(try await world.repository.waitingScheduledSends(senderID: nil).map(\.title) == ["Monday"])
            // A retry that arrives after the time it named is still the first request's answer.
            world.clock.advance(by: 7200)
            let late = try await client.execute(uri: "/api/v1/notifications", method: .post, headers: headers, body: ByteBuffer(string: body))
            #expect(late.status == .accepted)
            #expect(late.headers[.init("Idempotent-Replayed")!] == "true")
            #expect(try late.decode(Scheduled.self).id == first.decode(Scheduled.self).id)
        }
    }
}
