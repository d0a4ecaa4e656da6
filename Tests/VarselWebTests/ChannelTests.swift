import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Testing
import VarselCore
import VarselServer
import VarselService
import VarselStore

@testable import VarselWeb

/// Text messages and email: a person's number and address verified by a code, and the follow-ups that reach them
/// there when a notification goes unseen — once, after the delay, never for a seen or answered one, held by the
/// quiet hours unless urgent, written into the assignment's history, with no personal details in them.
@Suite("Text messages and email", .timeLimit(.minutes(1)))
struct ChannelTests {
    static let contact = NewContact(name: "Per Olsen", phone: "900 00 000", address: "Torggata 3", notes: "Blind since 2019")

    /// Verifies `person`'s `channel` at `address` with the code that was sent there.
    static func verify(_ channel: OutsideChannel, _ address: String, for person: User, in world: TestWorld) async throws {
        try await world.services.channels.start(channel, address: address, for: person)
        let code = try #require(world.outbox.lastCode())
        try await world.services.channels.verify(channel, code: code, for: person)
    }

    /// The follow-ups of `world`, started (its cursor set) before anything is created.
    static func followUps(_ world: TestWorld, delay: TimeInterval = 900) async throws -> FollowUpWorker {
        let worker = world.services.followUps(
            configuration: .init(delay: delay, escalation: .init(remindAfter: 24 * 3600)), logger: Logger(label: "test"))
        try await worker.step()
        return worker
    }

