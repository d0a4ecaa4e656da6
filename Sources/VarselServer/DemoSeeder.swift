import Foundation
import Logging
import VarselCore
import VarselService
import VarselStore
import VarselWeb

/// Loads the demo, once: a mentor and a coordinator, and the demo notifications of ``DemoData`` for the mentor
/// (all four kinds, three unread), dated relative to the server's clock.
struct DemoSeeder {
    let services: VarselServices
    let logger: Logger

    static let mentorName = "demo-mentor"
    static let coordinatorName = "demo-coordinator"
    static let secondMentorName = "demo-mentor-2"

    /// Writes a line to standard output at once (print is buffered when output is not a terminal).
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    func seed() async throws {
        if try await services.directory.person(username: Self.mentorName) != nil {
            say("Demo users already exist; their password is unchanged.")
            return
        }
        let fromEnvironment = ProcessInfo.processInfo.environment["VARSEL_DEMO_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        if let fromEnvironment, !Validation.password(fromEnvironment, field: "VARSEL_DEMO_PASSWORD").isEmpty {
            throw Administration.Failure("VARSEL_DEMO_PASSWORD must be 8 to 72 characters long: choose another, or leave it unset for a random one.")
        }
        let password = fromEnvironment ?? Tokens.random().prefix(16).description
        let admin = services.users
        let now = services.now()
        let mentor = try await admin.add(
            username: Self.mentorName, password: password, role: "mentor", displayName: "Demo Mentor", locale: "en", at: now)
        let coordinator = try await admin.add(
            username: Self.coordinatorName, password: password, role: "coordinator",
            displayName: "Demo Coordinator", locale: "en", at: now)
        try await services.sender.sendDemo(to: mentor, from: coordinator)
        _ = try await admin.setCertifications(
            [NewCertification(name: "Peer mentor certificate", expiresAt: now.addingTimeInterval(90 * 86400))], for: mentor.id, by: nil)
        // A second mentor, in Norwegian, fills the coordinator's dashboard: an assignment nobody answered (so the
        // upkeep reminds her and tells the coordinator) and a certification near expiry.
        let second = try await admin.add(
            username: Self.secondMentorName, password: password, role: "mentor", displayName: "Ingrid Berg",
            locale: "nb", at: now)
        try await services.sender.sendDemoOverdue(to: second, from: coordinator)
        _ = try await admin.setCertifications(
            [NewCertification(name: "Likepersonsertifikat", expiresAt: now.addingTimeInterval(20 * 86400))], for: second.id, by: nil)
        logger.info("demo loaded", metadata: ["user.id": "\(mentor.id)"])
        if fromEnvironment == nil {
            say("Demo users \(Self.mentorName), \(Self.secondMentorName) and \(Self.coordinatorName) created with password: \(password)")
        } else {
            say(
                "Demo users \(Self.mentorName), \(Self.secondMentorName) and \(Self.coordinatorName) created with the password from VARSEL_DEMO_PASSWORD."
            )
        }
    }
}
