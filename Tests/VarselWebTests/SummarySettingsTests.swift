import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselWeb

/// The summary on the settings page and in the API: which kinds it gathers and when it comes.
@Suite("Summary settings")
struct SummarySettingsTests {
    @Test("the settings page offers a summary switch per kind it may gather and its time; a save stores them and schedules it")
    func settingsPage() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await world.test { client in
            let (cookie, csrf) = try await client.cookieAndCSRF("kari")
            let page = try await client.execute(uri: "/settings", method: .get, headers: [.cookie: cookie])
            for kind in ["certificationExpiry", "pauseConfirmation", "scenarioPrompt"] {
                #expect(page.text.contains(#"name="summary-\#(kind)""#))
            }
            #expect(!page.text.contains(#"name="summary-assignment""#), "an assignment always comes at once")
            #expect(page.text.contains(#"<legend>Summary</legend>"#))
            #expect(page.text.contains(#"id="summary-time" name="summary-time" value="16:00""#))
            let saved = try await client.execute(
                uri: "/settings", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "_csrf=\(csrf)&sound=on&summary-certificationExpiry=on&summary-scenarioPrompt=on&summary-time=0730"))
            #expect(saved.status == .seeOther)
        }
        let preferences = try await world.services.settings.preferences(of: kari.id)
        #expect(preferences.summaryKinds == [.certificationExpiry, .scenarioPrompt])
        #expect(preferences.summaryTime == SummaryTime(minute: 7 * 60 + 30))
        let due = try #require(try await world.store.dueSummaries(at: .distantFuture, limit: 10).first)
        #expect(due.userID == kari.id && due.dueAt == preferences.summaryTime.next(after: world.clock.now))
    }

    @Test("a summary time that is no time is refused on its field while a kind is gathered, and nothing is stored")
    func refusedTime() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        let before = try await world.services.settings.preferences(of: kari.id)
        try await world.test { client in
            let (cookie, csrf) = try await client.cookieAndCSRF("kari")
            for typed in ["", "25%3A00", "noon"] {
                let refused = try await client.execute(
                    uri: "/settings", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "_csrf=\(csrf)&summary-pauseConfirmation=on&summary-time=\(typed)"))
                #expect(refused.status == .unprocessableContent)
                #expect(refused.text.contains(#"id="summary-time-error">Write the summary time as hours and minutes, such as 16:00."#))
                #expect(refused.text.contains(#"aria-describedby="summary-hint summary-time-error" aria-invalid="true""#))
                #expect(refused.text.contains(#"name="summary-pauseConfirmation" checked"#), "the switches as sent")
            }
            // With nothing gathered, an empty time keeps the stored one.
            let saved = try await client.execute(
                uri: "/settings", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "_csrf=\(csrf)&sound=on&summary-time="))
            #expect(saved.status == .seeOther)
        }
        #expect(try await world.services.settings.preferences(of: kari.id).summaryTime == before.summaryTime)
        #expect(try await world.store.dueSummaries(at: .distantFuture, limit: 10).isEmpty)
    }

    @Test("the API reads and writes the summary; an assignment kind or a time that is no time is refused naming the field")
    func api() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let token = try await client.token("kari")
            let prefs = try await client.call(.get, "/api/v1/preferences", token: token).decode(PreferencesResource.self)
            #expect(prefs.summaryKinds == [] && prefs.summaryTime == "16:00")
            var changed = prefs
            changed.summaryKinds = [.scenarioPrompt, .certificationExpiry]
            changed.summaryTime = "08:15"
            let json = String(decoding: try JSONEncoder().encode(changed), as: UTF8.self)
            let answered = try await client.call(.put, "/api/v1/preferences", token: token, json: json).decode(PreferencesResource.self)
            #expect(answered.summaryKinds == [.certificationExpiry, .scenarioPrompt] && answered.summaryTime == "08:15")
            let base = #""enabledKinds":[],"sound":true,"vibration":true,"systemNotifications":true,"speakPersonalDetails":false"#
            for (body, field) in [(#"{\#(base),"summaryKinds":["assignment"]}"#, "summaryKinds"), (#"{\#(base),"summaryTime":"8"}"#, "summaryTime")] {
                let problem = try await client.call(.put, "/api/v1/preferences", token: token, json: body)
                _ = try problem.expectProblem(.unprocessableContent)
                #expect(try problem.decode(ProblemBody.self).errors?.map(\.field) == [field])
            }
            // Left out, both stay.
            let kept = try await client.call(.put, "/api/v1/preferences", token: token, json: "{\(base)}").decode(PreferencesResource.self)
            #expect(kept.summaryKinds == [.certificationExpiry, .scenarioPrompt] && kept.summaryTime == "08:15")
            // A coordinator's daily email, read and written the same way.
            let coordinator = try await client.token("coord")
            #expect(try await client.call(.get, "/api/v1/preferences", token: coordinator).decode(PreferencesResource.self).assignmentDigest == false)
            let digest = try await client.call(.put, "/api/v1/preferences", token: coordinator, json: #"{\#(base),"assignmentDigest":true}"#)
            #expect(try digest.decode(PreferencesResource.self).assignmentDigest == true)
        }
    }
}