    @Test("a number written the Norwegian way is stored in E.164, its code comes in groups, a wrong code says the tries left, and a code works once")
    func verificationByAPI() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let token = try await client.token("kari")
            let set = try await client.call(.put, "/api/v1/me/channels/sms", token: token, json: #"{"address":"912 34 567"}"#)
            #expect(set.status == .accepted, "\(set.text)")
            #expect(set.text.contains(#""address":"+4791234567""#) && set.text.contains(#""verified":false"#))
            let sent = try #require(world.outbox.texts.last)
            #expect(sent.to == "+4791234567")
            #expect(sent.text.contains(/Your Varsel code is \d{3} \d{3}\. It works for 10 minutes\./), "\(sent.text)")
            let code = try #require(world.outbox.lastCode())
            #expect(!set.text.contains(code))
            let wrong = String(code.reversed()) == code ? "000000" : String(code.reversed())
            let refused = try await client.call(.post, "/api/v1/me/channels/sms/verification", token: token, json: #"{"code":"\#(wrong)"}"#)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("4 tries left") && !refused.text.contains(wrong))
            let verified = try await client.call(
                .post, "/api/v1/me/channels/sms/verification", token: token,
                json: #"{"code":"\#(code.prefix(3)) \#(code.suffix(3))"}"#)
            #expect(verified.status == .ok, "\(verified.text)")
            #expect(verified.text.contains(#""verified":true"#))
            let again = try await client.call(.post, "/api/v1/me/channels/sms/verification", token: token, json: #"{"code":"\#(code)"}"#)
            #expect(again.status == .conflict, "a code works once: \(again.text)")
        }
    }

    @Test("a code expires after ten minutes, a new one waits a minute, and five wrong codes end it")
    func codesExpireAndAreLimited() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await world.services.channels.start(.email, address: "Kari@Example.ORG", for: kari)
        #expect(world.outbox.mails.last?.to == "Kari@example.org")
        await #expect(throws: ChannelVerificationError.tooSoon(seconds: 60)) {
            try await world.services.channels.start(.email, address: "kari@example.org", for: kari)
        }
        let first = try #require(world.outbox.lastCode())
        world.clock.advance(by: 601)
        await #expect(throws: ChannelVerificationError.expired) { try await world.services.channels.verify(.email, code: first, for: kari) }
        try await world.services.channels.start(.email, address: "kari@example.org", for: kari)
        let second = try #require(world.outbox.lastCode())
        let wrong = second == "111111" ? "222222" : "111111"
        for triesLeft in (1...4).reversed() {
            await #expect(throws: ChannelVerificationError.wrongCode(triesLeft: triesLeft)) {
                try await world.services.channels.verify(.email, code: wrong, for: kari)
            }
        }
        await #expect(throws: ChannelVerificationError.tooManyWrongCodes) { try await world.services.channels.verify(.email, code: wrong, for: kari) }
        await #expect(throws: ChannelVerificationError.tooManyWrongCodes) {
            try await world.services.channels.verify(.email, code: second, for: kari)
        }
        #expect(try await world.services.channels.channels(of: kari.id)[.email]?.isVerified == false)
    }

    @Test(
        "what is not a mobile number or an email address is refused naming the field, never echoing it",
        arguments: [("sms", "12345"), ("sms", "+47 123 45 678"), ("sms", "ring meg"), ("email", "kari@"), ("email", "kari example.org")])
    func invalidAddresses(channel: String, address: String) async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let token = try await client.token("kari")
            let refused = try await client.call(.put, "/api/v1/me/channels/\(channel)", token: token, json: #"{"address":"\#(address)"}"#)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains(#""field":"address""#) && !refused.text.contains(address))
            #expect(world.outbox.texts.isEmpty && world.outbox.mails.isEmpty)
        }
    }

    @Test(
        "Norwegian numbers written the usual ways are one number",
        arguments: ["91234567", "912 34 567", "+47 912 34 567", "0047 91234567", "(+47) 91-23-45-67"])
    func norwegianNumbers(written: String) throws {
        #expect(try ContactChannels.normalized(written, channel: .textMessage) == "+4791234567")
    }

    @Test("an unseen assignment reaches the mentor by text message and by email after the delay, each once, and its history says so")
    func followUpOnce() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await Self.verify(.textMessage, "912 34 567", for: kari, in: world)
        try await Self.verify(.email, "kari@example.org", for: kari, in: world)
        let worker = try await Self.followUps(world)
        let before = (world.outbox.texts.count, world.outbox.mails.count)
        let (assignment, _, _) = try await world.services.sender.assign(
            mentor: kari, coordinatorID: world.coordinator.id, contact: Self.contact, urgency: .normal)
        world.clock.advance(by: 899)
        try await worker.step()
        #expect(world.outbox.texts.count == before.0 && world.outbox.mails.count == before.1, "nothing before the delay")
        world.clock.advance(by: 1)
        try await worker.step()
        // Long after, past any lease a sending instance held: nothing goes again.
        world.clock.advance(by: 3 * 3600)
        try await worker.step()
        let texts = world.outbox.texts.dropFirst(before.0)
        let mails = world.outbox.mails.dropFirst(before.1)
        #expect(texts.count == 1 && mails.count == 1)
        let text = try #require(texts.first)
        let mail = try #require(mails.first)
        #expect(text.to == "+4791234567")
        #expect(text.text == "Varsel: New assignment. Open: https://varsel.example.org/contacts/\(assignment.contactID)?assignment=\(assignment.id)")
        #expect(try #require(GSM7.length(text.text)) <= 160)
        #expect(mail.subject == "New assignment in Varsel" && mail.to == "kari@example.org")
        #expect(mail.plainText.contains("https://varsel.example.org/contacts/\(assignment.contactID)?assignment=\(assignment.id)"))
        for words in [text.text, mail.subject, mail.plainText, mail.html] {
            for detail in ["Per Olsen", "900 00 000", "Torggata", "Blind since"] {
                #expect(!words.contains(detail), "a message named \(detail)")
            }
        }
        let summary = try #require(try await world.services.reports.assignmentSummaries([assignment]).first)
        #expect(summary.trail.map(\.step).contains(.textMessageSent) && summary.trail.map(\.step).contains(.emailSent))
        #expect(
            Describer(language: .english).trailLine(try #require(summary.trail.first { $0.step == .textMessageSent }))
                .hasPrefix("Text message sent to the mentor"))
    }

    @Test("an assignment answered, or a notification read, before the delay sends nothing")
    func seenSendsNothing() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await Self.verify(.textMessage, "912 34 567", for: kari, in: world)
        let worker = try await Self.followUps(world)
        let sentBefore = world.outbox.texts.count
        let (assignment, _, _) = try await world.services.sender.assign(
            mentor: kari, coordinatorID: world.coordinator.id, contact: Self.contact, urgency: .normal)
        try await worker.step()
        _ = try await world.repository.respond(to: assignment.id, status: .acknowledged, at: world.clock.now)
        let message = try await world.services.sender.send(
            try Validation.notification(
                kind: "scenarioPrompt", title: "Practice", body: "", urgency: nil, personalDetails: [], allowAssignment: false),
            from: world.coordinator.id, to: [kari.id])
        var preferences = try await world.services.settings.preferences(of: kari.id)
        preferences.textMessageKinds.insert(.scenarioPrompt)
        try await world.services.settings.savePreferences(preferences, for: kari.id)
        try await worker.step()
        _ = try await world.repository.setRead(true, notificationID: message.items[0].id, userID: kari.id, at: world.clock.now)
        world.clock.advance(by: 3600)
        try await worker.step()
        #expect(world.outbox.texts.count == sentBefore)
        #expect(try await world.repository.queuedMessages(notificationID: try #require(assignment.notificationID)).isEmpty)
    }

    @Test(
        "quiet hours hold a normal assignment's text message until the delay after they end, and let an urgent one through; the coordinator sees until when"
    )
    func quietHours() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await Self.verify(.textMessage, "912 34 567", for: kari, in: world)
        // DemoData.now is a weekday at 10:00 in Oslo: quiet hours from 09:00 to 11:00 hold now.
        var preferences = try await world.services.settings.preferences(of: kari.id)
        preferences.quietHours = QuietHours(start: 9 * 60, end: 11 * 60)
        try await world.services.settings.savePreferences(preferences, for: kari.id)
        let worker = try await Self.followUps(world, delay: 60)
        let sentBefore = world.outbox.texts.count
        let (normal, _, _) = try await world.services.sender.assign(
            mentor: kari, coordinatorID: world.coordinator.id, contact: Self.contact, urgency: .normal)
        let (urgent, _, _) = try await world.services.sender.assign(
            mentor: kari, coordinatorID: world.coordinator.id, contact: Self.contact, urgency: .urgent)
        world.clock.advance(by: 60)
        try await worker.step()
        #expect(
            world.outbox.texts.dropFirst(sentBefore).map(\.text) == [
                "Varsel: New assignment. Open: https://varsel.example.org/contacts/\(urgent.contactID)?assignment=\(urgent.id)"
            ])
        try await world.test { client in
            let (cookie, _) = try await client.cookieAndCSRF("coord")
            let page = try await client.execute(
                uri: "/contacts/\(normal.contactID)?assignment=\(normal.id)", method: .get, headers: [.cookie: cookie])
            #expect(
                page.text.contains("The mentor&#39;s quiet hours: the notification waits until 11:00.")
                    || page.text.contains("The mentor's quiet hours: the notification waits until 11:00."), "\(page.text)")
        }
        // A second held assignment, which Kari opens once the quiet hours are over, before its delay has passed.
        let (opened, _, _) = try await world.services.sender.assign(
            mentor: kari, coordinatorID: world.coordinator.id, contact: Self.contact, urgency: .normal)
        world.clock.advance(by: 60)
        try await worker.step()
        world.clock.advance(by: 3600 - 180)
        try await worker.step()
        #expect(world.outbox.texts.count == sentBefore + 1, "still quiet at 10:59")
        // At 11:00 the held push goes; the text message waits the delay after it, so the push can be seen first.
        world.clock.advance(by: 60)
        try await worker.step()
        #expect(world.outbox.texts.count == sentBefore + 1, "nothing yet at 11:00")
        _ = try await world.repository.setRead(true, notificationID: try #require(opened.notificationID), userID: kari.id, at: world.clock.now)
        world.clock.advance(by: 60)
        try await worker.step()
        world.clock.advance(by: 3600)
        try await worker.step()
        #expect(
            world.outbox.texts.dropFirst(sentBefore + 1).map(\.text) == [
                "Varsel: New assignment. Open: https://varsel.example.org/contacts/\(normal.contactID)?assignment=\(normal.id)"
            ], "the unseen one at 11:01, the opened one never")
    }

    @Test("a gateway that cannot be reached is tried again later, and the message goes once")
    func retriesAfterFailure() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await Self.verify(.textMessage, "912 34 567", for: kari, in: world)
        let worker = try await Self.followUps(world, delay: 30)
        let sentBefore = world.outbox.texts.count
        _ = try await world.services.sender.assign(mentor: kari, coordinatorID: world.coordinator.id, contact: Self.contact, urgency: .normal)
        world.clock.advance(by: 30)
        world.outbox.failNext(1)
        try await worker.step()
        #expect(world.outbox.texts.count == sentBefore)
        world.clock.advance(by: 40)
        try await worker.step()
        world.clock.advance(by: 3600)
        try await worker.step()
        #expect(world.outbox.texts.count == sentBefore + 1)
    }

    @Test("the Profile shows the channels, sends a code from its form and verifies it; the settings offer a channel per kind")
    func pages() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let (cookie, csrf) = try await client.cookieAndCSRF("kari")
            let headers: HTTPFields = [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"]
            let profile = try await client.execute(uri: "/profile", method: .get, headers: [.cookie: cookie])
            #expect(profile.text.contains("Mobile number: none") && profile.text.contains(#"<label for="channel-sms-address">Mobile number</label>"#))
            let sent = try await client.execute(
                uri: "/profile/channels/sms", method: .post, headers: headers,
                body: ByteBuffer(string: "_csrf=\(csrf)&address=912+34+567"))
            #expect(sent.status == .seeOther)
            let waiting = try await client.execute(uri: "/profile?done=code-sent-sms", method: .get, headers: [.cookie: cookie])
            #expect(waiting.text.contains("A code was sent to the mobile number. Type it in the code field."))
            #expect(waiting.text.contains("Mobile number +47 912 34 567, not verified: a code was sent"))
            #expect(waiting.text.contains(#"<label for="channel-sms-code">Code sent to +47 912 34 567</label>"#))
            let wrong = try await client.execute(
                uri: "/profile/channels/sms/verify", method: .post, headers: headers,
                body: ByteBuffer(string: "_csrf=\(csrf)&code=12"))
            #expect(wrong.status == .unprocessableContent && wrong.text.contains("Write the six digits of the code."))
            let code = try #require(world.outbox.lastCode())
            let verified = try await client.execute(
                uri: "/profile/channels/sms/verify", method: .post, headers: headers,
                body: ByteBuffer(string: "_csrf=\(csrf)&code=\(code)"))
            #expect(verified.status == .seeOther)
            let done = try await client.execute(uri: "/profile", method: .get, headers: [.cookie: cookie])
            #expect(done.text.contains("Mobile number +47 912 34 567, verified"))
            let settings = try await client.execute(uri: "/settings", method: .get, headers: [.cookie: cookie])
            #expect(settings.text.contains("Assignments by text message") && settings.text.contains("Assignments by email"))
            #expect(
                settings.text.contains("No verified email address yet: add one on your Profile.")
                    && !settings.text.contains("No verified mobile number"))
            let badQuiet = try await client.execute(
                uri: "/settings", method: .post, headers: headers,
                body: ByteBuffer(string: "_csrf=\(csrf)&quiet-start=22%3A00&quiet-end="))
            #expect(
                badQuiet.status == .unprocessableContent
                    && badQuiet.text.contains("Fill in both times, different from each other, or leave both empty."))
            let saved = try await client.execute(
                uri: "/settings", method: .post, headers: headers,
                body: ByteBuffer(string: "_csrf=\(csrf)&sms-assignment=on&quiet-start=22%3A00&quiet-end=07%3A00"))
            #expect(saved.status == .seeOther)
            let stored = try await world.services.settings.preferences(of: world.kari.id)
            #expect(
                stored.quietHours == QuietHours(start: 22 * 60, end: 7 * 60) && stored.textMessageKinds == [.assignment] && stored.emailKinds.isEmpty)
            // Typed on a phone's number pad, which has no colon.
            let digits = try await client.execute(
                uri: "/settings", method: .post, headers: headers,
                body: ByteBuffer(string: "_csrf=\(csrf)&sms-assignment=on&quiet-start=2130&quiet-end=7"))
            #expect(digits.status == .seeOther)
            #expect(try await world.services.settings.preferences(of: world.kari.id).quietHours == QuietHours(start: 21 * 60 + 30, end: 7 * 60))
        }
    }

    @Test("a coordinator sets a mentor's number on their page, the code goes to the mentor, and the page says whether it is verified")
    func coordinatorSetsNumber() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let (cookie, csrf) = try await client.cookieAndCSRF("coord")
            let sent = try await client.execute(
                uri: "/people/\(world.ola.id)/channels/sms", method: .post,
                headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "_csrf=\(csrf)&address=41234567"))
            #expect(sent.status == .seeOther)
            #expect(world.outbox.texts.last?.to == "+4741234567")
            #expect(world.outbox.texts.last?.text.hasPrefix("Koden din til Varsel er ") == true, "Ola reads Norwegian")
            // The code went to Ola, who types it on his own Profile: the coordinator's page has no code field to point to.
            #expect(sent.headers[.location] == "/people/\(world.ola.id)?done=code-sent-for-sms")
            let page = try await client.execute(uri: "/people/\(world.ola.id)?done=code-sent-for-sms", method: .get, headers: [.cookie: cookie])
            #expect(page.text.contains("Mobile number +47 412 34 567, not verified: a code was sent"))
            #expect(page.text.contains("A code was sent to the mobile number. Its owner types it on their own Profile."))
            #expect(!page.text.contains("Type it in the code field"))
        }
    }

    @Test("a follow-up that came due hours before the worker read it is not sent at all")
    func staleFollowUpsAreNotQueued() async throws {
        let world = try await TestWorld()
        let kari = try #require(world.kari)
        try await Self.verify(.textMessage, "912 34 567", for: kari, in: world)
        let worker = try await Self.followUps(world)
        let sentBefore = world.outbox.texts.count
        _ = try await world.services.sender.assign(mentor: kari, coordinatorID: world.coordinator.id, contact: Self.contact, urgency: .normal)
        // The worker was stopped for seven hours (or text messages were just set up).
        world.clock.advance(by: 7 * 3600)
        try await worker.step()
        let (recent, _, _) = try await world.services.sender.assign(
            mentor: kari, coordinatorID: world.coordinator.id, contact: Self.contact,
            urgency: .normal)
        world.clock.advance(by: 900)
        try await worker.step()
        #expect(
            world.outbox.texts.dropFirst(sentBefore).map(\.text) == [
                "Varsel: New assignment. Open: https://varsel.example.org/contacts/\(recent.contactID)?assignment=\(recent.id)"
            ])
    }

    @Test("the command line's messaging settings: secrets from files or the environment, https to a remote gateway, a sender that fits")
    func commandLineSettings() throws {
        func refusal(_ body: () throws -> MessagingConfiguration) -> String? {
            do {
                _ = try body()
                return nil
            } catch { return "\(error)" }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("varsel-messaging-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tokenFile = folder.appendingPathComponent("token").path
        try "secret-token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        func sms(_ url: String, sender: String = "Varsel", token: String? = tokenFile, environment: [String: String] = [:]) throws
            -> MessagingConfiguration
        {
            try Administration.messaging(
                smtpHost: nil, smtpPort: nil, smtpSecurity: "starttls", smtpUsername: nil, smtpPasswordFile: nil, smtpCAFile: nil,
                mailFrom: nil, smsGatewayURL: url, smsGatewayFormat: "json", smsGatewayTokenFile: token, smsSender: sender,
                environment: environment)
        }
        #expect(try sms("https://gateway.example/sms").textMessages?.token == "secret-token")
        #expect(try sms("http://127.0.0.1:9000/sms").textMessages != nil)
        #expect(refusal { try sms("http://gateway.example/sms") }?.hasPrefix("--sms-gateway-url must be an https URL") == true)
        #expect(refusal { try sms("https://gateway.example/sms", sender: "Varsel Oslo Sentrum") }?.hasPrefix("--sms-sender must be") == true)
        #expect(refusal { try sms("https://gateway.example/sms", token: nil) }?.hasPrefix("--sms-gateway-url needs a token") == true)
        #expect(
            try sms("https://gateway.example/sms", token: nil, environment: ["VARSEL_SMS_GATEWAY_TOKEN": "from-env"]).textMessages?.token
                == "from-env")
        func smtp(
            username: String? = "varsel", passwordFile: String? = nil, from: String? = "Varsel <varsel@example.org>", security: String = "starttls",
            host: String = "smtp.example.org", environment: [String: String] = [:]
        ) throws -> MessagingConfiguration {
            try Administration.messaging(
                smtpHost: host, smtpPort: nil, smtpSecurity: security, smtpUsername: username, smtpPasswordFile: passwordFile,
                smtpCAFile: nil, mailFrom: from, smsGatewayURL: nil, smsGatewayFormat: "json", smsGatewayTokenFile: nil,
                smsSender: "Varsel", environment: environment)
        }
        let configured = try smtp(environment: ["VARSEL_SMTP_PASSWORD": "pw"])
        #expect(
            configured.smtp?.port == 587 && configured.smtp?.password == "pw" && configured.mailFromName == "Varsel"
                && configured.mailFromAddress == "varsel@example.org")
        #expect(try smtp(passwordFile: tokenFile, security: "tls").smtp?.port == 465)
        #expect(refusal { try smtp() }?.hasPrefix("--smtp-username needs a password") == true)
        #expect(refusal { try smtp(username: nil, security: "none") }?.hasPrefix("--smtp-security none is only for") == true)
        #expect(try smtp(username: nil, security: "none", host: "localhost").smtp?.port == 25)
        #expect(refusal { try smtp(username: nil, from: "not an address") }?.hasPrefix("--mail-from must be") == true)
    }
}
