import Foundation
import Testing
import VarselCore
import VarselStore

/// Accounts in every store: one-time password links, deactivation, roles, certifications and the change log.
@Suite("Store contract: accounts")
struct AccountStoreContractTests {
    let now = DemoData.now

    func session(_ hash: String, _ userID: UserID) -> Session {
        Session(tokenHash: hash, userID: userID, csrfToken: "c", createdAt: now, expiresAt: now.addingTimeInterval(3600))
    }

    @Test("a user created with a link has no usable password until the link is used, once", arguments: StoreKind.allCases)
    func passwordLinkIsUsedOnce(kind: StoreKind) async throws {
        let store = try await kind.make()
        let admin = try await store.createUser(
            NewUser(username: "admin", displayName: "Admin", role: .admin, passwordHash: "a", language: .english), at: now)
        let link = PasswordLink(tokenHash: "link-1", expiresAt: now.addingTimeInterval(72 * 3600))
        let kari = try await store.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "", language: .norwegianBokmal),
            link: link, by: admin.id, at: now)
        #expect(try await store.passwordLinkUser(tokenHash: "link-1", at: now)?.id == kari.id)
        #expect(try await store.passwordLinkUser(tokenHash: "link-1", at: link.expiresAt) == nil)
        #expect(try await store.passwordLinkUser(tokenHash: "other", at: now) == nil)
        try await store.createSession(session("s1", kari.id))

        let set = try await store.usePasswordLink(tokenHash: "link-1", passwordHash: "chosen", at: now.addingTimeInterval(60))
        #expect(set?.passwordHash == "chosen")
        #expect(try await store.user(id: kari.id)?.passwordHash == "chosen")
        #expect(try await store.session(tokenHash: "s1", at: now) == nil)
        #expect(try await store.usePasswordLink(tokenHash: "link-1", passwordHash: "again", at: now.addingTimeInterval(61)) == nil)
        #expect(try await store.user(id: kari.id)?.passwordHash == "chosen")

        let log = try await store.accountLog(userID: kari.id)
        #expect(log.map(\.action) == [.created, .passwordSet])
        #expect(log.map(\.actorID) == [admin.id, kari.id])
        #expect(log.first?.subject == "mentor")
        #expect(log.last?.at == now.addingTimeInterval(60))
    }

    @Test("an expired link sets nothing; a new link replaces the unused one and ends every session", arguments: StoreKind.allCases)
    func newLinkReplacesOld(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await store.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "old", language: .english),
            link: PasswordLink(tokenHash: "first", expiresAt: now.addingTimeInterval(60)), by: nil, at: now)
        #expect(try await store.usePasswordLink(tokenHash: "first", passwordHash: "late", at: now.addingTimeInterval(60)) == nil)
        try await store.createSession(session("s1", kari.id))
        try await store.createSession(session("s2", kari.id))
        let outcome = try await store.changeAccount(
            userID: kari.id, .passwordLink(PasswordLink(tokenHash: "second", expiresAt: now.addingTimeInterval(3600))),
            log: [NewAccountLogEntry(actorID: nil, action: .passwordLinkIssued)], at: now)
        #expect(Set(outcome.endedSessions) == ["s1", "s2"])
        #expect(try await store.session(tokenHash: "s1", at: now) == nil)
        #expect(try await store.passwordLinkUser(tokenHash: "first", at: now) == nil)
        #expect(try await store.passwordLinkUser(tokenHash: "second", at: now)?.id == kari.id)
        #expect(try await store.user(id: kari.id)?.passwordHash == "old")
        #expect(try await store.accountLog(userID: kari.id).map(\.action) == [.created, .passwordLinkIssued])
    }

    @Test("deactivating ends sessions, push subscriptions and links, keeps the data; reactivating undoes it", arguments: StoreKind.allCases)
    func deactivation(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await store.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "h", language: .english), at: now)
        let ola = try await store.createUser(
            NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "h", language: .english), at: now)
        try await store.createSession(session("kari-session", kari.id))
        try await store.createSession(session("ola-session", ola.id))
        _ = try await store.savePushSubscription(
            NewPushSubscription(
                userID: kari.id, sessionTokenHash: "kari-session", endpoint: "https://push.example/k",
                p256dh: Data(repeating: 4, count: 65), auth: Data(repeating: 1, count: 16),
                actionSecret: Data(repeating: 2, count: 32)), at: now)
        _ = try await store.changeAccount(
            userID: kari.id, .passwordLink(PasswordLink(tokenHash: "link", expiresAt: now.addingTimeInterval(3600))), log: [], at: now)
        try await store.createSession(session("kari-session-2", kari.id))
        _ = try await store.savePushSubscription(
            NewPushSubscription(
                userID: kari.id, sessionTokenHash: "kari-session-2", endpoint: "https://push.example/k2",
                p256dh: Data(repeating: 4, count: 65), auth: Data(repeating: 1, count: 16),
                actionSecret: Data(repeating: 2, count: 32)), at: now)
        let created = try await store.createNotifications(
            [
                NewNotification(
                    recipientID: kari.id, senderID: nil, kind: .scenarioPrompt, title: "T", body: "B",
                    deepLink: .scenario(scenarioID: nil))
            ], idempotencyKey: nil, at: now)

        let later = now.addingTimeInterval(120)
        let outcome = try await store.changeAccount(
            userID: kari.id, .deactivate, log: [NewAccountLogEntry(actorID: ola.id, action: .deactivated)], at: later)
        #expect(outcome.endedSessions == ["kari-session-2"])
        #expect(outcome.user.deactivatedAt == later)
        #expect(try await store.user(id: kari.id)?.isActive == false)
        #expect(try await store.session(tokenHash: "kari-session-2", at: later) == nil)
        #expect(try await store.session(tokenHash: "ola-session", at: later) != nil)
        #expect(try await store.pushSubscriptions(for: kari.id).isEmpty)
        #expect(try await store.passwordLinkUser(tokenHash: "link", at: later) == nil)
        #expect(try await store.notification(id: created.items[0].id) != nil)
        #expect(try await store.events(for: kari.id, after: 0, limit: 100).last?.type == .accountDeactivated)

        let again = try await store.changeAccount(userID: kari.id, .deactivate, log: [], at: later.addingTimeInterval(60))
        #expect(again.user.deactivatedAt == later)
        let back = try await store.changeAccount(
            userID: kari.id, .reactivate, log: [NewAccountLogEntry(actorID: ola.id, action: .reactivated)], at: later)
        #expect(back.user.isActive)
        #expect(try await store.user(username: "kari")?.deactivatedAt == nil)
        #expect(try await store.accountLog(userID: kari.id).map(\.action) == [.created, .deactivated, .reactivated])
    }

    @Test("a role change and certification changes are made with their log entries", arguments: StoreKind.allCases)
    func roleAndCertifications(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await store.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "h", language: .english), at: now)
        let outcome = try await store.changeAccount(
            userID: kari.id, .role(.coordinator),
            log: [NewAccountLogEntry(actorID: nil, action: .roleChanged, subject: "coordinator")], at: now)
        #expect(outcome.user.role == .coordinator)
        #expect(try await store.user(id: kari.id)?.role == .coordinator)

        let expiry = now.addingTimeInterval(30 * 86400)
        let added = try await store.changeAccount(
            userID: kari.id, .certifications([NewCertification(name: "Guide", expiresAt: expiry)]),
            log: [NewAccountLogEntry(actorID: nil, action: .certificationAdded, subject: "Guide", date: expiry)], at: now)
        #expect(added.certifications.map(\.name) == ["Guide"])
        let renewedExpiry = expiry.addingTimeInterval(365 * 86400)
        let renewed = try await store.changeAccount(
            userID: kari.id, .certifications([NewCertification(name: "Guide", expiresAt: renewedExpiry)]),
            log: [NewAccountLogEntry(actorID: nil, action: .certificationRenewed, subject: "Guide", date: renewedExpiry)], at: now)
        #expect(renewed.certifications.map(\.expiresAt) == [renewedExpiry])
        #expect(renewed.certifications.first?.id != added.certifications.first?.id)
        #expect(try await store.certifications(mentorID: kari.id) == renewed.certifications)

        let log = try await store.accountLog(userID: kari.id)
        #expect(log.map(\.action) == [.created, .roleChanged, .certificationAdded, .certificationRenewed])
        #expect(log.last?.date == renewedExpiry)
        #expect(log.last?.subject == "Guide")
        await #expect(throws: StoreError.notFound(.user)) {
            try await store.changeAccount(userID: 999, .reactivate, log: [], at: now)
        }
    }

    @Test("a password change is in the change log as the user's own", arguments: StoreKind.allCases)
    func passwordChangeIsLogged(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await store.createUser(
            NewUser(username: "kari", displayName: "Kari", role: .mentor, passwordHash: "h", language: .english), at: now)
        _ = try await store.changePassword(userID: kari.id, passwordHash: "new", keeping: nil, at: now.addingTimeInterval(5))
        let log = try await store.accountLog(userID: kari.id)
        #expect(log.map(\.action) == [.created, .passwordChanged])
        #expect(log.last?.actorID == kari.id)
        #expect(log.last?.at == now.addingTimeInterval(5))
    }
}

