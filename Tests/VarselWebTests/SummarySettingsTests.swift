import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
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
        }
    }
}
