import Foundation
import Logging
import VarselCore
import VarselStore
import VarselWeb

/// Loads the demo, once: a mentor and a coordinator, and the demo notifications of ``DemoData`` for the mentor
/// (all four kinds, three unread), dated relative to the server's clock.
struct DemoSeeder {
    let services: VarselServices
    let logger: Logger

    static let mentorName = "demo-mentor"
    static let coordinatorName = "demo-coordinator"

    /// Writes a line to standard output at once (print is buffered when output is not a terminal).
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    func seed() async throws {
        let repository = services.repository
        if try await repository.user(username: Self.mentorName) != nil {
            say("Demo users already exist; their password is unchanged.")
            return
        }
        let fromEnvironment = ProcessInfo.processInfo.environment["VARSEL_DEMO_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        let password = fromEnvironment ?? Tokens.random().prefix(16).description
        let admin = UserAdministration(repository: repository, passwords: services.passwords)
        let now = services.now()
        let mentor = try await admin.add(username: Self.mentorName, password: password, role: "mentor", displayName: "Demo Mentor", locale: "en", at: now)
        let coordinator = try await admin.add(username: Self.coordinatorName, password: password, role: "coordinator",
                                              displayName: "Demo Coordinator", locale: "en", at: now)
        let contacts = DemoData.contacts(.english)
        // Oldest first, so ids grow with time as they would in use.
        for entry in DemoData.entries(.english).reversed() {
            let created = now.addingTimeInterval(-entry.age)
            let item: NotificationItem
            if let index = entry.contactIndex {
                let contact = contacts[index]
                item = try await repository.createAssignment(
                    mentorID: mentor.id, coordinatorID: coordinator.id,
                    contact: NewContact(name: contact.name, phone: contact.phone, address: contact.address, notes: contact.notes),
                    at: created
                ) { contactID, assignmentID in
                    NewNotification(recipientID: mentor.id, senderID: coordinator.id, kind: entry.kind, title: entry.title, body: entry.body,
                                    urgency: entry.urgency, deepLink: entry.deepLink(contactID: contactID, assignmentID: assignmentID),
                                    personalDetails: entry.personalDetails)
                }.2
            } else {
                item = try await repository.createNotifications([
                    NewNotification(recipientID: mentor.id, senderID: nil, kind: entry.kind, title: entry.title, body: entry.body,
                                    urgency: entry.urgency, deepLink: entry.deepLink(contactID: nil), personalDetails: entry.personalDetails),
                ], idempotencyKey: nil, at: created).items[0]
            }
            if entry.isRead {
                _ = try await repository.setRead(true, notificationID: item.id, userID: mentor.id, at: created.addingTimeInterval(600))
            }
        }
        _ = try await repository.setCertifications(
            [NewCertification(name: "Peer mentor certificate", expiresAt: now.addingTimeInterval(90 * 86400))], mentorID: mentor.id)
        logger.info("demo loaded", metadata: ["user.id": "\(mentor.id)"])
        if fromEnvironment == nil {
            say("Demo users \(Self.mentorName) and \(Self.coordinatorName) created with password: \(password)")
        } else {
            say("Demo users \(Self.mentorName) and \(Self.coordinatorName) created with the password from VARSEL_DEMO_PASSWORD.")
        }
    }
}