/// A coordinator's daily email of the assignments they manage that are unanswered, overdue or declined.
@Suite("Daily email of open assignments")
struct AssignmentDigestTests {
    /// Sends `coordinator` assignments for Kari and Ola at the world's clock; declines Ola's.
    static func openAssignments(in world: TestWorld) async throws -> (old: Assignment, declined: Assignment) {
        let (old, _, _) = try await world.services.sender.assign(
            mentor: world.kari, coordinatorID: world.coordinator.id, contact: ChannelTests.contact, urgency: .normal)
        world.clock.advance(by: 25 * 3600)
        let (young, _, _) = try await world.services.sender.assign(
            mentor: world.ola, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Ida Lund", phone: "", address: "Kirkegata 5", notes: ""), urgency: .normal)
        let declined = try await world.services.answers.answer(young.id, with: .declined, by: world.ola.id)
        let (done, _, _) = try await world.services.sender.assign(
            mentor: world.kari, coordinatorID: world.coordinator.id, contact: NewContact(name: "Åse Berg", phone: "", address: "Bygata 2", notes: ""),
            urgency: .normal)
        _ = try await world.services.answers.answer(done.id, with: .acknowledged, by: world.kari.id)
        return (old, declined)
    }

    @Test("at the summary time the coordinator gets one email naming assignments by number and mentor, never the person visited")
    func oneEmailAtTheTime() async throws {
        let world = try await TestWorld()
        try await ChannelTests.verify(.email, "coord@example.org", for: world.coordinator, in: world)
        var preferences = try await world.services.settings.preferences(of: world.coordinator.id)
        preferences.isAssignmentDigestOn = true
        try await world.services.settings.savePreferences(preferences, for: world.coordinator.id)
        let (old, declined) = try await Self.openAssignments(in: world)
        let before = world.outbox.mails.count
        let due = try #require(try await world.store.dueSummaries(at: .distantFuture, limit: 10).first)
        world.clock.set(max(due.dueAt, world.clock.now))
        let sent = try await world.services.summaries.sendDue()
        #expect(sent.map(\.email) == [.sent])
        #expect(try await world.services.summaries.sendDue().isEmpty, "once a day")
        let mails = Array(world.outbox.mails.dropFirst(before))
        let mail = try #require(mails.first)
        #expect(mails.count == 1 && mail.to == "coord@example.org")
        #expect(mail.subject == "Open assignments: 1 overdue, 1 declined")
        #expect(mail.plainText.contains("Assignment \(old.id): Kari, waiting for an answer, "))
        #expect(mail.plainText.contains(", overdue\nAssignment \(declined.id): Ola, declined, "))
        #expect(mail.plainText.contains("https://varsel.example.org/coordinator/assignments"))
        for detail in ["Per Olsen", "Torggata", "Ida Lund", "Kirkegata", "Åse", "Blind"] {
            #expect(!mail.plainText.contains(detail) && !mail.html.contains(detail), "the email names no one visited")
        }
        #expect(mail.html.contains("<li>Assignment \(old.id): Kari, waiting for an answer, "))
    }

    @Test("a mentor is not offered the email; a coordinator is, on the settings page, beside the summary's switches")
    func offeredToCoordinators() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let (mentor, _) = try await client.cookieAndCSRF("kari")
            let mentorPage = try await client.execute(uri: "/settings", method: .get, headers: [.cookie: mentor])
            #expect(!mentorPage.text.contains("assignment-digest"))
            let (coordinator, csrf) = try await client.cookieAndCSRF("coord")
            let page = try await client.execute(uri: "/settings", method: .get, headers: [.cookie: coordinator])
            #expect(page.text.contains(#"name="assignment-digest""#) && page.text.contains("Daily email of open assignments"))
            let saved = try await client.execute(
                uri: "/settings", method: .post, headers: [.cookie: coordinator, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "_csrf=\(csrf)&assignment-digest=on&summary-time=17%3A00"))
            #expect(saved.status == .seeOther)
            // A mentor who sends the switch anyway does not get it.
            let (_, mentorCSRF) = try await client.cookieAndCSRF("kari")
            _ = try await client.execute(
                uri: "/settings", method: .post, headers: [.cookie: mentor, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "_csrf=\(mentorCSRF)&assignment-digest=on&summary-time=17%3A00"))
        }
        #expect(try await world.services.settings.preferences(of: world.coordinator.id).isAssignmentDigestOn)
        #expect(try await world.services.settings.preferences(of: world.kari.id).isAssignmentDigestOn == false)
        #expect(try await world.store.dueSummaries(at: .distantFuture, limit: 10).map(\.userID) == [world.coordinator.id])
    }

    @Test("no email when nothing is open or there is no verified address; a failed one is said and not sent again")
    func noEmail() async throws {
        let world = try await TestWorld()
        var preferences = try await world.services.settings.preferences(of: world.coordinator.id)
        preferences.isAssignmentDigestOn = true
        try await world.services.settings.savePreferences(preferences, for: world.coordinator.id)
        func nextRound() async throws -> [Summaries.EmailOutcome?] {
            let due = try #require(try await world.store.dueSummaries(at: .distantFuture, limit: 10).first)
            world.clock.set(max(due.dueAt, world.clock.now))
            return try await world.services.summaries.sendDue().map(\.email)
        }
        #expect(try await nextRound() == [.noAddress])
        try await ChannelTests.verify(.email, "coord@example.org", for: world.coordinator, in: world)
        #expect(try await nextRound() == [.nothingOpen])
        _ = try await Self.openAssignments(in: world)
        world.outbox.failNext(1)
        let before = world.outbox.mails.count
        #expect(try await nextRound() == [.failed])
        #expect(try await world.services.summaries.sendDue().isEmpty && world.outbox.mails.count == before)
    }
}
