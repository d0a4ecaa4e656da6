import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselWeb

@Suite("Scheduled sends in the coordinator's pages")
struct ScheduledSendPageTests {
    /// The next moment after `date` that Oslo's clocks show `hour`:00, worked out day by day.
    static func nextOslo(hour: Int, after date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = osloTimeZone
        var day = calendar.startOfDay(for: date)
        while true {
            let candidate = calendar.date(bySettingHour: hour, minute: 0, second: 0, of: day)!
            if candidate > date { return candidate }
            day = calendar.date(byAdding: .day, value: 1, to: day)!
        }
    }

    static func post(_ client: any TestClientProtocol, _ path: String, token: String, form: String) async throws -> TestResponse {
        try await PageFormTests.post(client, path, token: token, form: form)
    }

    static func page(_ client: any TestClientProtocol, _ path: String, token: String) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer \(token)"])
    }

    @Test("a time alone schedules the next such time in Oslo; the list says what, to whom and when, and nothing is sent until then")
    func timeAloneIsTheNextSuchTime() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await world.test { client in
            let token = try await client.token("coord")
            let posted = try await Self.post(
                client, "/coordinator/notifications", token: token,
                form: "recipient=\(kari.id)&kind=scenarioPrompt&title=Monday+practice&body=Call+me&sendTime=8&sendDay=")
            #expect(posted.status == .seeOther)
            #expect(posted.headers[.location] == "/coordinator?done=scheduled")
            let expected = Self.nextOslo(hour: 8, after: world.clock.now)
            let waiting = try await world.repository.waitingScheduledSends(senderID: nil)
            #expect(waiting.map(\.sendAt) == [expected])
            #expect(waiting.map(\.title) == ["Monday practice"])
            #expect(try await world.repository.notifications(for: kari.id, filter: .all, after: nil, limit: 10).items.isEmpty)
            let page = try await Self.page(client, "/coordinator?done=scheduled", token: token)
            let strings = Strings(.english)
            #expect(page.text.contains(strings.scheduledConfirmation))
            let row = strings.scheduledSend(
                title: "Monday practice", kind: .scenarioPrompt, recipients: ["Kari"], at: expected, timeZone: osloTimeZone)
            #expect(page.text.contains(row), "\(row)")
            #expect(page.text.contains(">Change Monday practice</a>"))
            #expect(page.text.contains(">Do not send Monday practice</button>"))
            #expect(!page.text.contains(strings.nothingScheduled))
        }
    }

    @Test("the Scenarios page publishes later with the same time fields: listed under Scheduled sends, and no mentor has it yet")
    func scenarioLater() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await world.test { client in
            let token = try await client.token("coord")
            let page = try await Self.page(client, "/scenarios", token: token)
            #expect(page.text.contains(#"<label for="send-time">Send later at</label>"#) && page.text.contains(#"id="send-day""#))
            let refused = try await Self.post(
                client, "/coordinator/scenarios", token: token, form: "title=Stairs&body=Guide+down&audience=all&sendTime=&sendDay=2026-12-01")
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains(#"id="send-time-error">\#(Strings(.english).sendTimeRequired)"#))
            #expect(try await world.repository.waitingScheduledSends(senderID: nil).isEmpty)
            let posted = try await Self.post(
                client, "/coordinator/scenarios", token: token,
                form: "title=Stairs&body=Guide+down&audience=chosen&mentors%5B%5D=\(kari.id)&sendTime=0800&sendDay=")
            #expect(posted.status == .seeOther)
            #expect(posted.headers[.location] == "/scenarios?done=scheduled")
            let waiting = try await world.repository.waitingScheduledSends(senderID: nil)
            #expect(waiting.map(\.sendAt) == [Self.nextOslo(hour: 8, after: world.clock.now)])
            #expect(waiting.map(\.publishesScenario) == [true] && waiting.map(\.recipientIDs) == [[kari.id]])
            #expect(try await world.repository.scenarios(forMentor: kari.id).isEmpty)
            let listed = try await Self.page(client, "/coordinator", token: token)
            #expect(listed.text.contains(">Change Stairs</a>"))
        }
    }

    @Test("a day and a time are changed on the send's page; cancelling it empties the list, and it never goes")
    func changeThenCancel() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await world.test { client in
            let token = try await client.token("coord")
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = osloTimeZone
            let later = calendar.date(byAdding: .day, value: 3, to: world.clock.now)!
            let parts = calendar.dateComponents([.year, .month, .day], from: later)
            let day = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            let scheduled = try await Self.post(
                client, "/coordinator/notifications", token: token,
                form: "recipient=\(kari.id)&kind=scenarioPrompt&title=Practice&body=&sendTime=09.30&sendDay=\(day)")
            #expect(scheduled.status == .seeOther)
            let send = try #require(try await world.repository.waitingScheduledSends(senderID: nil).first)
            #expect(send.sendAt == calendar.date(bySettingHour: 9, minute: 30, second: 0, of: calendar.startOfDay(for: later)))
            let form = try await Self.page(client, "/coordinator/scheduled/\(send.id)", token: token)
            #expect(form.status == .ok)
            #expect(form.text.contains(#"id="scheduled-time" name="sendTime" value="09:30""#))
            #expect(form.text.contains(#"name="sendDay" value="\#(day)""#))
            let emptied = try await Self.post(
                client, "/coordinator/scheduled/\(send.id)", token: token, form: "title=Practice&body=&sendTime=&sendDay=\(day)")
            #expect(emptied.status == .unprocessableContent)
            #expect(emptied.text.contains(##"<a href="#scheduled-time">Send later at: This field is required.</a>"##))
            let changed = try await Self.post(
                client, "/coordinator/scheduled/\(send.id)", token: token, form: "title=Practice+call&body=Bring+notes&sendTime=1015&sendDay=\(day)")
            #expect(changed.headers[.location] == "/coordinator?done=scheduled-changed")
            let now = try #require(try await world.repository.scheduledSend(id: send.id))
            #expect(now.title == "Practice call" && now.body == "Bring notes")
            #expect(now.sendAt == calendar.date(bySettingHour: 10, minute: 15, second: 0, of: calendar.startOfDay(for: later)))
            let cancelled = try await Self.post(client, "/coordinator/scheduled/\(send.id)/cancel", token: token, form: "")
            #expect(cancelled.headers[.location] == "/coordinator?done=scheduled-cancelled")
            let list = try await Self.page(client, "/coordinator?done=scheduled-cancelled", token: token)
            #expect(list.text.contains(Strings(.english).scheduledCancelledConfirmation))
            #expect(list.text.contains(Strings(.english).nothingScheduled))
            // Its page, opened from a list loaded before it was cancelled, leads back to the list and says why.
            let gone = try await Self.page(client, "/coordinator/scheduled/\(send.id)", token: token)
            #expect(gone.headers[.location] == "/coordinator?done=scheduled-gone")
            let again = try await Self.post(client, "/coordinator/scheduled/\(send.id)/cancel", token: token, form: "")
            #expect(again.headers[.location] == "/coordinator?done=scheduled-gone")
            #expect(try await Self.page(client, "/coordinator?done=scheduled-gone", token: token).text.contains(Strings(.english).scheduledSendGone))
            world.clock.advance(by: 4 * 86400)
            #expect(try await world.services.scheduledSends.sendDue().isEmpty)
            #expect(try await world.repository.notifications(for: kari.id, filter: .all, after: nil, limit: 10).items.isEmpty)
        }
    }

    @Test(
        "the send-later fields refuse, each on its field and in words, what cannot be scheduled; nothing is stored or sent",
        arguments: [
            ("sendTime=&sendDay=2031-06-01", "send-time", Strings(.english).sendTimeRequired),
            ("sendTime=25:00&sendDay=", "send-time", Strings(.english).invalidClockTime),
            ("sendTime=08:00&sendDay=2031-02-30", "send-day", Strings(.english).invalidDay),
            ("sendTime=08:00&sendDay=2020-01-01", "send-time", Strings(.english).sendTimeInFuture),
            ("sendTime=08:00&sendDay=2099-01-01", "send-time", Strings(.english).sendTimeWithinYear),
            ("sendTime=08:00&sendDay=&personalDetails=Kari+Nordmann", "send-details", Strings(.english).personalDetailsSentAtOnce),
        ])
    func refusals(fields: String, fieldID: String, message: String) async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await world.test { client in
            let token = try await client.token("coord")
            let page = try await Self.post(
                client, "/coordinator/notifications", token: token,
                form: "recipient=\(kari.id)&kind=scenarioPrompt&title=Practice&body=&" + fields)
            #expect(page.status == .unprocessableContent)
            #expect(page.text.contains("<a href=\"#\(fieldID)\">"), "the summary links to the field")
            #expect(page.text.contains(message))
            #expect(try await world.repository.waitingScheduledSends(senderID: nil).isEmpty)
            #expect(try await world.repository.notifications(for: kari.id, filter: .all, after: nil, limit: 10).items.isEmpty)
        }
    }

    @Test("a coordinator sees, changes and cancels only their own scheduled sends; an administrator, everyone's")
    func onlyTheirOwn() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        let other = try await UserAdministration(repository: world.repository, passwords: world.services.passwords).add(
            username: "coord2", password: TestWorld.password, role: "coordinator", displayName: "Coord Two", locale: "en", at: world.clock.now)
        let message = try Validation.notification(
            kind: "scenarioPrompt", title: "Theirs", body: "", urgency: nil, personalDetails: [], allowAssignment: false)
        let send = try await world.services.scheduledSends.schedule(
            message, from: other.id, to: [kari.id], at: world.clock.now.addingTimeInterval(7200))
        try await world.test { client in
            let token = try await client.token("coord")
            #expect(!(try await Self.page(client, "/coordinator", token: token).text.contains("Theirs")))
            #expect(try await Self.page(client, "/coordinator/scheduled/\(send.id)", token: token).status == .notFound)
            #expect(try await Self.post(client, "/coordinator/scheduled/\(send.id)/cancel", token: token, form: "").status == .notFound)
            let admin = try await client.token("admin")
            #expect(try await Self.page(client, "/coordinator", token: admin).text.contains("Do not send Theirs"))
            #expect(try await world.repository.scheduledSend(id: send.id)?.state == .waiting)
        }
    }
}