/// Who read a contact's personal details, in every store.
@Suite("Store contract: contact reads")
struct ContactReadStoreContractTests {
    let now = DemoData.now

    @Test("each read is recorded with who, which channel and when, listed per contact, and pruned by age", arguments: StoreKind.allCases)
    func readsAreRecordedAndPruned(kind: StoreKind) async throws {
        let store = try await kind.make()
        try await store.recordContactRead(contactID: 7, userID: 1, channel: .contactPage, at: now)
        try await store.recordContactRead(contactID: 8, userID: 1, channel: .contactAPI, at: now)
        try await store.recordContactRead(contactID: 7, userID: 2, channel: .push, at: now.addingTimeInterval(60))
        let reads = try await store.contactReads(contactID: 7)
        #expect(reads.map(\.userID) == [1, 2])
        #expect(reads.map(\.channel) == [.contactPage, .push])
        #expect(reads.map(\.at) == [now, now.addingTimeInterval(60)])
        #expect(try await store.pruneContactReads(before: now.addingTimeInterval(30)) == 2)
        #expect(try await store.contactReads(contactID: 7).map(\.channel) == [.push])
        #expect(try await store.contactReads(contactID: 8).isEmpty)
    }
}

/// Erasing a contact's details in every store.
@Suite("Store contract: erasing a contact")
struct ContactErasureStoreContractTests {
    let now = DemoData.now

    @Test(
        "erasing empties the contact, the visit note, its notifications and their event-log copies; closed contacts are found by age",
        arguments: StoreKind.allCases)
    func erasure(kind: StoreKind) async throws {
        let store = try await kind.make()
        let mentor = try await store.createUser(
            NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "h", language: .norwegianBokmal), at: now)
        let (assignment, contact, item) = try await store.createAssignment(
            mentorID: mentor.id, coordinatorID: nil,
            contact: NewContact(name: "Per Olsen", phone: "+47 900 00 000", address: "Torggata 3", notes: "Hører dårlig"),
            at: now
        ) { contactID, assignmentID in
            NewNotification(
                recipientID: mentor.id, senderID: nil, kind: .assignment, title: "Nytt oppdrag", body: "Besøk Per Olsen i Torggata 3",
                deepLink: .contact(contactID: contactID, assignmentID: assignmentID), personalDetails: ["Per Olsen", "Torggata 3"])
        }
        #expect(try await store.contactsClosed(before: now.addingTimeInterval(86400)).isEmpty, "a live assignment keeps its contact")
        _ = try await store.respond(to: assignment.id, status: .acknowledged, at: now.addingTimeInterval(60))
        _ = try await store.completeVisit(assignmentID: assignment.id, note: "Per Olsen likte besøket", at: now.addingTimeInterval(120))
        #expect(try await store.contactsClosed(before: now.addingTimeInterval(120)).isEmpty)
        #expect(try await store.contactsClosed(before: now.addingTimeInterval(121)) == [contact.id])

        let later = now.addingTimeInterval(3600)
        let erased = try #require(
            try await store.eraseContact(contactID: contact.id, titles: [.norwegianBokmal: "Opplysningene er fjernet"], at: later))
        #expect(erased.map(\.id) == [item.id])
        let stored = try #require(try await store.contact(id: contact.id))
        #expect(stored.name.isEmpty && stored.phone.isEmpty && stored.address.isEmpty && stored.notes.isEmpty)
        #expect(stored.erasedAt == later)
        #expect(try await store.assignment(id: assignment.id)?.visitNote == "")
        #expect(try await store.assignment(id: assignment.id)?.status == .done)
        let notification = try #require(try await store.notification(id: item.id))
        #expect(notification.title == "Opplysningene er fjernet" && notification.body.isEmpty && notification.personalDetails.isEmpty)
        let events = try await store.events(for: mentor.id, after: 0, limit: 100)
        for event in events {
            if case let .notificationCreated(copy) = event.payload { #expect(copy.title == "Opplysningene er fjernet" && copy.body.isEmpty) }
            if case let .notificationUpdated(copy) = event.payload { #expect(!copy.body.contains("Per")) }
        }
        #expect(events.last?.type == .notificationUpdated)
        #expect(try await store.contactsClosed(before: later.addingTimeInterval(86400)).isEmpty, "an erased contact is not found again")
        // Again: nothing more changes, no new event.
        let count = events.count
        _ = try await store.eraseContact(
            contactID: contact.id, titles: [.norwegianBokmal: "Opplysningene er fjernet"], at: later.addingTimeInterval(60))
        #expect(try await store.events(for: mentor.id, after: 0, limit: 100).count == count)
        #expect(try await store.contact(id: contact.id)?.erasedAt == later)
        #expect(try await store.eraseContact(contactID: 999, titles: [:], at: later) == nil)
    }
}
